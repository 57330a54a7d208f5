#!/usr/bin/env bash
# Same-run comparison of whole syncs: each variant syncs the repository into
# a fresh home, the variants interleaved (the order reversed every other
# round, so that none always runs after the same one), for ROUNDS rounds.
# Prints each run as it ends, then per variant the medians of wall time,
# CPU (user + sys) and peak RSS. On a shared machine CPU is the figure to
# compare. A variant is LABEL=BINARY, optionally with ENV=VALUE pairs after
# the binary, separated by commas:
#
#   bench/sync-pairs.sh /path/to/git.git 3 old=/tmp/gm-old new=/tmp/gm-new \
#     norel=/tmp/gm-new,GITMEMORY_BENCH_NO_RELATIONS=1
#
# KEEP=DIR keeps each variant's last home in DIR/LABEL (for xdump).
set -euo pipefail
repo=$(cd "$1" && pwd)
rounds=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat "$repo"/objects/pack/*.pack >/dev/null 2>&1 || true
variants=("$@")
# shellcheck source=bench/pairs-lib.sh
. "$(dirname "$0")/pairs-lib.sh"
run() { # variant
  local label=${1%%=*} spec=${1#*=}
  IFS=, read -r -a parts <<<"$spec"
  local bin=${parts[0]} envs=("${parts[@]:1}")
  local home="$tmp/home-$label" times size
  rm -rf "$home"
  env GITMEMORY_HOME="$home" "$bin" add "$repo" --name bench >/dev/null
  times=$(timed env GITMEMORY_HOME="$home" "${envs[@]}" "$bin" sync bench --quiet)
  size=$(du -sb "$home/repos/bench" | cut -f1)
  echo "$label $times $size" | tee -a "$tmp/runs"
  if [ -n "${KEEP:-}" ]; then
    rm -rf "${KEEP:?}/$label"
    mkdir -p "$KEEP"
    mv "$home" "$KEEP/$label"
  else
    rm -rf "$home"
  fi
}
echo "label wall_s cpu_s peak_rss_mib store_bytes"
interleave "$rounds" "${variants[@]}"
medians 1 "$rounds" "${variants[@]}"
