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
branch=$(git --git-dir="$repo" symbolic-ref HEAD)
run() { # variant
  local label=${1%%=*} bin=${1#*=}
  local tree head new
  tree=$(git --git-dir="$repo" rev-parse 'HEAD^{tree}')
  head=$(git --git-dir="$repo" rev-parse HEAD)
  new=$(git --git-dir="$repo" commit-tree "$tree" -p "$head" -m "bench: one more commit ($label, $(date +%s%N))")
  git --git-dir="$repo" update-ref "$branch" "$new"
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$bin" sync "$name" --quiet >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err"; exit 1; }
  read -r wall usr sys rss <"$tmp/time"
  echo "$label $wall $(awk -v u="$usr" -v s="$sys" 'BEGIN { print u + s }') $((rss / 1024))" | tee -a "$tmp/runs"
}
echo "label wall_s cpu_s peak_rss_mib"
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
  awk -v l="${v%%=*}" 'BEGIN { n = 0 } $1 == l { w[n] = $2; c[n] = $3; m[n] = $4; n++ }
    function med(a, n,   i, j, t) {
      for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[int(n / 2)] : (a[n / 2 - 1] + a[n / 2]) / 2
    }
    END { printf "%s: wall %.3f s, CPU %.3f s, peak RSS %.0f MiB (%d runs)\n", l, med(w, n), med(c, n), med(m, n), n }' "$tmp/runs"
done
