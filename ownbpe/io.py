"""Files: ownbpe's own model format, GPT-2's vocab/merges files and tiktoken rank files.

Unlike `tokenizer` (which encodes) this module only reads and writes. Nothing here is pickle:
every format is line-based text, and every parse error names the file, the line and the problem.

The model format (version 1) is meant to be read by people::

    ownbpe v1
    pattern "'(?:[sdmt]|ll|ve|re)| ?\\\\p{L}++| ..."
    rule pairs
    tokens 258
    0 "\\u0000"
    ...
    256 " t"
    257 <c3>
    merges 2
    " " "t"
    ...
    specials 1
    258 "<|endoftext|>"
    end

A token is written as a JSON string when its bytes are valid UTF-8 (non-printable characters
escaped), else as `<hex>`. `rule` is `pairs` (merges listed, GPT-2 style) or `ranked` (tiktoken
ranks: ids are ranks and there is no merges section).
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Iterable

FORMAT_HEADER = "ownbpe v1"

_decoder = json.JSONDecoder()


@lru_cache(maxsize=1)
def gpt2_byte_to_char() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character table (space is 'Ġ', newline is 'Ċ').

    Printable Latin-1 bytes map to themselves; the 68 others map to U+0100 onwards, in order.

    >>> gpt2_byte_to_char()[ord(" ")], gpt2_byte_to_char()[ord("a")]
    ('Ġ', 'a')
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table = {b: chr(b) for b in keep}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def gpt2_decode_token(text: str) -> bytes:
    """The bytes of a token written in GPT-2 characters.

    >>> gpt2_decode_token("Ġthe")
    b' the'
    """
    inverse = _gpt2_char_to_byte()
    try:
        return bytes(inverse[c] for c in text)
    except KeyError as err:
        raise ValueError(f"{text!r} is not written in GPT-2 byte characters: {err.args[0]!r} has no byte") from None


@lru_cache(maxsize=1)
def _gpt2_char_to_byte() -> dict[str, int]:
    return {c: b for b, c in gpt2_byte_to_char().items()}


def read_gpt2_files(
    vocab_path: str | Path, merges_path: str | Path
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]], dict[str, int]]:
    """Read GPT-2's `encoder.json`/`vocab.json` and `vocab.bpe`/`merges.txt` (GPT-2 characters).

    Returns:
        `(vocab, merges, specials)`: id -> bytes for the ordinary tokens, merges in order, and
        the entries that are not valid GPT-2 byte strings but look like `<|...|>` special tokens.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = Path(folder, "vocab.json").write_text('{"a": 0, "b": 1, "ab": 2, "<|endoftext|>": 3}')
    ...     _ = Path(folder, "merges.txt").write_text("#version: 0.2\\na b\\n")
    ...     read_gpt2_files(Path(folder, "vocab.json"), Path(folder, "merges.txt"))
    ({0: b'a', 1: b'b', 2: b'ab'}, [(b'a', b'b')], {'<|endoftext|>': 3})
    """
    vocab_path, merges_path = Path(vocab_path), Path(merges_path)
    try:
        encoder = json.loads(_read_text(vocab_path))
    except json.JSONDecodeError as err:
        raise ValueError(f"{vocab_path}, line {err.lineno}: not valid JSON ({err.msg})") from err
    if not isinstance(encoder, dict):
        raise ValueError(f"{vocab_path}: expected a JSON object {{token: id}}, got {type(encoder).__name__}")
    vocab: dict[int, bytes] = {}
    specials: dict[str, int] = {}
    for text, i in encoder.items():
        if text.startswith("<|") and text.endswith("|>"):
            specials[text] = int(i)
        else:
            vocab[int(i)] = gpt2_decode_token(text)
    merges = []
    for n, line in enumerate(_read_text(merges_path).split("\n"), start=1):
        line = line.rstrip("\r")
        if not line or (n == 1 and line.startswith("#version")):
            continue
        fields = line.split(" ")
        if len(fields) != 2:
            raise ValueError(f"{merges_path}, line {n}: expected two tokens separated by one space, got {line!r}")
        try:
            merges.append((gpt2_decode_token(fields[0]), gpt2_decode_token(fields[1])))
        except ValueError as err:
            raise ValueError(f"{merges_path}, line {n}: {err}") from None
    return vocab, merges, specials


def read_tiktoken_ranks(path: str | Path) -> dict[bytes, int]:
    """Read a tiktoken rank file (`base64-token rank` per line; `.gz` is decompressed).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = Path(folder, "tiny.tiktoken").write_bytes(b"YQ== 0\\nYg== 1\\nYWI= 2\\n")
    ...     read_tiktoken_ranks(Path(folder, "tiny.tiktoken"))
    {b'a': 0, b'b': 1, b'ab': 2}
    """
    path = Path(path)
    data = _read_bytes(path)
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return parse_tiktoken_ranks(data, where=str(path))


def parse_tiktoken_ranks(data: bytes, *, where: str = "ranks") -> dict[bytes, int]:
    """Parse the bytes of a tiktoken rank file, checking every line.

    Raises:
        ValueError: naming `where` and the 1-based line that does not parse, a rank used twice,
            or an empty file.

    >>> parse_tiktoken_ranks(b"YQ== 0\\nYg== 0\\n", where="x.tiktoken")
    Traceback (most recent call last):
    ...
    ValueError: x.tiktoken, line 2: rank 0 already used on line 1
    """
    fast = _bulk_ranks(data)
    if fast is not None:
        return fast
    # Something is off: read line by line to name the line.
    ranks: dict[bytes, int] = {}
    seen: dict[int, int] = {}
    for lineno, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        try:
            if len(parts) != 2:
                raise ValueError(f"expected 2 fields, found {len(parts)}")
            token = base64.b64decode(parts[0], validate=True)
            rank = int(parts[1])
        except (ValueError, binascii.Error) as e:
            raise ValueError(f"{where}, line {lineno}: not a 'base64-token rank' line ({e}): {line[:80]!r}") from None
        if rank in seen:
            raise ValueError(f"{where}, line {lineno}: rank {rank} already used on line {seen[rank]}")
        seen[rank] = lineno
        ranks[token] = rank
    if not ranks:
        raise ValueError(f"{where}: no ranks found (empty vocabulary file)")
    return ranks


def _bulk_ranks(data: bytes) -> dict[bytes, int] | None:
    """A well-formed rank file parsed in bulk (faster than tiktoken's own loader), or None.

    Well-formed: one "token rank" pair per line, no blank lines, strict base64, distinct
    non-negative ranks. Splitting the whole file at once and decoding in one comprehension is what
    makes it fast; anything unusual returns None and the line-by-line parser names the problem.
    """
    fields = data.split()
    n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    if not fields or len(fields) != 2 * n_lines:
        return None
    try:
        tokens = [binascii.a2b_base64(t, strict_mode=True) for t in fields[0::2]]
        ranks = list(map(int, fields[1::2]))
    except (ValueError, binascii.Error):
        return None
    if len(set(ranks)) != len(ranks) or min(ranks) < 0:
        return None
    return dict(zip(tokens, ranks))


def token_literal(token: bytes) -> str:
    """How the model format writes a token: a JSON string if valid UTF-8, else `<hex>`.

    >>> token_literal(b" the"), token_literal(b"\\xc3")
    ('" the"', '<c3>')
    """
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return f"<{token.hex()}>"
    out = json.dumps(text, ensure_ascii=False)
    if not out.isprintable():
        # Keep one record per line whatever the editor: escape line separators and friends.
        out = "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in out)
    return out


def parse_literal(line: str, pos: int) -> tuple[bytes, int]:
    """Parse one token literal of `line` starting at `pos`; return `(bytes, end)`.

    >>> parse_literal('" a" <c3>', 0)
    (b' a', 4)
    """
    if line.startswith('"', pos):
        try:
            text, end = _decoder.raw_decode(line, pos)
        except json.JSONDecodeError as err:
            raise ValueError(f"bad JSON string at column {pos + 1} ({err.msg})") from None
        try:
            return text.encode("utf-8"), end
        except UnicodeEncodeError:  # a lone surrogate escape such as "\ud800"
            raise ValueError(f"string at column {pos + 1} is not encodable as UTF-8") from None
    if line.startswith("<", pos):
        end = line.find(">", pos)
        if end < 0:
            raise ValueError(f"unterminated <hex> token at column {pos + 1}")
        try:
            return bytes.fromhex(line[pos + 1 : end]), end + 1
        except ValueError:
            raise ValueError(f"bad hex in token at column {pos + 1}") from None
    raise ValueError(f"expected a token (\"text\" or <hex>) at column {pos + 1}")


def write_model(
    path: str | Path,
    *,
    pattern: str,
    rule: str,
    vocab: dict[int, bytes],
    merges: Iterable[tuple[bytes, bytes]],
    specials: dict[str, int],
) -> None:
    """Write a model in the format described in the module docstring (atomically)."""
    path = Path(path)
    lines = [FORMAT_HEADER, f"pattern {json.dumps(pattern)}", f"rule {rule}", f"tokens {len(vocab)}"]
    lines += [f"{i} {token_literal(vocab[i])}" for i in sorted(vocab)]
    if rule == "pairs":
        merges = list(merges)
        lines.append(f"merges {len(merges)}")
        lines += [f"{token_literal(a)} {token_literal(b)}" for a, b in merges]
    lines.append(f"specials {len(specials)}")
    lines += [f"{i} {json.dumps(s, ensure_ascii=False)}" for s, i in sorted(specials.items(), key=lambda kv: kv[1])]
    lines.append("end")
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(lines) + "\n")
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(path)  # a crash never leaves half a model under the real name
    finally:
        tmp.unlink(missing_ok=True)  # after a failure (full disk, Ctrl-C) no .tmp stays behind


def read_model(path: str | Path) -> dict:
    """Read a model file; returns the keyword arguments `write_model` was given.

    Raises:
        FileNotFoundError: no such file.
        ValueError: the file is not an ownbpe model or is corrupt; the message names the line.
    """
    path = Path(path)
    lines = _read_text(path).split("\n")
    state = {"n": 0}

    def fail(problem: str) -> ValueError:
        n = state["n"]
        shown = lines[n - 1][:80] if 0 < n <= len(lines) else ""
        return ValueError(f"{path}, line {n}: {problem}: {shown!r}")

    def next_line() -> str:
        if state["n"] >= len(lines) or (state["n"] == len(lines) - 1 and lines[-1] == ""):
            state["n"] = len(lines) + (lines[-1] != "")  # the line that is missing
            raise fail("unexpected end of file (the file is truncated)")
        state["n"] += 1
        return lines[state["n"] - 1]

    def keyword(name: str) -> str:
        line = next_line()
        key, _, rest = line.partition(" ")
        if key != name:
            raise fail(f"expected '{name} ...'")
        return rest

    def count(name: str) -> int:
        rest = keyword(name)
        if not rest.isdigit():
            raise fail(f"expected '{name} <count>'")
        return int(rest)

    header = next_line()
    if header != FORMAT_HEADER:
        if header.startswith("ownbpe v"):
            raise fail(f"unsupported format version (this ownbpe reads '{FORMAT_HEADER}'); upgrade ownbpe")
        raise fail(f"not an ownbpe model (the first line must be '{FORMAT_HEADER}')")
    try:
        pattern = json.loads(keyword("pattern"))
    except json.JSONDecodeError:
        raise fail("the pattern must be a JSON string") from None
    if not isinstance(pattern, str):
        raise fail("the pattern must be a JSON string")
    rule = keyword("rule")
    if rule not in ("pairs", "ranked"):
        raise fail("rule must be 'pairs' or 'ranked'")
    vocab: dict[int, bytes] = {}
    for _ in range(count("tokens")):
        line = next_line()
        id_text, _, literal = line.partition(" ")
        if not id_text.isdigit():
            raise fail("expected '<id> <token>'")
        try:
            token, end = parse_literal(literal, 0)
        except ValueError as err:
            raise fail(str(err)) from None
        if end != len(literal):
            raise fail("unexpected text after the token")
        if int(id_text) in vocab:
            raise fail(f"duplicate token id {id_text}")
        vocab[int(id_text)] = token
    merges: list[tuple[bytes, bytes]] = []
    if rule == "pairs":
        for _ in range(count("merges")):
            line = next_line()
            try:
                left, end = parse_literal(line, 0)
                if not line.startswith(" ", end):
                    raise ValueError(f"expected one space after the first token at column {end + 1}")
                right, end2 = parse_literal(line, end + 1)
            except ValueError as err:
                raise fail(str(err)) from None
            if end2 != len(line):
                raise fail("unexpected text after the second token")
            merges.append((left, right))
    specials: dict[str, int] = {}
    for _ in range(count("specials")):
        line = next_line()
        id_text, _, literal = line.partition(" ")
        try:
            text = json.loads(literal) if id_text.isdigit() else None
        except json.JSONDecodeError:
            text = None
        if not isinstance(text, str):
            raise fail('expected \'<id> "special token"\'')
        specials[text] = int(id_text)
    if next_line() != "end":
        raise fail("expected 'end' (the counts above do not match the lines)")
    for k in range(state["n"], len(lines)):
        if lines[k].strip():
            state["n"] = k + 1
            raise fail("unexpected text after 'end'")
    return {"pattern": pattern, "rule": rule, "vocab": vocab, "merges": merges, "specials": specials}


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"no such file: {str(path)!r}") from None
    except IsADirectoryError:
        raise IsADirectoryError(f"{str(path)!r} is a directory; give a file") from None


def _read_text(path: Path) -> str:
    data = _read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(
            f"{path}: invalid UTF-8 at byte offset {err.start} ({data[err.start:err.start + 4]!r}); "
            "the file must be UTF-8 text"
        ) from err
