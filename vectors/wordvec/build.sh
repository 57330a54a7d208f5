#!/usr/bin/env bash
# Regenerates table.bin from scratch on Debian 12 (bookworm), as root.
# See README.md. Intermediate files go to $WORK (default /tmp/wordvec).
#
#   bash vectors/wordvec/build.sh            # install packages, extract, train, write
#   SKIP_APT=1 bash vectors/wordvec/build.sh # packages already installed
#   MIRRORS=DIR bash vectors/wordvec/build.sh # DIR/<owner>+<name>/repo instead of cloning
#   KEEP_DOCS=1 bash vectors/wordvec/build.sh # reuse $WORK/docs.txt of an earlier run
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
WORK="${WORK:-/tmp/wordvec}"
OUT="${OUT:-$HERE/table.bin}"
PROJ="${PROJ:-$HERE/projection.bin}"

# Training parameters (README.md explains the choices).
DIM=100
EPOCH=5
WS=5
MIN_COUNT=5
MAX_WORDS=60000
# Retrofitting: synonyms sharing one of a word's first SENSES WordNet synsets,
# ITERS iterations, edges kept only where fastText cosine >= GATE.
SENSES=2
ITERS=10
GATE=0.4

PACKAGES=(
	fasttext wordnet-base python3 python3-numpy
	python3-doc python3.11-doc postgresql-doc-15 rust-doc golang-1.19-doc nodejs-doc
	golang-1.19-src python-django-doc sqlite3-doc llvm-14-doc clang-14-doc sphinx-doc cmake-doc
)

if [ -z "${SKIP_APT:-}" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"
fi

mkdir -p "$WORK"
# KEEP_DOCS: the documentation depends only on the packages, so a run that
# changes the commit list can reuse the extraction of an earlier one.
if [ -n "${KEEP_DOCS:-}" ] && [ -s "$WORK/docs.txt" ] && [ -s "$WORK/doc_counts.txt" ]; then
	rm -f "$WORK"/corpus.txt "$WORK"/commits.txt "$WORK"/doc_counts_all.txt "$WORK"/model.bin "$WORK"/model.vec
else
	KEEP_DOCS=
	rm -f "$WORK"/corpus.txt "$WORK"/docs.txt "$WORK"/commits.txt "$WORK"/doc_counts*.txt \
		"$WORK"/model.bin "$WORK"/model.vec
fi
dpkg-query -W -f='${Package} ${Version}\n' "${PACKAGES[@]}" | tee "$WORK/versions.txt"

export PYTHONHASHSEED=0 LC_ALL=C.UTF-8

echo "== extract $(date +%T)"
if [ -z "${KEEP_DOCS:-}" ]; then
	python3 "$HERE/extract.py" "$WORK/docs.txt" "$WORK/stats.json" "$WORK/doc_counts.txt"
fi

echo "== commit messages $(date +%T)"
# commits.tsv: owner/name, the commit the history is read from, licence.
# Only commit objects are needed, so a blobless clone is enough.
specs=()
while IFS=$'\t' read -r repo commit _; do
	dir="${MIRRORS:+$MIRRORS/${repo/\//+}/repo}"
	if [ -z "$dir" ]; then
		dir="$WORK/repos/${repo/\//+}.git"
		[ -d "$dir" ] || git clone -q --bare --filter=blob:none "https://github.com/$repo" "$dir"
	fi
	specs+=("$dir@$commit")
done < "$HERE/commits.tsv"
python3 "$HERE/commits.py" "$WORK/commits.txt" "${specs[@]}"

# One corpus, the two kinds of block interleaved in a fixed order; the
# domain counts that retrofitting reads include the commit messages.
python3 - "$WORK" <<'PY'
import random
import sys
from collections import Counter
work = sys.argv[1]
docs = open(f"{work}/docs.txt", encoding="utf-8").read().splitlines()
commits = open(f"{work}/commits.txt", encoding="utf-8").read().splitlines()
blocks = docs + commits
random.Random(3).shuffle(blocks)
with open(f"{work}/corpus.txt", "w", encoding="utf-8") as f:
    f.write("\n".join(blocks) + "\n")
counts = Counter()
with open(f"{work}/doc_counts.txt", encoding="utf-8") as f:
    for line in f:
        w, c = line.split()
        counts[w] += int(c)
for b in commits:
    counts.update(b.split())
with open(f"{work}/doc_counts_all.txt", "w", encoding="utf-8") as f:
    for w, c in sorted(counts.items()):
        f.write(f"{w} {c}\n")
PY

echo "== train $(date +%T)"
start=$(date +%s)
# -thread 1: fastText is reproducible only with one thread.
# -maxn 0: no character n-grams; on a corpus this small they make
# neighbours orthographic (cache ~ cachet, sandbox ~ sandbag).
fasttext skipgram -input "$WORK/corpus.txt" -output "$WORK/model" \
	-dim "$DIM" -epoch "$EPOCH" -ws "$WS" -minCount "$MIN_COUNT" -maxn 0 \
	-thread 1 -seed 0 -verbose 1
echo "trained in $(( $(date +%s) - start ))s"

echo "== retrofit and write $(date +%T)"
python3 "$HERE/table.py" "$WORK/corpus.txt" "$WORK/model.vec" /usr/share/wordnet "$OUT" \
	"$MAX_WORDS" "$MIN_COUNT" "$SENSES" "$ITERS" "$GATE" "$WORK/doc_counts_all.txt"

echo "== projection $(date +%T)"
# Debian's python3 (numpy from python3-numpy); one BLAS thread, so that
# the sums, and so the projection, are the same on every run.
OPENBLAS_NUM_THREADS=1 /usr/bin/python3 "$HERE/project.py" "$OUT" "$PROJ" "${specs[@]}"

ls -l "$OUT" "$PROJ"
echo "== check $(date +%T)"
python3 "$HERE/check.py" "$OUT"
