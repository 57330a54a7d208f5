#!/usr/bin/python3
"""Train the projection the local embedder applies to summed word vectors.

usage: project.py TABLE.bin OUT.bin REPO@COMMIT ...

Pairs each commit's subject with its body (commits.py's cleaning; subject
of 3 tokens or more, body of 6 or more, its first 120 tokens), embeds both
as the Go side does (the table's SIF-weighted rows, less their common
direction, summed and normalised), and learns a 100×100 matrix W so that
W·subject is nearest W·body among the other pairs of a batch (InfoNCE,
both directions, temperature 0.05, batches of 1,024, Adam at 1e-3, four
epochs, W starting at the identity). 5,000 pairs are held out and the
subject-to-body recall@1 among 1,000 is printed before and after.

Written as "GMWPROJ1", uint32 dims, dims×dims float32 row-major (little-
endian). Needs numpy (Debian's python3-numpy); build.sh runs it with one
BLAS thread so that the result is reproducible.
"""
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import commits  # noqa: E402
from extract import tokenize  # noqa: E402

TAU, LR, BATCH, EPOCHS, HELD_OUT = 0.05, 1e-3, 1024, 4, 5000


def parse_words(data):
    """The table's size, words and counts, and the offset of its rows."""
    if data[:8] != b"GMWVEC1\n":
        raise ValueError("bad magic")
    n, d = struct.unpack_from("<II", data, 8)
    off = 16
    words, counts = [], []
    for _ in range(n):
        ln = data[off]
        off += 1
        words.append(data[off:off + ln].decode())
        off += ln
        counts.append(struct.unpack_from("<I", data, off)[0])
        off += 4
    return n, d, words, counts, off


def read_table(path):
    """The table's words, counts (float64) and rows as stored (float32), unweighted."""
    with open(path, "rb") as f:
        data = f.read()
    n, d, words, counts, off = parse_words(data)
    codes = np.frombuffer(data, dtype=np.int8, count=n * d, offset=off).reshape(n, d)
    scales = np.frombuffer(data, dtype="<f4", count=n, offset=off + n * d)
    return words, np.array(counts, dtype=np.float64), codes.astype(np.float32) * scales[:, None]


def quantize(vecs):
    """Rows as the table stores them: int8 codes and a float32 scale each."""
    m = np.abs(vecs).max(1)
    m[m == 0] = 1
    scale = (m / 127).astype("<f4")
    return np.clip(np.rint(vecs / scale[:, None]), -127, 127).astype(np.int8), scale


def word_entries(words, counts):
    """The table's word list: each word's length, bytes and count."""
    out = bytearray()
    for w, c in zip(words, counts):
        b = w.encode()
        out += bytes([len(b)]) + b + struct.pack("<I", int(c))
    return bytes(out)


def load_table(path):
    with open(path, "rb") as f:
        data = f.read()
    n, d, words, counts, off = parse_words(data)
    codes = np.frombuffer(data, dtype=np.int8, count=n * d, offset=off).reshape(n, d).astype(np.float64)
    off += n * d
    scales = np.frombuffer(data, dtype="<f4", count=n, offset=off).astype(np.float64)
    counts = np.array(counts, dtype=np.float64)
    p = counts / counts.sum()
    rows = codes * scales[:, None] * (1e-3 / (1e-3 + p))[:, None]  # vectors/wordvec.go: sifA
    rows -= (rows * p[:, None]).sum(0)
    index = {}
    for i, w in enumerate(words):
        index.setdefault(w, i)
    return rows, index


def pairs(specs):
    for spec in specs:
        repo, _, rev = spec.partition("@")
        for msg in commits.messages(repo, rev or "HEAD"):
            text = commits.clean(msg)
            if text is None:
                continue
            head = text.strip().split("\n", 1)
            if len(head) < 2:
                continue
            s, b = tokenize(head[0]), tokenize(head[1])
            if len(s) >= 3 and len(b) >= 6:
                yield s, b[:120]


def embed(rows, index, toks):
    ids = [index[t] for t in toks if t in index]
    if not ids:
        return None
    v = rows[ids].sum(0)
    return v / (np.linalg.norm(v) + 1e-12)


def normed(x, w):
    z = x @ w.T
    return z / (np.linalg.norm(z, axis=1, keepdims=True) + 1e-12)


def recall1(s, b, w):
    hits = 0
    for k in range(0, len(s), 1000):
        u, v = normed(s[k:k + 1000], w), normed(b[k:k + 1000], w)
        hits += int((np.argmax(u @ v.T, axis=1) == np.arange(len(u))).sum())
    return hits / len(s)


def step(w, x, y, adam, t):
    zx, zy = x @ w.T, y @ w.T
    nx, ny = np.linalg.norm(zx, axis=1, keepdims=True), np.linalg.norm(zy, axis=1, keepdims=True)
    u, v = zx / nx, zy / ny
    logits = u @ v.T / TAU
    p1 = np.exp(logits - logits.max(1, keepdims=True))
    p1 /= p1.sum(1, keepdims=True)
    p2 = np.exp(logits.T - logits.T.max(1, keepdims=True))
    p2 /= p2.sum(1, keepdims=True)
    eye = np.eye(len(x))
    g = ((p1 - eye) + (p2 - eye).T) / (len(x) * TAU)
    du, dv = g @ v, g.T @ u
    dzx = (du - u * (u * du).sum(1, keepdims=True)) / nx
    dzy = (dv - v * (v * dv).sum(1, keepdims=True)) / ny
    grad = dzx.T @ x + dzy.T @ y
    m, s = adam
    m[:] = 0.9 * m + 0.1 * grad
    s[:] = 0.999 * s + 0.001 * grad * grad
    w -= LR * (m / (1 - 0.9 ** t)) / (np.sqrt(s / (1 - 0.999 ** t)) + 1e-8)


def main():
    table, out, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
    rows, index = load_table(table)
    subj, body = [], []
    for s, b in pairs(specs):
        vs, vb = embed(rows, index, s), embed(rows, index, b)
        if vs is not None and vb is not None:
            subj.append(vs)
            body.append(vb)
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(subj))
    subj = np.array(subj, dtype=np.float32)[perm]
    body = np.array(body, dtype=np.float32)[perm]
    sv, bv, st, bt = subj[:HELD_OUT], body[:HELD_OUT], subj[HELD_OUT:], body[HELD_OUT:]
    d = subj.shape[1]
    w = np.eye(d, dtype=np.float32)
    print(f"{len(subj)} pairs; held-out subject->body recall@1 of 1000: {recall1(sv, bv, w):.3f}",
          file=sys.stderr)
    adam, t = (np.zeros_like(w), np.zeros_like(w)), 0
    for epoch in range(EPOCHS):
        order = rng.permutation(len(st))
        for k in range(0, len(order) - BATCH + 1, BATCH):
            t += 1
            ix = order[k:k + BATCH]
            step(w, st[ix], bt[ix], adam, t)
        print(f"epoch {epoch}: {recall1(sv, bv, w):.3f}", file=sys.stderr)
    with open(out, "wb") as f:
        f.write(b"GMWPROJ1" + struct.pack("<I", d) + w.astype("<f4").tobytes())


if __name__ == "__main__":
    main()
