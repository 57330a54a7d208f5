#!/usr/bin/env bash
# Whole-program benchmark: a full gitmemory sync of a real repository beside
# `git log --numstat -M` on the same repository, in the same run, then an
# incremental sync of one new commit. Prints commits/s, the wall-time ratio
# to git and peak RSS.
#
#   bench/sync-vs-git.sh /path/to/repo [runs]
#   KEEP_HOME=/tmp/gm-bench bench/sync-vs-git.sh /path/to/repo   # keep the index for query benchmarks
#
# The repository's .git (or bare directory) is copied to a temporary
# directory, so the original is never changed by the incremental step.
set -euo pipefail
src=$(cd "$1" && pwd)
runs=${2:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/gitmemory" "$here/cmd/gitmemory"
gitdir=$(git -C "$src" rev-parse --absolute-git-dir)
cp -a "$gitdir" "$tmp/repo.git"
git -C "$tmp/repo.git" config core.bare true
# Warm the page cache so that both tools read from memory.
cat "$tmp"/repo.git/objects/pack/*.pack >/dev/null 2>&1 || true
commits=$(git -C "$tmp/repo.git" rev-list --count HEAD)
echo "repository: $src ($commits commits on $(git -C "$tmp/repo.git" symbolic-ref --short HEAD))"

measure() { # label command...: prints wall seconds and peak RSS (KiB)
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
  read -r wall rss <"$tmp/time"
}

for i in $(seq "$runs"); do
  measure git -C "$tmp/repo.git" log --numstat -M --format=%H HEAD
  gwall=$wall
  # The extraction-only baseline: extraction, redaction and the metadata
  # store, without understanding, entities, graph, vectors or relations.
  export GITMEMORY_HOME="$tmp/base$i"
  "$tmp/gitmemory" add "$tmp/repo.git" --name bench >/dev/null
  GITMEMORY_BENCH_EXTRACT_ONLY=1 measure "$tmp/gitmemory" sync bench --quiet
  xwall=$wall
  rm -rf "$tmp/base$i"
  export GITMEMORY_HOME="$tmp/home$i"
  "$tmp/gitmemory" add "$tmp/repo.git" --name bench >/dev/null
  measure "$tmp/gitmemory" sync bench --quiet
  awk -v n="$commits" -v g="$gwall" -v x="$xwall" -v m="$wall" -v r="$rss" 'BEGIN {
    printf "run: git log --numstat -M %.1fs (%.0f commits/s) | extraction only %.1fs (%.2fx git) | gitmemory sync %.1fs (%.0f commits/s), %.2fx git throughput, %.2fx the extraction-only time, peak RSS %.0f MiB\n",
      g, n/g, x, g/x, m, n/m, g/m, m/x, r/1024 }'
done
if [ -n "${KEEP_HOME:-}" ]; then
  rm -rf "$KEEP_HOME" && cp -a "$tmp/home$runs" "$KEEP_HOME" && cp -a "$tmp/repo.git" "$KEEP_HOME/repo.git"
  echo "kept the last run's home in $KEEP_HOME (its repository copy: $KEEP_HOME/repo.git)"
fi

# One new commit on top of the fully indexed repository.
tree=$(git -C "$tmp/repo.git" rev-parse 'HEAD^{tree}')
head=$(git -C "$tmp/repo.git" rev-parse HEAD)
new=$(git -C "$tmp/repo.git" commit-tree "$tree" -p "$head" -m "bench: one more commit")
git -C "$tmp/repo.git" update-ref HEAD "$new"
measure "$tmp/gitmemory" sync bench --quiet
echo "incremental sync of one commit: ${wall}s, peak RSS $((rss / 1024)) MiB"
"$tmp/gitmemory" status bench --verify | grep -E "indexed|failed|verify"
