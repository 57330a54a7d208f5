#!/usr/bin/python3
"""Fine-tune the word-vector table and its projection on commit messages.

usage: finetune.py TABLE.bin PROJ.bin OUT_TABLE.bin OUT_PROJ.bin REPO@COMMIT ...

project.py learns only a 100x100 map over fixed word vectors. This learns
the vectors too: each word's row (and so its direction and its length, which
weighs the word beside the SIF weight the Go side applies) moves so that a
commit's subject, embedded exactly as vectors/wordvec.go and vectors/local.go
embed it (SIF-weighted rows less their frequency-weighted mean, summed,
projected, normalised), is nearest its own body among the other commits of a
batch (InfoNCE in both directions). The rows are held near the table they
start from (an L2 pull of strength REG), so that the neighbours fastText and
the WordNet retrofitting found stay where no commit message says otherwise.

The pairs are commits.py's cleaned messages, as project.py reads them. 5,000
pairs are held out and the subject-to-body recall@1 among 1,000 is printed
before and after each epoch. The output table keeps the input's words and
counts; only the rows change. Needs Debian's python3-torch; one seed and one
thread make the result repeat exactly.
"""
import os
import pickle
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import project  # noqa: E402

TAU, BATCH, HELD_OUT = 0.05, 1024, 5000
EPOCHS = int(os.environ.get("EPOCHS", "3"))
LR_ROWS = float(os.environ.get("LR_ROWS", "3e-4"))
LR_PROJ = float(os.environ.get("LR_PROJ", "3e-4"))
REG = float(os.environ.get("REG", "1.0"))
SIF_A = 1e-3  # vectors/wordvec.go: sifA


def write_table(path, words, counts, vecs):
    codes, scale = project.quantize(vecs)
    with open(path, "wb") as f:
        f.write(b"GMWVEC1\n" + struct.pack("<II", len(words), vecs.shape[1]))
        f.write(project.word_entries(words, counts))
        f.write(codes.tobytes())
        f.write(scale.tobytes())


def read_projection(path, d):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"GMWPROJ1" or struct.unpack_from("<I", data, 8)[0] != d:
        raise ValueError("bad projection")
    return np.frombuffer(data, dtype="<f4", offset=12).reshape(d, d).copy()


def load_pairs(specs, index):
    cache = os.environ.get("PAIRS_CACHE")
    if cache and os.path.exists(cache):
        with open(cache, "rb") as f:
            return pickle.load(f)
    out = []
    for r, spec in enumerate(specs):
        for s, b in project.pairs([spec]):
            si = [index[t] for t in s if t in index]
            bi = [index[t] for t in b if t in index]
            if si and bi:
                out.append((np.array(si, dtype=np.int64), np.array(bi, dtype=np.int64), r))
    if cache:
        with open(cache, "wb") as f:
            pickle.dump(out, f)
    return out


def bags(seqs):
    lens = [len(s) for s in seqs]
    offsets = np.concatenate([[0], np.cumsum(lens)[:-1]])
    return torch.from_numpy(np.concatenate(seqs)), torch.from_numpy(offsets.astype(np.int64))


class Model(torch.nn.Module):
    def __init__(self, vecs, counts, proj):
        super().__init__()
        p = counts / counts.sum()
        self.rows = torch.nn.Parameter(torch.from_numpy(vecs.copy()))
        self.register_buffer("start", torch.from_numpy(vecs.copy()))
        self.register_buffer("sif", torch.from_numpy((SIF_A / (SIF_A + p)).astype(np.float32))[:, None])
        self.register_buffer("p", torch.from_numpy(p.astype(np.float32))[:, None])
        self.proj = torch.nn.Parameter(torch.from_numpy(proj))

    def weighted(self):
        w = self.rows * self.sif
        return w - (w * self.p).sum(0, keepdim=True)

    def embed(self, table, seqs):
        ids, offsets = bags(seqs)
        x = F.embedding_bag(ids, table, offsets, mode="sum")
        return F.normalize(x @ self.proj.T, dim=1)


def batches(train, rng):
    """Batches of BATCH pairs in a shuffled order. With SAME_REPO set, each
    batch's pairs come from one repository, so that a subject must tell its
    body from its own project's other bodies, as a question must tell its
    answer from the rest of one history."""
    if not os.environ.get("SAME_REPO"):
        order = rng.permutation(len(train))
        return [[train[i] for i in order[k:k + BATCH]] for k in range(0, len(order) - BATCH + 1, BATCH)]
    by = {}
    for p in train:
        by.setdefault(p[2], []).append(p)
    out = []
    for r in sorted(by):
        ps = by[r]
        order = rng.permutation(len(ps))
        size = min(BATCH, len(ps))
        out += [[ps[i] for i in order[k:k + size]] for k in range(0, len(ps) - size + 1, size)]
    return [out[i] for i in rng.permutation(len(out))]


def recall1(model, held):
    with torch.no_grad():
        table = model.weighted()
        hits = 0
        for k in range(0, len(held), 1000):
            chunk = held[k:k + 1000]
            u = model.embed(table, [p[0] for p in chunk])
            v = model.embed(table, [p[1] for p in chunk])
            hits += int((torch.argmax(u @ v.T, 1) == torch.arange(len(chunk))).sum())
        return hits / len(held)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(int(os.environ.get("THREADS", "1")))
    tin, pin, tout, pout, specs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
    words, counts, vecs = project.read_table(tin)
    index = {}
    for i, w in enumerate(words):
        index.setdefault(w, i)
    pairs = load_pairs(specs, index)
    rng = np.random.default_rng(0)
    pairs = [pairs[i] for i in rng.permutation(len(pairs))]
    held, train = pairs[:HELD_OUT], pairs[HELD_OUT:]
    model = Model(vecs, counts, read_projection(pin, vecs.shape[1]))
    print(f"{len(pairs)} pairs; held-out subject->body recall@1 of 1000: {recall1(model, held):.3f}",
          file=sys.stderr, flush=True)
    opt = torch.optim.Adam([{"params": [model.rows], "lr": LR_ROWS},
                            {"params": [model.proj], "lr": LR_PROJ}])
    for epoch in range(EPOCHS):
        for batch in batches(train, rng):
            labels = torch.arange(len(batch))
            table = model.weighted()
            u = model.embed(table, [p[0] for p in batch])
            v = model.embed(table, [p[1] for p in batch])
            logits = u @ v.T / TAU
            loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
            # The pull towards the starting rows, per row touched, so that
            # a frequent word moves no more freely than a rare one.
            loss = loss + REG * ((model.rows - model.start) ** 2).sum() / len(words) * 100
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch}: {recall1(model, held):.3f}", file=sys.stderr, flush=True)
    with torch.no_grad():
        write_table(tout, words, counts, model.rows.numpy())
        with open(pout, "wb") as f:
            f.write(b"GMWPROJ1" + struct.pack("<I", vecs.shape[1]) + model.proj.numpy().astype("<f4").tobytes())


if __name__ == "__main__":
    main()
