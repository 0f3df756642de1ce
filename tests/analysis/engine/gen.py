"""Generated corpora for the engine tests and benchmark: mixed text from the built-in corpora.

Lines of the built-in prose, code and multilingual samples are drawn with a fixed seed, so a
corpus of any size has the built-in mix of scripts and registers and is the same on every
run. Files are written atomically, like every file the project writes.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from analysis.atomic import atomic_write
from analysis.corpora import load_builtin


def _lines() -> list[str]:
    frame = load_builtin(["prose", "code", "multilingual"])
    return [line + "\n" for text in frame["text"] for line in text.splitlines() if line.strip()]


def text_folder(folder: Path, total_bytes: int, *, file_bytes: int = 1 << 20, seed: int = 12) -> Path:
    """`folder` filled with .txt files of about `file_bytes` each, about `total_bytes` in all."""
    rng = random.Random(seed)
    lines = _lines()
    folder.mkdir(parents=True, exist_ok=True)
    n_files = max(1, total_bytes // file_bytes)
    for i in range(n_files):
        parts, size = [], 0
        while size < min(file_bytes, total_bytes):
            line = rng.choice(lines)
            parts.append(line)
            size += len(line.encode("utf-8"))
        with atomic_write(folder / f"part-{i:05d}.txt") as f:
            f.write("".join(parts))
    return folder


def jsonl_rows(path: Path, n_rows: int, *, max_chars: int = 120, seed: int = 7) -> Path:
    """`n_rows` JSON lines {"text": ..., "category": ...} of short texts (one line, cut at `max_chars`)."""
    rng = random.Random(seed)
    lines = [line.strip()[:max_chars] for line in _lines()]
    cats = ("chat", "support", "search")
    with atomic_write(path) as f:
        for i in range(n_rows):
            f.write(json.dumps({"text": rng.choice(lines), "category": cats[i % 3]}, ensure_ascii=False) + "\n")
    return path
