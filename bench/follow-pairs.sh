#!/usr/bin/env bash
# Same-run comparison of rename detection's follow search, and a check
# that it found the same sources. Each variant is an xfollow binary built
# from one version of the code (go build -o /tmp/xf-new ./internal/cmd/xfollow);
# each run loads, oldest first, every non-merge commit of the repository
# that creates files, and prints each created file's follow source. Each
# round runs every variant once, the order reversed every other round.
# Prints each run (wall, CPU, peak RSS, and the CPU of loading the commits
# alone), the medians, and fails unless every run printed the same sources.
#
#   bench/follow-pairs.sh /path/to/git.git 5 old=/tmp/xf-old new=/tmp/xf-new
set -euo pipefail
repo=$(cd "$1" && pwd)
rounds=$2
shift 2
variants=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=bench/pairs-lib.sh
. "$(dirname "$0")/pairs-lib.sh"
git -C "$repo" log --reverse --no-merges --no-renames --diff-filter=A --format=%H HEAD >"$tmp/commits"
echo "$(wc -l <"$tmp/commits") commits create files"
n=0
run() { # variant
  local label=${1%%=*} bin=${1#*=} times load
  n=$((n + 1))
  times=$(timed sh -c '"$1" "$2" <"$3" >"$4"' sh "$bin" "$repo" "$tmp/commits" "$tmp/out.$n")
  load=$(sed -n 's/.*load CPU \([0-9.]*\) s.*/\1/p' "$tmp/err")
  echo "$label $times $load" | tee -a "$tmp/runs"
}
echo "label wall_s cpu_s peak_rss_mib load_cpu_s"
interleave "$rounds" "${variants[@]}"
medians 2 "$rounds" "${variants[@]}"
for v in "${variants[@]}"; do
  awk -v l="${v%%=*}" '$1 == l { print $5 }' "$tmp/runs" | sort -n |
    awk -v l="${v%%=*}" '{ a[NR] = $1 } END { printf "%s: load CPU median %.2f s\n", l, NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
done
for ((i = 2; i <= n; i++)); do
  if ! cmp -s "$tmp/out.1" "$tmp/out.$i"; then
    echo "run $i found other follow sources than run 1:" >&2
    diff "$tmp/out.1" "$tmp/out.$i" | head -20 >&2
    exit 1
  fi
done
echo "all $n runs: the same follow source for each of $(wc -l <"$tmp/out.1") created files ($(awk -F'\t' '$3 != ""' "$tmp/out.1" | wc -l) followed)"
