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
run() { # variant
  local label=${1%%=*} spec=${1#*=}
  IFS=, read -r -a parts <<<"$spec"
  local bin=${parts[0]} envs=("${parts[@]:1}")
  local home="$tmp/home-$label"
  rm -rf "$home"
  env GITMEMORY_HOME="$home" "$bin" add "$repo" --name bench >/dev/null
  env GITMEMORY_HOME="$home" "${envs[@]}" /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" \
    "$bin" sync bench --quiet >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
  read -r wall usr sys rss <"$tmp/time"
  local size
  size=$(du -sb "$home/repos/bench" | cut -f1)
  echo "$label $wall $(awk -v u="$usr" -v s="$sys" 'BEGIN { print u + s }') $((rss / 1024)) $size" | tee -a "$tmp/runs"
  if [ -n "${KEEP:-}" ]; then
    rm -rf "${KEEP:?}/$label"
    mkdir -p "$KEEP"
    mv "$home" "$KEEP/$label"
  else
    rm -rf "$home"
  fi
}
echo "label wall_s cpu_s peak_rss_mib store_bytes"
for ((r = 0; r < rounds; r++)); do
  order=("${variants[@]}")
  if ((r % 2 == 1)); then
    order=()
    for ((i = ${#variants[@]} - 1; i >= 0; i--)); do order+=("${variants[i]}"); done
  fi
  for v in "${order[@]}"; do run "$v"; done
done
echo "medians over $rounds rounds:"
for v in "${variants[@]}"; do
  label=${v%%=*}
  awk -v l="$label" 'BEGIN { n = 0 } $1 == l { w[n] = $2; c[n] = $3; m[n] = $4; n++ }
    function med(a, n,   i, j, t) {
      for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[int(n / 2)] : (a[n / 2 - 1] + a[n / 2]) / 2
    }
    END { printf "%s: wall %.1f s, CPU %.1f s, peak RSS %.0f MiB (%d runs)\n", l, med(w, n), med(c, n), med(m, n), n }' "$tmp/runs"
done
