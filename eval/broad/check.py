#!/usr/bin/python3
"""usage: check.py COMMITS.jsonl OUT.jsonl — reports questions that share a run
of three words with their commit's subject or body, bad JSON, unknown shas,
bad kinds, and counts."""
import json, re, sys
def words(s): return re.findall(r"[a-z0-9]+", s.lower())
def tri(ws): return {tuple(ws[i:i+3]) for i in range(len(ws)-2)}
cs = {}
for l in open(sys.argv[1]):
    c = json.loads(l); cs[c['sha']] = c
bad = 0; kinds = {}; n = 0
for i, l in enumerate(open(sys.argv[2]), 1):
    try:
        q = json.loads(l)
    except Exception as e:
        print(f'line {i}: not JSON: {e}'); bad += 1; continue
    c = cs.get(q.get('sha'))
    if c is None: print(f'line {i}: unknown sha {q.get("sha")}'); bad += 1; continue
    if q.get('kind') not in ('why', 'bugfix', 'feature'): print(f'line {i}: kind {q.get("kind")}'); bad += 1
    shared = tri(words(q.get('question', ''))) & tri(words(c['subject'] + '\n' + c['body']))
    if shared: print(f'line {i} {q["sha"][:10]}: shares {[" ".join(t) for t in shared]}'); bad += 1
    kinds[q.get('kind')] = kinds.get(q.get('kind'), 0) + 1; n += 1
print(f'{n} questions {kinds}; {bad} problems')
