#!/usr/bin/env bash
# Makes a bare repository whose default branch holds the first N commits of
# another repository's history, without copying objects: the new repository
# borrows them through objects/info/alternates. Its branch points at the
# first commit on the first-parent line (from the root) that has at least N
# ancestors, itself included, so the prefix is a real state of the history
# with its merges. Prints the new repository's path and commit count.
#
#   bench/history-prefix.sh /path/to/git.git 20000 /tmp/git-20k
set -euo pipefail
src=$(cd "$1" && git rev-parse --absolute-git-dir)
n=$2
dst=$3
if [ -e "$dst" ]; then
  echo "history-prefix: $dst exists; give a path that does not" >&2
  exit 2
fi
mapfile -t line < <(git --git-dir="$src" rev-list --first-parent --reverse HEAD)
count() { git --git-dir="$src" rev-list --count "$1"; }
total=$(count "${line[-1]}")
if ((n >= total)); then
  at=$((${#line[@]} - 1))
else
  lo=0 hi=$((${#line[@]} - 1)) # the first index whose count is >= n
  while ((lo < hi)); do
    mid=$(((lo + hi) / 2))
    if (($(count "${line[mid]}") >= n)); then hi=$mid; else lo=$((mid + 1)); fi
  done
  at=$lo
fi
git init --quiet --bare "$dst"
echo "$src/objects" >"$dst/objects/info/alternates"
git --git-dir="$dst" update-ref refs/heads/master "${line[at]}"
git --git-dir="$dst" symbolic-ref HEAD refs/heads/master
echo "$dst $(count "${line[at]}")"
