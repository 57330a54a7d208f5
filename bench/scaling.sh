#!/usr/bin/env bash
# Sync time, CPU, peak RSS and store size against history length: for each
# N, a bare repository holding the first N commits of REPO (borrowing its
# objects, see history-prefix.sh) is synced whole into a fresh home.
#
#   go build -o /tmp/gm ./cmd/gitmemory
#   bench/scaling.sh /path/to/git.git /tmp/gm 10000 20000 40000 80000
set -euo pipefail
repo=$(cd "$1" && pwd)
bin=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat "$repo"/objects/pack/*.pack >/dev/null 2>&1 || true
echo "| commits | wall | CPU (user + sys) | peak RSS | store |"
echo "|---|---|---|---|---|"
for n in "$@"; do
  read -r prefix count < <("$here/history-prefix.sh" "$repo" "$n" "$tmp/prefix-$n")
  export GITMEMORY_HOME="$tmp/home-$n"
  "$bin" add "$prefix" --name bench >/dev/null
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$bin" sync bench --quiet >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
  read -r wall usr sys rss <"$tmp/time"
  size=$(du -sb "$GITMEMORY_HOME/repos/bench" | cut -f1)
  awk -v c="$count" -v w="$wall" -v u="$usr" -v s="$sys" -v r="$rss" -v z="$size" 'BEGIN {
    printf "| %d | %.1f s | %.1f s | %.0f MiB | %.1f MB |\n", c, w, u + s, r / 1024, z / 1e6 }'
  rm -rf "$GITMEMORY_HOME" "$tmp/prefix-$n"
done
