"""Write small GGUF files for tests: a header and key/value pairs (no tensors), plus optional padding.

Unlike the reader under test, this writer trusts its input; it can also write the damaged files
the reader must refuse (`raw` values are written as given).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

STRING, ARRAY, UINT32, INT32, FLOAT32, BOOL = 8, 9, 4, 5, 6, 7


def _string(s: str | bytes) -> bytes:
    data = s.encode("utf-8") if isinstance(s, str) else s
    return struct.pack("<Q", len(data)) + data


def _value(v: Any) -> tuple[int, bytes]:
    if isinstance(v, bool):
        return BOOL, struct.pack("<?", v)
    if isinstance(v, int):
        return UINT32, struct.pack("<I", v)
    if isinstance(v, float):
        return FLOAT32, struct.pack("<f", v)
    if isinstance(v, str):
        return STRING, _string(v)
    if isinstance(v, list):
        if all(isinstance(x, str) for x in v):
            return ARRAY, struct.pack("<IQ", STRING, len(v)) + b"".join(map(_string, v))
        if all(isinstance(x, float) for x in v):
            return ARRAY, struct.pack("<IQ", FLOAT32, len(v)) + struct.pack(f"<{len(v)}f", *v)
        return ARRAY, struct.pack("<IQ", INT32, len(v)) + struct.pack(f"<{len(v)}i", *v)
    raise TypeError(type(v))


def gguf_bytes(kv: dict[str, Any], *, version: int = 3, n_tensors: int = 0) -> bytes:
    out = [b"GGUF", struct.pack("<IQQ", version, n_tensors, len(kv))]
    for key, value in kv.items():
        vtype, data = _value(value)
        out += [_string(key), struct.pack("<I", vtype), data]
    return b"".join(out)


def write_gguf(path: Path, kv: dict[str, Any], *, pad_to: int = 0, **kw: Any) -> Path:
    """`kv` as a GGUF file at `path`; `pad_to` extends it with a hole (a sparse file) to that size."""
    data = gguf_bytes(kv, **kw)
    with open(path, "wb") as f:
        f.write(data)
        if pad_to > len(data):
            f.truncate(pad_to)
    return path


def tiny_bpe(pre: str = "gpt-2") -> dict[str, Any]:
    """A byte-level BPE vocabulary: GPT-2's 256 byte characters, a few merges and one control token."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, n = {b: chr(b) for b in keep}, 0
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + n)
            n += 1
    tokens = [chars[b] for b in range(256)]
    merges = ["h e", "l l", "he ll", "hell o", "Ġ w", "o r", "Ġw or", "Ġwor l", "Ġworl d"]
    for m in merges:
        tokens.append(m.replace(" ", ""))
    tokens.append("<|end|>")
    return {"general.architecture": "gpt2", "tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": pre,
            "tokenizer.ggml.tokens": tokens, "tokenizer.ggml.merges": merges,
            "tokenizer.ggml.token_type": [1] * (len(tokens) - 1) + [3],
            "tokenizer.ggml.eos_token_id": len(tokens) - 1,
            "tokenizer.chat_template": "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"}
