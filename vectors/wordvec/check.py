#!/usr/bin/env python3
"""Load table.bin and print the nearest neighbours (cosine) of some words.

usage: check.py [TABLE.bin] [-k 8] [word ...]
"""
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from project import parse_words  # noqa: E402

QUERIES = ("memory ram slow quadratic square crash duplicate unique sandbox deprecated "
           "remove depth nested escape quiet timeout windows permission cache parse").split()


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    n, dims, words, counts, off = parse_words(data)
    rows = [struct.unpack_from(f"<{dims}b", data, off + i * dims) for i in range(n)]
    off += n * dims
    scales = struct.unpack_from(f"<{n}f", data, off)
    off += 4 * n
    if off != len(data):
        raise ValueError(f"{len(data) - off} trailing bytes")
    vecs = []
    for r, s in zip(rows, scales):
        v = [x * s for x in r]
        norm = math.sqrt(sum(x * x for x in v)) or 1.0
        vecs.append([x / norm for x in v])
    return words, counts, vecs, dims


def main():
    args = sys.argv[1:]
    k = 8
    if "-k" in args:
        i = args.index("-k")
        k = int(args[i + 1])
        del args[i:i + 2]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "table.bin")
    if args and args[0].endswith(".bin"):
        path = args.pop(0)
    queries = args or QUERIES
    words, counts, vecs, dims = load(path)
    index = {w: i for i, w in enumerate(words)}
    print(f"{path}: {len(words)} words x {dims} dims; unit-norm error of a row "
          f"{abs(1 - math.sqrt(sum(x * x for x in vecs[0]))):.1e}")
    for q in queries:
        if q not in index:
            print(f"{q}: (not in table)")
            continue
        qv = vecs[index[q]]
        sims = []
        for i, v in enumerate(vecs):
            if i != index[q]:
                sims.append((sum(a * b for a, b in zip(qv, v)), words[i]))
        sims.sort(reverse=True)
        print(f"{q} ({counts[index[q]]}): " + ", ".join(f"{w} {s:.2f}" for s, w in sims[:k]))


if __name__ == "__main__":
    main()
