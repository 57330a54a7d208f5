# What the same-run comparison scripts (sync-pairs.sh, one-commit-pairs.sh)
# share. Source it after setting tmp (a scratch directory) and defining
# run VARIANT, which appends a line "LABEL WALL CPU RSS ..." to $tmp/runs.

# timed CMD...: runs CMD quietly under /usr/bin/time and prints
# "WALL CPU RSS_MIB" (CPU is user + sys); on failure prints CMD's stderr
# to stderr and fails. Call it in an assignment (x=$(timed ...)), where
# set -e sees the failure.
timed() {
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
  local wall usr sys rss
  read -r wall usr sys rss <"$tmp/time"
  echo "$wall $(awk -v u="$usr" -v s="$sys" 'BEGIN { print u + s }') $((rss / 1024))"
}

# interleave ROUNDS VARIANT...: runs each variant once a round, the order
# reversed every other round, so that none always runs after the same one.
interleave() {
  local rounds=$1 r i v
  shift
  local variants=("$@") order
  for ((r = 0; r < rounds; r++)); do
    order=("${variants[@]}")
    if ((r % 2 == 1)); then
      order=()
      for ((i = ${#variants[@]} - 1; i >= 0; i--)); do order+=("${variants[i]}"); done
    fi
    for v in "${order[@]}"; do run "$v"; done
  done
}

# medians DECIMALS ROUNDS VARIANT...: each variant's medians of wall time,
# CPU and peak RSS over $tmp/runs.
medians() {
  local decimals=$1 rounds=$2 v
  shift 2
  echo "medians over $rounds rounds:"
  for v in "$@"; do
    awk -v l="${v%%=*}" -v d="$decimals" 'BEGIN { n = 0 } $1 == l { w[n] = $2; c[n] = $3; m[n] = $4; n++ }
      function med(a, n,   i, j, t) {
        for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[int(n / 2)] : (a[n / 2 - 1] + a[n / 2]) / 2
      }
      END { printf "%s: wall %.*f s, CPU %.*f s, peak RSS %.0f MiB (%d runs)\n", l, d, med(w, n), d, med(c, n), med(m, n), n }' "$tmp/runs"
  done
}
