"""A seeded training corpus of any size that behaves like real text, for the training bench at scale.

Unlike the prose and code corpora of `bench_ownbpe` (real text, a few megabytes, repeated when
short), this one is drawn: repeating a small text gives a fixed set of distinct pre-tokens,
while in real text the set keeps growing with the size (Heaps' law), and the merge loop's cost
follows the distinct pre-tokens, not the bytes. So:

* words are drawn by a Zipf-Mandelbrot law (weight of rank r: 1 / (r + 2.7)) over `wordfreq`'s
  ranked word lists of twelve languages (Latin, Cyrillic, Greek, Arabic and CJK scripts), one
  language per document, English half of them;
* a few words are new: compounds of two drawn words (as German writes them, or as identifiers
  and hashtags do), numbers of one to seven digits, and capitalised names, so distinct
  pre-tokens keep growing however large the corpus;
* sentences get capitals and punctuation, paragraphs blank lines; CJK sentences have no spaces,
  and Chinese and Japanese punctuation;
* one document in ten is code: Python-like functions and classes whose identifiers are drawn
  from the English list, with indentation, literals and comments;
* documents are separated by `<|endoftext|>`, as in TinyStories and the CS336 assignment.

The corpus is a sequence of blocks of about a megabyte, each drawn from its own seed, on every
core; a smaller corpus is a prefix of a larger one (ending at a block boundary) and all sizes
are written in one pass. Files go to a data folder (never to
the repository): `$TOKENPRISM_BENCH_DATA`, else the system's temporary folder. A file is kept
with its sha256 and its generator version beside it, and reused when both match.

    python -m tests.benchmarks.scale_corpus 10 50      # write the 10 and 50 MB corpora, print their sha256
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from bisect import bisect
from functools import lru_cache
import tempfile
from pathlib import Path

import numpy as np

SEED = 61
SPECIAL = "<|endoftext|>"
MB = 1_000_000
# Bump when the drawing changes: files of another version are written again.
VERSION = 2
# Language -> (share of the prose documents, words taken from its list). English is half, as in
# most web corpora; the rest keep each script present at every size.
LANGUAGES = {
    "en": (0.50, 200_000), "de": (0.07, 100_000), "fr": (0.07, 100_000), "es": (0.07, 100_000),
    "it": (0.04, 60_000), "pt": (0.04, 60_000), "pl": (0.03, 60_000), "ru": (0.06, 100_000),
    "el": (0.02, 40_000), "ar": (0.03, 60_000), "zh": (0.04, 60_000), "ja": (0.03, 60_000),
}
CODE_SHARE = 0.10
NO_SPACE = {"zh", "ja"}  # words written without spaces between them
# Per word: the chance it is new (a compound of two drawn words, a number, or a name).
P_COMPOUND, P_NUMBER, P_NAME = 0.010, 0.012, 0.008


def data_dir() -> Path:
    root = Path(os.environ.get("TOKENPRISM_BENCH_DATA") or Path(tempfile.gettempdir()) / "tokenprism-bench-data")
    root.mkdir(parents=True, exist_ok=True)
    return root


class _Lexicon:
    """One language's ranked words and the cumulative Zipf-Mandelbrot weights to draw them by."""

    def __init__(self, lang: str, n: int) -> None:
        import wordfreq

        words = [w for w in wordfreq.top_n_list(lang, n, wordlist="large" if lang in _LARGE else "best") if w.strip()]
        if len(words) < 1000:
            raise RuntimeError(f"wordfreq {wordfreq.__version__ if hasattr(wordfreq, '__version__') else ''} has only "
                               f"{len(words)} words for {lang!r}")
        self.words = np.array(words, dtype=object)
        weights = 1.0 / (np.arange(len(words)) + 2.7)
        # float32: half the memory to search, and still apart at the rarest word (about 4e-7)
        self.cdf = (np.cumsum(weights) / weights.sum()).astype(np.float32)


    def ranks(self, rng: np.random.Generator, n: int) -> np.ndarray:
        return np.minimum(np.searchsorted(self.cdf, rng.random(n)), len(self.words) - 1)


class _Drawer:
    """Words of one lexicon for one stream, drawn 65,536 at a time (a search per call cost more than the words)."""

    def __init__(self, lexicon: _Lexicon, rng: np.random.Generator) -> None:
        self.lexicon, self.rng = lexicon, rng
        self.buffer = lexicon.words[:0]
        self.used = 0

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        if self.used + n > len(self.buffer):
            self.buffer = self.lexicon.words[self.lexicon.ranks(self.rng, max(n, 1 << 16))]
            self.used = 0
        self.used += n
        return self.buffer[self.used - n : self.used]


_LARGE = {"en", "de", "fr", "es", "it", "pt", "pl", "ru", "ar", "zh", "ja"}  # "el" has only the small list
_END = {"zh": "。", "ja": "。"}
_COMMA = {"zh": "，", "ja": "、", "ar": "،"}


@lru_cache(maxsize=1)
def _lexicons() -> dict[str, _Lexicon]:
    """Every language's lexicon, read once per process (a few seconds)."""
    return {lang: _Lexicon(lang, n) for lang, (_, n) in LANGUAGES.items()}


class CorpusStream:
    """Documents, seeded: `next_document()` returns one document's text (without the separator)."""

    def __init__(self, seed: int | list[int] = SEED) -> None:
        self.rng = np.random.default_rng(seed)
        self.lexicons = {lang: _Drawer(lex, self.rng) for lang, lex in _lexicons().items()}
        self.langs = list(LANGUAGES)
        shares = np.array([LANGUAGES[lang][0] for lang in self.langs])
        self.lang_cdf = np.cumsum(shares / shares.sum()).tolist()

    def next_document(self) -> str:
        rng = self.rng
        if rng.random() < CODE_SHARE:
            return self._code()
        lang = self.langs[min(bisect(self.lang_cdf, rng.random()), len(self.langs) - 1)]
        # Document length in words: log-normal, median ~300 words (about 2 KB of English)
        n_words = int(min(8000, max(20, rng.lognormal(5.7, 0.8))))
        return self._prose(lang, n_words)

    # -- prose --

    def _new_words(self, lex: _Drawer, words: list, lang: str) -> None:
        """Replace a few drawn words by words no list holds: compounds, numbers, names."""
        rng = self.rng
        n = len(words)
        kinds = rng.random(n)
        for i in np.flatnonzero(kinds < P_COMPOUND + P_NUMBER + P_NAME):
            k = kinds[i]
            if k < P_COMPOUND:
                words[i] = words[i] + lex.draw(rng, 1)[0]
            elif k < P_COMPOUND + P_NUMBER:
                words[i] = str(int(rng.integers(0, 10 ** int(rng.integers(1, 8)))))
            elif lang not in NO_SPACE:
                a, b = lex.draw(rng, 2)
                words[i] = (a[:1].upper() + a[1:4] + b[-3:]) if len(a) > 1 else a.upper() + b

    def _prose(self, lang: str, n_words: int) -> str:
        rng = self.rng
        lex = self.lexicons[lang]
        words = list(lex.draw(rng, n_words))
        self._new_words(lex, words, lang)
        sep = "" if lang in NO_SPACE else " "
        end, comma = _END.get(lang, "."), _COMMA.get(lang, ",")
        # One word in twelve takes a comma; sentences of 4-21 words; their marks and the paragraph
        # breaks after them, all drawn at once for the document.
        for i in np.flatnonzero(rng.random(n_words) < 1 / 12):
            words[i] += comma
        bounds = np.cumsum(rng.integers(4, 22, size=n_words // 4 + 1))
        bounds = [0, *bounds[bounds < n_words].tolist(), n_words]
        marks = rng.random(len(bounds)).tolist()
        breaks = (rng.random(len(bounds)) < 0.18).tolist()
        out: list[str] = []
        paragraph: list[str] = []
        for k in range(len(bounds) - 1):
            sentence = words[bounds[k] : bounds[k + 1]]
            if sentence[-1].endswith(comma):
                sentence[-1] = sentence[-1][: -len(comma)]
            mark = marks[k]
            if sep:
                first = sentence[0]
                sentence[0] = first[:1].upper() + first[1:]
                stop = "." if mark < 0.85 else "?" if mark < 0.93 else "!"
                text = sep.join(sentence) + stop
                paragraph.append('"' + text + '"' if mark > 0.97 else text)  # now and then a quotation
            else:
                paragraph.append(sep.join(sentence) + end)
            if breaks[k]:
                out.append(sep.join(paragraph))
                paragraph = []
        if paragraph:
            out.append(sep.join(paragraph))
        return "\n\n".join(out)

    # -- code --

    def _ident(self, parts: int) -> str:
        words = [w for w in self.lexicons["en"].draw(self.rng, parts) if w.isascii() and w.isalpha()] or ["value"]
        if self.rng.random() < 0.3:  # camelCase
            return words[0].lower() + "".join(w.capitalize() for w in words[1:])
        return "_".join(w.lower() for w in words)

    def _code(self) -> str:
        rng = self.rng
        lines: list[str] = []
        if rng.random() < 0.5:
            lines.append(f"import {self._ident(1)}")
            lines.append(f"from {self._ident(1)}.{self._ident(1)} import {self._ident(2)}, {self._ident(1)}")
            lines.append("")
        for _ in range(int(rng.integers(1, 6))):
            indent = ""
            if rng.random() < 0.3:
                lines.append(f"class {''.join(w.capitalize() for w in self._ident(2).split('_'))}:")
                indent = "    "
            args = ", ".join(self._ident(int(rng.integers(1, 3))) for _ in range(int(rng.integers(0, 4))))
            lines.append(f"{indent}def {self._ident(int(rng.integers(1, 4)))}({'self, ' if indent else ''}{args}):")
            body = indent + "    "
            words = " ".join(self.lexicons["en"].draw(rng, int(rng.integers(3, 12))))
            lines.append(f'{body}"""{words[:1].upper()}{words[1:]}."""')
            for _ in range(int(rng.integers(2, 12))):
                roll = rng.random()
                name = self._ident(int(rng.integers(1, 3)))
                if roll < 0.3:
                    lines.append(f"{body}{name} = {self._ident(1)}({self._ident(1)}, {int(rng.integers(0, 4096))})")
                elif roll < 0.5:
                    lines.append(f"{body}if {name} is None or len({name}) > {int(rng.integers(0, 100))}:")
                    lines.append(f"{body}    raise ValueError(f\"bad {name}: {{{name}!r}}\")")
                elif roll < 0.65:
                    lines.append(f"{body}for {self._ident(1)} in {name}:")
                    lines.append(f"{body}    {self._ident(1)}.append({self._ident(1)} * {rng.random():.3f})")
                elif roll < 0.8:
                    comment = " ".join(self.lexicons["en"].draw(rng, int(rng.integers(3, 10))))
                    lines.append(f"{body}# {comment}")
                else:
                    lines.append(f"{body}{name}[\"{self._ident(1)}\"] = {self._ident(2)}.get({name}, {{}})")
            lines.append(f"{body}return {self._ident(int(rng.integers(1, 3)))}")
            lines.append("")
        return "\n".join(lines)


def _meta_path(path: Path) -> Path:
    return path.with_suffix(".json")


def corpus_paths(sizes_mb: list[int], seed: int = SEED) -> dict[int, dict]:
    """The corpora of `sizes_mb` megabytes (10**6 bytes, cut at the first document boundary past
    the size), written in one pass where missing or stale. Returns size -> {path, bytes, sha256}."""
    folder = data_dir()
    wanted = sorted(set(sizes_mb))
    found: dict[int, dict] = {}
    for size in wanted:
        path = folder / f"scale-corpus-s{seed}-v{VERSION}-{size}mb.txt"
        meta = _meta_path(path)
        if path.exists() and meta.exists():
            info = json.loads(meta.read_text())
            if info.get("bytes") == path.stat().st_size and info.get("version") == VERSION:
                found[size] = {**info, "path": str(path)}
    missing = [s for s in wanted if s not in found]
    if missing:
        found.update(_write(folder, missing, seed))
    return {s: found[s] for s in sizes_mb}


BLOCK_BYTES = MB


def block(seed: int, k: int) -> bytes:
    """Block `k` of the corpus: whole documents, each followed by the special token, drawn from
    their own seed `(seed, k)` until they pass BLOCK_BYTES. Blocks are independent, so they are
    drawn on every core, and a corpus is always its blocks in order."""
    stream = CorpusStream([seed, k])
    docs: list[bytes] = []
    size = 0
    while size < BLOCK_BYTES:
        docs.append((stream.next_document() + SPECIAL).encode("utf-8"))
        size += len(docs[-1])
    return b"".join(docs)


def _write(folder: Path, sizes_mb: list[int], seed: int) -> dict[int, dict]:
    """Write every size in one pass over the blocks; each file is a prefix of the next, ending at
    the first block boundary past its size."""
    import multiprocessing
    from functools import partial
    from importlib.metadata import version

    import wordfreq  # noqa: F401  (fail here, before any file is opened)

    targets = sorted(sizes_mb)
    paths = {s: folder / f"scale-corpus-s{seed}-v{VERSION}-{s}mb.txt" for s in targets}
    tmps = {s: p.with_suffix(f".tmp{os.getpid()}") for s, p in paths.items()}
    files = {s: open(tmps[s], "wb") for s in targets}
    hashes = {s: hashlib.sha256() for s in targets}
    written = 0
    open_sizes = list(targets)
    n_blocks = -(-max(targets) * MB // BLOCK_BYTES) + 1  # blocks pass BLOCK_BYTES: never short
    _lexicons()  # read before the workers fork: they share it
    try:
        with multiprocessing.get_context("fork").Pool(os.cpu_count() or 1) as pool:
            for data in pool.imap(partial(block, seed), range(n_blocks)):
                written += len(data)
                for s in list(open_sizes):
                    files[s].write(data)
                    hashes[s].update(data)
                    if written >= s * MB:
                        files[s].close()
                        open_sizes.remove(s)
                if not open_sizes:
                    pool.terminate()
                    break
    finally:
        for f in files.values():
            f.close()
    out = {}
    for s in targets:
        os.replace(tmps[s], paths[s])  # whole files only: a run stopped midway leaves no corpus
        info = {"bytes": paths[s].stat().st_size, "sha256": hashes[s].hexdigest(), "seed": seed, "version": VERSION,
                "wordfreq": version("wordfreq")}
        tmp_meta = _meta_path(paths[s]).with_suffix(f".jtmp{os.getpid()}")
        tmp_meta.write_text(json.dumps(info, indent=2) + "\n")
        os.replace(tmp_meta, _meta_path(paths[s]))
        out[s] = {**info, "path": str(paths[s])}
    return out


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:]] or [10]
    for size, info in corpus_paths(sizes).items():
        print(f"{size} MB: {info['path']} {info['bytes']:,} bytes sha256 {info['sha256']}")
