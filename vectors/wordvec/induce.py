#!/usr/bin/python3
"""Give the words of one repository's history that the table lacks a vector.

usage: induce.py GITDIR TABLE.bin OUT.bin [MINCOUNT] [WINDOW]

An experiment, not part of the build (docs/evaluation.md, "Vectors for a
history's own words"). Each word of the repository's cleaned commit messages
(commits.py) that the table lacks and that occurs MINCOUNT times or more
gets the normalised sum of the table vectors of the words within WINDOW
tokens of its occurrences, each less the frequency-weighted mean of all
rows, then SIF-weighted; the words are appended to
the table with their share of the history's tokens as their count, so that
the Go side weighs them as it weighs the others. The table's own rows are
copied byte for byte.
"""
import os
import struct
import subprocess
import sys
from collections import Counter

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import commits  # noqa: E402
from extract import tokenize  # noqa: E402
from project import parse_words, quantize, read_table, word_entries  # noqa: E402

git, tin, tout = sys.argv[1:4]
mincount = int(sys.argv[4]) if len(sys.argv) > 4 else 3
window = int(sys.argv[5]) if len(sys.argv) > 5 else 5

words, counts, vecs = read_table(tin)
index = {w: i for i, w in enumerate(words)}
p = counts / counts.sum()
sif = 1e-3 / (1e-3 + p)
mu = (vecs * p[:, None]).sum(0)
weighted = (vecs - mu) * sif[:, None]

out = subprocess.run(["git", "-C", git, "log", "--format=%B%x1e", "HEAD"], capture_output=True).stdout.decode("utf-8", "replace")
docs = []
for m in out.split("\x1e"):
    c = commits.clean(m) if m.strip() else None
    if c:
        docs.append(tokenize(c))
repo_counts = Counter(t for d in docs for t in d)
total = sum(repo_counts.values())
oov = {w for w, c in repo_counts.items() if c >= mincount and w not in index and len(w.encode()) < 256}
acc = {w: np.zeros(vecs.shape[1]) for w in oov}
for d in docs:
    for i, t in enumerate(d):
        if t not in acc:
            continue
        for j in range(max(0, i - window), min(len(d), i + window + 1)):
            if j != i and d[j] in index:
                acc[t] += weighted[index[d[j]]]
new_words, new_counts, new_vecs = [], [], []
for w in sorted(oov, key=lambda w: (-repo_counts[w], w)):
    v = acc[w]
    n = np.linalg.norm(v)
    if n == 0:
        continue
    new_words.append(w)
    new_counts.append(max(5, round(repo_counts[w] / total * counts.sum())))
    new_vecs.append(v / n)
print(f"{len(docs)} messages, {len(oov)} unknown words seen {mincount}+ times, {len(new_words)} given vectors; "
      f"e.g. {new_words[:15]}", file=sys.stderr)
raw = open(tin, "rb").read()
n, d, _, _, wl_end = parse_words(raw)
codes_end = wl_end + n * d
codes, scale = quantize(np.array(new_vecs, dtype=np.float32).reshape(-1, d))
with open(tout, "wb") as f:
    f.write(b"GMWVEC1\n" + struct.pack("<II", n + len(new_words), d))
    f.write(raw[16:wl_end])
    f.write(word_entries(new_words, new_counts))
    f.write(raw[wl_end:codes_end])
    f.write(codes.tobytes())
    f.write(raw[codes_end:])
    f.write(scale.tobytes())
