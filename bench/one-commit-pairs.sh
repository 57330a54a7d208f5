#!/usr/bin/env bash
# Same-run comparison of one-commit syncs: on a home that already holds a
# repository, each round adds one commit (the same tree, a new message) to
# the repository's branch and syncs it with each variant in turn, the order
# reversed every other round. Prints each run, then per variant the medians
# of wall time, CPU (user + sys) and peak RSS. The repository is changed:
# give a private clone (git clone --bare /path/to/git.git /tmp/clone.git),
# registered in the home and synced once by any build.
#
#   GITMEMORY_HOME=/tmp/h bench/one-commit-pairs.sh /tmp/clone.git git 10 old=/tmp/gm-old new=/tmp/gm-new
set -euo pipefail
repo=$(cd "$1" && pwd)
name=$2
rounds=$3
shift 3
: "${GITMEMORY_HOME:?set GITMEMORY_HOME to the home that holds the repository}"
variants=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=bench/pairs-lib.sh
. "$(dirname "$0")/pairs-lib.sh"
branch=$(git --git-dir="$repo" symbolic-ref HEAD)
run() { # variant
  local label=${1%%=*} bin=${1#*=}
  local tree head new times
  tree=$(git --git-dir="$repo" rev-parse 'HEAD^{tree}')
  head=$(git --git-dir="$repo" rev-parse HEAD)
  new=$(git --git-dir="$repo" commit-tree "$tree" -p "$head" -m "bench: one more commit ($label, $(date +%s%N))")
  git --git-dir="$repo" update-ref "$branch" "$new"
  times=$(timed "$bin" sync "$name" --quiet)
  echo "$label $times" | tee -a "$tmp/runs"
}
echo "label wall_s cpu_s peak_rss_mib"
interleave "$rounds" "${variants[@]}"
medians 3 "$rounds" "${variants[@]}"
