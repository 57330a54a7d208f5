#!/usr/bin/env python3
"""Extract tokenized prose from Debian documentation packages.

usage: extract.py [--keep-pre] CORPUS.txt STATS.json DOC_COUNTS.txt

Walks the HTML documentation of the corpora listed in CORPORA, turns each
page into text blocks (paragraphs, list items, headings, table cells),
drops navigation, sidebars and (unless --keep-pre) <pre> code blocks,
tokenizes every block with tokenize() and writes one block per line, in a
fixed shuffled order. A block whose token sequence was already seen
(navigation text, doc comments repeated on every trait implementation) is
written only once. Go standard library comments and WordNet glosses are
blocks too. DOC_COUNTS.txt gets each word's count outside the WordNet
glosses (retrofitting uses it to keep to words of the software domain).

tokenize() is the contract with the Go side; see README.md.
"""
import gzip
import html.parser
import json
import os
import random
import re
import sys
import unicodedata
from collections import Counter
from multiprocessing import Pool

DOC = "/usr/share/doc"

# (name, Debian package, root, include predicate on the path relative to root)
_SPHINX_SKIP_DIRS = ("_sources/", "_static/", "_downloads/", "_images/", "_modules/")
_SPHINX_SKIP_FILES = ("genindex.html", "py-modindex.html", "search.html")


def _sphinx(rel):
    base = os.path.basename(rel)
    return not (rel.startswith(_SPHINX_SKIP_DIRS) or base.startswith("genindex")
                or base in _SPHINX_SKIP_FILES)


def _all(rel):
    return True


_RUST_DIRS = ("book/", "rust-by-example/", "reference/", "nomicon/", "edition-guide/",
              "embedded-book/", "rustc/", "rustdoc/", "unstable-book/", "std/", "proc_macro/")


def _rust(rel):
    # std only: core/ and alloc/ repeat std's docs, src/ is source code,
    # print.html repeats a book's chapters.
    base = os.path.basename(rel)
    if base in ("print.html", "toc.html", "404.html", "all.html"):
        return False
    return rel == "error-index.html" or rel.startswith(_RUST_DIRS)


def _node(rel):
    return "/" not in rel and rel != "all.html"  # all.html concatenates the others


def _go(rel):
    return rel in ("go_spec.html", "go_mem.html", "asm.html")  # not the old go1.17_spec


def _gosrc(rel):
    # not third-party code (vendor/), test data, tests, or idct.go (MPEG licence)
    parts = rel.split("/")
    return (rel.endswith(".go") and not rel.endswith("_test.go")
            and "vendor" not in parts and "testdata" not in parts
            and rel != "image/jpeg/idct.go")


def _llvm(rel):
    return _sphinx(rel) and not rel.startswith("AMDGPU")  # instruction-set tables


CORPORA = [
    ("python", "python3.11-doc", DOC + "/python3.11/html", _sphinx),
    ("postgresql", "postgresql-doc-15", DOC + "/postgresql-doc-15/html", _all),
    ("rust", "rust-doc", DOC + "/rust-doc/html", _rust),
    ("nodejs", "nodejs-doc", DOC + "/nodejs/api", _node),
    ("go", "golang-1.19-doc", DOC + "/golang-1.19-doc/html", _go),
    ("django", "python-django-doc", DOC + "/python-django-doc/html", _sphinx),
    ("sqlite", "sqlite3-doc", DOC + "/sqlite3", _all),
    ("llvm", "llvm-14-doc", DOC + "/llvm-14-doc/html", _llvm),
    ("sphinx", "sphinx-doc", DOC + "/sphinx-doc/html", _sphinx),
    ("cmake", "cmake-doc", DOC + "/cmake-data/html", _sphinx),
    ("clang", "clang-14-doc", DOC + "/clang-14/html", _sphinx),
    # Go standard library: the comments of its .go files
    ("go-src", "golang-1.19-src", "/usr/share/go-1.19/src", _gosrc),
    # WordNet: each synset's words and gloss (definition and examples) as one block
    ("wordnet", "wordnet-base", "/usr/share/wordnet", None),
]

# ---------------------------------------------------------------- tokenizer

_RUN = re.compile(r"[^\W_]+")  # letters and digits (plus a few numerics, refined below)


def _cat(c):
    return unicodedata.category(c)


def _split_camel(run):
    """Split a run of letters/digits before an upper-case letter that follows
    a lower-case letter or a digit ("parseConfig", "utf8Decode"), and before
    the last capital of an acronym followed by a lower-case letter
    ("HTTPServer" -> "HTTP", "Server"), except before a final plural "s"
    ("APIs", "URLs" stay whole)."""
    if run.isascii():
        if run.islower() or run.isdigit() or not any(ch.isupper() for ch in run):
            return [run]
    parts = []
    start = 0
    n = len(run)
    for i in range(1, n):
        c = run[i]
        if _cat(c) != "Lu":
            continue
        p = _cat(run[i - 1])
        if p in ("Ll", "Nd") or (p == "Lu" and i + 1 < n and _cat(run[i + 1]) == "Ll"
                                 and run[i + 1:] != "s"):
            parts.append(run[start:i])
            start = i
    parts.append(run[start:])
    return parts


def _runs(text):
    for m in _RUN.finditer(text):
        r = m.group(0)
        if r.isascii():
            yield r
            continue
        # \w also matches No/Nl numerics and some marks: keep only L* and Nd.
        cur = []
        for c in r:
            k = _cat(c)
            if k[0] == "L" or k == "Nd":
                cur.append(c)
            elif cur:
                yield "".join(cur)
                cur = []
        if cur:
            yield "".join(cur)


def tokenize(text):
    out = []
    for r in _runs(text):
        for p in _split_camel(r):
            if len(p) < 2:
                continue
            p = p.lower()
            if p.isascii():
                if p.isdigit():
                    continue
            elif not any(_cat(c)[0] == "L" for c in p):
                continue
            out.append(p)
    return out

# ---------------------------------------------------------------- HTML → blocks

BLOCK = {"p", "div", "li", "ul", "ol", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6",
         "table", "tr", "td", "th", "thead", "tbody", "section", "article", "main", "blockquote",
         "br", "hr", "pre", "header", "footer", "summary", "details", "caption", "figure",
         "figcaption", "title", "body", "aside"}
VOID = {"br", "hr", "img", "meta", "link", "input", "area", "base", "col", "embed", "source",
        "track", "wbr", "param"}
SKIP_TAGS = {"script", "style", "head", "nav", "button", "noscript", "svg", "form", "select",
             "textarea"}
SKIP_CLASSES = {
    # PostgreSQL (DocBook)
    "navheader", "navfooter", "toc",
    # Python (Sphinx)
    "sphinxsidebar", "related", "footer", "sig", "headerlink", "highlight",
    # Node.js
    "api_metadata", "header-container", "picker",
    # rustdoc / mdBook
    "code-header", "rightside", "srclink", "since", "notable-traits", "test-arrow",
    "sidebar", "sidebar-elems", "menu-bar", "nav-wrapper", "nav-wide-wrapper",
    "search-container", "out-of-band", "item-decl", "docblock-short",
}
SKIP_IDS = {"gtoc", "column2", "toc", "sidebar", "menu-bar", "search-wrapper", "searchbar",
            "sidebar-toggle", "footer"}


class _Parser(html.parser.HTMLParser):
    def __init__(self, keep_pre):
        super().__init__(convert_charrefs=True)
        self.keep_pre = keep_pre
        self.stack = []  # (tag, skipping)
        self.nskip = 0
        self.blocks = []
        self.cur = []

    def _flush(self):
        if self.cur:
            s = "".join(self.cur).strip()
            if s:
                self.blocks.append(s)
            self.cur = []

    def handle_starttag(self, tag, attrs):
        if tag in BLOCK:
            self._flush()
        if tag in VOID:
            return
        skip = tag in SKIP_TAGS or (tag == "pre" and not self.keep_pre)
        if not skip:
            for k, v in attrs:
                if v is None:
                    continue
                if k == "class" and not SKIP_CLASSES.isdisjoint(v.split()):
                    skip = True
                elif k == "id" and v in SKIP_IDS:
                    skip = True
        self.stack.append((tag, skip))
        if skip:
            self.nskip += 1

    def handle_startendtag(self, tag, attrs):
        if tag in BLOCK:
            self._flush()

    def handle_endtag(self, tag):
        if tag in BLOCK:
            self._flush()
        # pop up to the matching open tag, if there is one
        for j in range(len(self.stack) - 1, -1, -1):
            if self.stack[j][0] == tag:
                for _, s in self.stack[j:]:
                    if s:
                        self.nskip -= 1
                del self.stack[j:]
                break

    def handle_data(self, data):
        if self.nskip == 0:
            self.cur.append(data)


def page_blocks(path, keep_pre):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        src = f.read()
    p = _Parser(keep_pre)
    p.feed(src)
    p.close()
    p._flush()
    out = []
    for b in p.blocks:
        t = tokenize(b)
        if t:
            out.append(" ".join(t))
    return out


def gloss_blocks(path):
    """WordNet data.POS: one block per synset, its gloss (definition and examples)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith(" "):  # licence header
                continue
            gloss = line.partition(" | ")[2]
            # The gloss alone: with the synset's words on the same line the
            # model would learn WordNet's senses, rare ones included
            # ("memory remembering ..."), which retrofitting then can't undo.
            t = tokenize(gloss)
            if t:
                out.append(" ".join(t))
    return out


_GO_DIRECTIVE = re.compile(r"^(go:|\+build|line |export |extern |cgo )")


def go_comment_blocks(path):
    """Comments of a Go file, one block per run of // lines or per /* */ comment.
    Generated files are skipped."""
    with open(path, encoding="utf-8", errors="replace") as f:
        src = f.read()
    if re.search(r"^// Code generated .* DO NOT EDIT\.$", src, re.M):
        return []
    blocks, cur = [], []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == '"' or c == "'":  # skip string and rune literals
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            i = j + 1
            continue
        if c == "`":
            j = src.find("`", i + 1)
            i = n if j < 0 else j + 1
            continue
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            text = src[i + 2:j]
            if not _GO_DIRECTIVE.match(text):
                cur.append(text)
            i = j  # the newline decides whether the run goes on
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j
            if cur:
                blocks.append(" ".join(cur))
                cur = []
            blocks.append(src[i + 2:j])
            i = j + 2
            continue
        if c == "\n":
            # a line with code or a blank line ends a run of // comments
            k = i + 1
            while k < n and src[k] in " \t":
                k += 1
            if not src.startswith("//", k) and cur:
                blocks.append(" ".join(cur))
                cur = []
        i += 1
    if cur:
        blocks.append(" ".join(cur))
    out = []
    for b in blocks:
        t = tokenize(b)
        if t:
            out.append(" ".join(t))
    return out


def _work(args):
    name, path, keep_pre = args
    if name == "wordnet":
        return gloss_blocks(path)
    if path.endswith(".go"):
        return go_comment_blocks(path)
    return page_blocks(path, keep_pre)


def files():
    for name, pkg, root, keep in CORPORA:
        if keep is None:  # WordNet
            for pos in ("noun", "verb", "adj", "adv"):
                yield name, f"{root}/data.{pos}"
            continue
        found = []
        for d, dirs, fs in os.walk(root):
            dirs.sort()
            for f in fs:
                if not f.endswith((".html", ".html.gz", ".go")):
                    continue
                full = os.path.join(d, f)
                rel = os.path.relpath(full, root)
                if keep(rel) and not os.path.islink(full):
                    found.append(full)
        found.sort()
        for full in found:
            yield name, full


def main():
    args = sys.argv[1:]
    keep_pre = "--keep-pre" in args
    args = [a for a in args if a != "--keep-pre"]
    if len(args) != 3:
        sys.exit(__doc__)
    out_path, stats_path, counts_path = args
    todo = list(files())
    seen = set()
    kept = []
    stats = {}
    doc_counts = Counter()  # counts in the documentation, WordNet glosses left out
    with Pool(os.cpu_count() or 1) as pool:
        for (name, _), blocks in zip(todo, pool.imap(_work, [(n, p, keep_pre) for n, p in todo],
                                                     chunksize=16)):
            st = stats.setdefault(name, {"files": 0, "blocks": 0, "dup_blocks": 0, "tokens": 0})
            st["files"] += 1
            for b in blocks:
                if b in seen:
                    st["dup_blocks"] += 1
                    continue
                seen.add(b)
                kept.append(b)
                toks = b.split(" ")
                st["blocks"] += 1
                st["tokens"] += len(toks)
                if name != "wordnet":
                    doc_counts.update(toks)
    # fastText's learning rate decays over the file: shuffle the blocks so
    # that no corpus is seen only at the end. Fixed seed: reproducible.
    random.Random(1).shuffle(kept)
    with open(out_path, "w", encoding="utf-8") as out:
        for b in kept:
            out.write(b)
            out.write("\n")
    with open(counts_path, "w", encoding="utf-8") as out:
        for w, c in sorted(doc_counts.items(), key=lambda x: (-x[1], x[0])):
            out.write(f"{w} {c}\n")
    stats["total"] = {k: sum(st[k] for st in stats.values())
                      for k in ("files", "blocks", "dup_blocks", "tokens")}
    for name, st in stats.items():
        print(f"{name}: {st}", file=sys.stderr)
    with open(stats_path, "w") as f:
        json.dump(stats, f, indent=1)


if __name__ == "__main__":
    main()
