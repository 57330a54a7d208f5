#!/usr/bin/env python3
"""Extract tokenized commit messages from git repositories.

usage: commits.py OUT.txt REPO[@COMMIT] ...

Each non-merge commit reachable from COMMIT (default HEAD) becomes one block:
its subject and body, without trailers (Signed-off-by, Change-Id, ...),
URLs, e-mail addresses and hexadecimal hashes, tokenized with extract.py's
tokenize(). Commits a bot wrote (dependency bumps, releases, translations)
and blocks of fewer than 4 tokens are left out, and a block whose token
sequence was already seen is written once. Blocks are written in a fixed
shuffled order, as extract.py does, because fastText's learning rate decays
over the file.

Commit messages are where developers describe a symptom and its cause in
the same few lines ("the prompt hangs ... an infinite loop in ..."), which
the documentation corpus rarely does; that is what relates a user's words
for a behaviour to the words of the change that explains it.
"""
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extract import tokenize  # noqa: E402  (the contract with the Go side)

TRAILER = re.compile(r"^[A-Za-z][A-Za-z0-9-]*(-by|-Id|-on|-Result|-Submit|-URL|-Review|-Trybot)?:\s", re.I)
KNOWN_TRAILERS = re.compile(
    r"^(signed-off-by|reviewed-by|acked-by|tested-by|co-authored-by|reported-by|suggested-by|"
    r"helped-by|cc|change-id|reviewed-on|run-trybot|trybot-result|trybot-bypass|auto-submit|"
    r"commit-queue|pr-url|pr-close|github-pull-request|github-last-rev|closes|fixes|refs|"
    r"see-also|updates|bug|issue|ref|backport-of|cherry-picked-from|cherry-pick|"
    r"original-commit|approved-by|differential revision|git-svn-id|svn path)\s*:",
    re.I)
URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+", re.I)
EMAIL = re.compile(r"\S+@\S+\.\S+")
HEX = re.compile(r"\b[0-9a-f]{7,64}\b", re.I)
BOT = re.compile(
    r"^(bump |build\(deps|chore\(deps|chore: bump|chore: release|update dependency|"
    r"\[bot\]|translated using weblate|release v?\d|v?\d+\.\d+(\.\d+)?$|prepare release|"
    r"update (changelog|authors|contributors)\b|regenerate|auto-generated|automated)", re.I)


def messages(repo, rev):
    out = subprocess.run(
        ["git", "-C", repo, "log", "--no-merges", "--format=%an%x1f%B%x1e", rev],
        check=True, capture_output=True).stdout.decode("utf-8", "replace")
    for rec in out.split("\x1e"):
        rec = rec.strip("\n")
        if not rec:
            continue
        author, _, msg = rec.partition("\x1f")
        if "[bot]" in author or author.endswith("bot"):
            continue
        yield msg


def clean(msg):
    lines = msg.strip().splitlines()
    if not lines or BOT.search(lines[0].strip()):
        return None
    kept = []
    for ln in lines:
        s = ln.strip()
        if KNOWN_TRAILERS.match(s) or (TRAILER.match(s) and len(s.split()) <= 6 and "@" in s):
            continue
        if s.startswith(("diff --git", "index ", "+++", "---", "@@", "> ", "$ ")):
            continue  # quoted diffs and shell transcripts are not prose
        kept.append(ln)
    text = "\n".join(kept)
    text = URL.sub(" ", text)
    text = EMAIL.sub(" ", text)
    text = HEX.sub(" ", text)
    return text


def main():
    out_path, specs = sys.argv[1], sys.argv[2:]
    seen = set()
    blocks = []
    for spec in specs:
        repo, _, rev = spec.partition("@")
        n = kept = 0
        for msg in messages(repo, rev or "HEAD"):
            n += 1
            text = clean(msg)
            if text is None:
                continue
            toks = tokenize(text)
            if len(toks) < 4:
                continue
            key = " ".join(toks)
            if key in seen:
                continue
            seen.add(key)
            blocks.append(key)
            kept += 1
        print(f"{repo}: {n} commits, {kept} blocks", file=sys.stderr)
    random.Random(2).shuffle(blocks)
    with open(out_path, "w", encoding="utf-8") as f:
        for b in blocks:
            f.write(b + "\n")
    print(f"{len(blocks)} blocks, {sum(len(b.split()) for b in blocks)} tokens", file=sys.stderr)


if __name__ == "__main__":
    main()
