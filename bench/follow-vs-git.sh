#!/usr/bin/env bash
# Checks gitmemory's follow sources against git's: for every file created
# by a sample of the repository's non-merge commits that create files
# (SAMPLE of them, evenly spaced, oldest first) and by any commits named
# after it, the path gitmemory records that the file continues from, and
# the one `git log --follow -1` shows at that commit. Prints each
# difference and a summary; fails on any difference.
#
#   go build -o /tmp/xfollow ./internal/cmd/xfollow
#   XFOLLOW=/tmp/xfollow bench/follow-vs-git.sh /path/to/git.git 150 877176e0
set -euo pipefail
repo=$(cd "$1" && pwd)
sample=$2
shift 2
xfollow=${XFOLLOW:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$xfollow" ]; then
  xfollow=$tmp/xfollow
  go build -o "$xfollow" "$(dirname "$0")/../internal/cmd/xfollow"
fi
git -C "$repo" log --reverse --no-merges --no-renames --diff-filter=A --format=%H HEAD >"$tmp/all"
total=$(wc -l <"$tmp/all")
awk -v n="$total" -v k="$sample" 'k > 0 && int(NR * k / n) != int((NR - 1) * k / n)' "$tmp/all" >"$tmp/commits"
for c in "$@"; do git -C "$repo" rev-parse --verify "$c^{commit}" >>"$tmp/commits"; done
"$xfollow" "$repo" <"$tmp/commits" >"$tmp/ours"
files=0 followed=0 differ=0
while IFS=$'\t' read -r commit path ours; do
  status=$(git -C "$repo" -c core.quotePath=false log --follow -1 --format= --name-status "$commit" -- "$path")
  theirs=""
  case $status in
  R* | C*) theirs=$(printf '%s\n' "$status" | cut -f2) ;;
  esac
  files=$((files + 1))
  if [ -n "$theirs" ]; then followed=$((followed + 1)); fi
  if [ "$ours" != "$theirs" ]; then
    differ=$((differ + 1))
    printf '%s %s: gitmemory follows %q, git %q\n' "${commit:0:12}" "$path" "$ours" "$theirs"
  fi
done <"$tmp/ours"
echo "$(wc -l <"$tmp/commits") commits, $files created files, $followed followed by git, $differ differ"
[ "$differ" -eq 0 ]
