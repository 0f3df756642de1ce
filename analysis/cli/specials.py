"""The warning `compare`, `count` and `encode` print on stderr when a text holds a special string.

Unlike the commands themselves, which count such a string as text (as every face does), this
names it and its id as a special in the chosen tokenizer (`probes.special_strings`), so a user who
pasted a document quoting ``<|endoftext|>`` knows the model's own API would read it otherwise.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence


def warn_special_strings(texts: Iterable[str], toks: Sequence) -> None:
    """One line on stderr per tokenizer and special string found in any of `texts` (each line once)."""
    from ..probes.special_strings import special_warnings

    seen: set[str] = set()
    for text in texts:
        for line in special_warnings(text, toks):
            if line not in seen:
                seen.add(line)
                print(line, file=sys.stderr)


def request_texts(request) -> list[str]:
    """The system prompt and every message's text of a `requests.Request`."""
    return [t for t in (request.system or "", *(m.text for m in request.messages)) if t]


def model_tokenizers(specs: Sequence) -> list:
    """The tokenizers `models.ModelSpec`s count with on this machine (each once); a spec given as a
    string (`gguf:PATH`, a file's own tokenizer) is that tokenizer's name."""
    from ..tokenizers import load_tokenizer

    names = dict.fromkeys(s if isinstance(s, str) else s.choice().tokenizer
                          for s in specs if isinstance(s, str) or s.tokenizer is not None)
    return [load_tokenizer(n) for n in names if n]
