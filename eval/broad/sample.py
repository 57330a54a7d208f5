#!/usr/bin/python3
"""Sample commits of a repository for question writing.

usage: sample.py NAME GITDIR N SEED > NAME.commits.jsonl

A seeded random sample of N non-merge commits, in date order: 80 % with a
body of 150 characters or more once trailers are cut, 20 % with a shorter
one, so that commits whose reason is only in the diff are asked about too.
Bots, version stamps, merges, changelog and typo commits are left out.
Each line holds the sha, date, subject, body (first 1,500 characters) and
the changed paths with their line counts: what the writer reads first."""
import json, re, subprocess, sys, random

TRAILER = re.compile(r'^(Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Reported-by|Tested-by|Change-Id|Cc|Fixes|Closes|Helped-by|Suggested-by|PR-URL|Reviewed-on|Refs):', re.I)
SKIP = re.compile(r'^(merge|bump|release|version|prepare|changelog|update changelog|chore\(deps|chore\(release|build\(deps|revert "revert|typo|fix typo|docs: typo|update copyright|update authors)', re.I)
BOT = re.compile(r'bot|renovate|dependabot|github-actions', re.I)

def commits(repo):
    out = subprocess.run(['git', '-C', repo, 'log', '--no-merges', '--format=%H%x1f%ad%x1f%an%x1f%s%x1f%b%x1e', '--date=short'],
                         capture_output=True, text=True, errors='replace').stdout
    for rec in out.split('\x1e'):
        f = rec.strip('\n').split('\x1f')
        if len(f) < 5: continue
        h, d, a, s, b = f
        b = '\n'.join(l for l in b.splitlines() if not TRAILER.match(l.strip())).strip()
        yield h, d, a, s, b

def files(repo, h):
    out = subprocess.run(['git', '-C', repo, 'show', '--numstat', '--format=', h], capture_output=True, text=True, errors='replace').stdout
    rows = [l.split('\t') for l in out.splitlines() if l.count('\t') == 2]
    return [f'{r[2]} (+{r[0]} -{r[1]})' for r in rows[:10]] + ([f'... {len(rows)-10} more files'] if len(rows) > 10 else [])

def main(name, repo, n, seed):
    rnd = random.Random(seed)
    long_, short = [], []
    for h, d, a, s, b in commits(repo):
        if len(s) < 15 or SKIP.match(s) or BOT.search(a): continue
        (long_ if len(b) >= 150 else short).append((h, d, s, b))
    nl = int(n * 0.8)
    pick = rnd.sample(long_, min(nl, len(long_))) + rnd.sample(short, min(n - nl, len(short)))
    pick.sort(key=lambda c: c[1])
    for h, d, s, b in pick:
        print(json.dumps({'repo': name, 'sha': h, 'date': d, 'subject': s, 'body': b[:1500], 'files': files(repo, h)}))

if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
