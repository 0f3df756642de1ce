"""How `keep_tokens` cuts random texts: how often the N-th token ends inside a character, how often a
cut on a character boundary keeps exactly N tokens, and whether any longer prefix would still fit.

Run: python -m tests.reliability.prefix_probe [CUTS_PER_TOKENIZER]   (figures in docs/ci-gate.md)
"""

from __future__ import annotations

import random
import sys

from analysis.tokenizers import load_tokenizer
from analysis.tokenizers.prefix import keep_tokens

# Multibyte characters, emoji with modifiers and joiners, combining marks, and runs of whitespace.
ALPHABET = list("aé中文字한국👍🏽👨\u200d👩e\u0301 \n\t\r.0'sSxyz123!?-_=") + ["  ", "\n\n"]
TOKENIZERS = ["o200k_base", "cl100k_base", "gpt2", "deepseek-v4", "ownbpe"]


def probe(name: str, cuts: int, rng: random.Random) -> str:
    tok = load_tokenizer(name)
    done = mid = exact = longer = 0
    while done < cuts:
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 30)))
        total = tok.count(text)
        if total < 2:
            continue
        n = rng.randint(1, total - 1)
        kept = keep_tokens(text, tok, n)
        done += 1
        mid += kept.mid_character
        if not kept.mid_character:
            exact += kept.n_tokens == n
            # a longer prefix that still fits would mean the cut gave away text it could keep
            longer += any(tok.count(text[:k]) <= n for k in range(len(kept.text) + 1, len(text) + 1))
    boundary = done - mid
    return (f"{name}: {done} cuts; {mid} inside a character; {exact} of {boundary} on a boundary keep exactly N; "
            f"{longer} of {boundary} have a longer prefix that fits")


if __name__ == "__main__":
    rng = random.Random(1)
    for name in TOKENIZERS:
        print(probe(name, int(sys.argv[1]) if len(sys.argv) > 1 else 20000, rng), flush=True)
