#!/usr/bin/env python3
"""Retrofit fastText vectors to WordNet (Faruqui et al. 2015) and write the
GMWVEC1 table (format in README.md).

usage: table.py CORPUS.txt MODEL.vec WORDNET_DIR OUT.bin MAX_WORDS MIN_COUNT
                SENSES ITERS GATE DOC_COUNTS.txt
"""
import math
import struct
import sys
from collections import Counter

corpus, vec_path, wn_dir, out_path = sys.argv[1:5]
max_words, min_count, senses, iters = map(int, sys.argv[5:9])
gate = float(sys.argv[9])
doc_counts = {}
with open(sys.argv[10], encoding="utf-8") as f:
    for line in f:
        w, c = line.split()
        doc_counts[w] = int(c)

counts = Counter()
with open(corpus, encoding="utf-8") as f:
    for line in f:
        counts.update(line.split())

vecs = {}
with open(vec_path, encoding="utf-8") as f:
    n, dims = map(int, f.readline().split())
    for line in f:
        parts = line.rstrip().split(" ")
        w = parts[0]
        if counts.get(w, 0) < min_count or len(w.encode()) > 255:
            continue  # drops fastText's </s>
        v = [float(x) for x in parts[1:]]
        norm = math.sqrt(sum(x * x for x in v)) or 1.0
        vecs[w] = [x / norm for x in v]

words = sorted(vecs, key=lambda w: (-counts[w], w))[:max_words]
keep = set(words)


def cos(a, b):
    return sum(x * y for x, y in zip(vecs[a], vecs[b]))


# WordNet lexicon: a and b are neighbours when they share a synset that is
# among the first `senses` synsets (index.POS order) of both of them, both
# occur min_count times in the documentation (not just in WordNet's
# glosses), and their fastText vectors already agree (cos >= gate). The last
# two keep out senses foreign to software: "memory" ~ "remembering",
# "crash" ~ "clang", "ram" ~ "pound", "cache" ~ "hoard".
first = {}
for pos in ("noun", "verb", "adj", "adv"):
    with open(f"{wn_dir}/index.{pos}", encoding="utf-8") as f:
        for line in f:
            if line.startswith(" "):
                continue
            p = line.split()
            first[(pos, p[0])] = set(p[6 + int(p[3]):][:senses])

lex = {}
for pos in ("noun", "verb", "adj", "adv"):
    wanted = set()
    for (ps, lemma), offs in first.items():
        if ps == pos and lemma in keep:
            wanted |= offs
    with open(f"{wn_dir}/data.{pos}", encoding="utf-8") as f:
        for line in f:
            if line.startswith(" "):
                continue
            fields = line.split()
            off = fields[0]
            if off not in wanted:
                continue
            members = []
            for i in range(int(fields[3], 16)):
                lemma = fields[4 + 2 * i].lower()
                if "(" in lemma:  # adjective markers: quiet(a)
                    lemma = lemma[:lemma.index("(")]
                if (lemma in keep and off in first.get((pos, lemma), ())
                        and doc_counts.get(lemma, 0) >= min_count):
                    members.append(lemma)
            for a in members:
                for b in members:
                    if a != b and cos(a, b) >= gate:
                        lex.setdefault(a, set()).add(b)

print(f"table: {len(words)} words x {dims} dims; retrofit: {len(lex)} words with "
      f"{sum(len(v) for v in lex.values())} WordNet neighbours", file=sys.stderr)

# q_i = (alpha * qhat_i + sum_j beta_ij q_j) / (alpha + sum_j beta_ij),
# alpha = 1, beta_ij = 1/degree(i); in-place (Gauss-Seidel) as in the paper's code.
new = {w: vecs[w] for w in words}
order = sorted(lex)
for _ in range(iters):
    for w in order:
        nb = sorted(lex[w])
        beta = 1.0 / len(nb)
        acc = list(vecs[w])
        for u in nb:
            q = new[u]
            for k in range(dims):
                acc[k] += beta * q[k]
        new[w] = [x / 2.0 for x in acc]

# Uncompressed: the Go side reads it in place (gzip saved 10 % and cost every
# process 45 ms to unpack).
with open(out_path, "wb") as g:
    g.write(b"GMWVEC1\n")
    g.write(struct.pack("<II", len(words), dims))
    for w in words:
        b = w.encode()
        g.write(struct.pack("<B", len(b)) + b + struct.pack("<I", counts[w]))
    rows = bytearray()
    scales = []
    for w in words:
        v = new[w]
        norm = math.sqrt(sum(x * x for x in v)) or 1.0
        v = [x / norm for x in v]
        m = max(abs(x) for x in v) or 1.0
        rows += struct.pack(f"<{dims}b", *[max(-127, min(127, round(x * 127 / m))) for x in v])
        scales.append(m / 127)
    g.write(bytes(rows))
    g.write(struct.pack(f"<{len(words)}f", *scales))
