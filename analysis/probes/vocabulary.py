"""The vocabulary audit: what a tokenizer's vocabulary holds, read from the vocabulary itself.

Unlike the other probes, which feed chosen texts to tokenizers, this one walks every id of one
vocabulary: it takes the token's bytes, decodes them, encodes that text again and sorts the id
by what comes back. The categories follow Land & Bartolo 2024, *Fishing for Magikarp* (their
per-model reports, `cohere-ai/magikarp`, results/reports_mini), whose counts need no weights;
`tests/analysis/probes/test_vocabulary.py` holds our counts against theirs, and docs/probes.md
says where a definition differs.

Every id falls in exactly one category (`CATEGORIES`):

- ``no_token``: an id inside the id space that names no token (cl100k's gap before its specials);
- ``special``: a special or reserved token the tokenizer declares (`Tokenizer.special_tokens`);
- ``single_byte``: a token of one byte;
- ``utf8_fragment``: a token of several bytes that are not valid UTF-8 on their own;
- ``unreachable_single`` / ``unreachable_multi``: a token of several bytes, valid UTF-8, whose text
  encodes to one *other* token, or to several tokens, never to itself;
- ``unreachable_marker``: an unreachable token whose text is shaped like a control marker (``<unk>``,
  ``</s>``, ``[PAD]``: bracketed, with an ASCII letter inside); Magikarp counts these among its
  special tokens, not its unreachable ones, and so does `unreachable` here;
- ``ok``: every other token (its text encodes back to it).

The audit of a vocabulary is kept in the data dir (`cache/vocab-audit/`), keyed by a digest of
the vocabulary's bytes, ids and name; a kept copy is checked (its version, its digest and the
sha256 of its body) before it is trusted, and rebuilt otherwise.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..render import bytes_label
from ..tokenizers.base import Tokenizer
from . import kept

if TYPE_CHECKING:  # pandas only for the tables: `tokenprism vocab --help` lists the categories without it
    import pandas as pd

CATEGORIES = ("ok", "special", "single_byte", "utf8_fragment", "unreachable_single", "unreachable_multi",
              "unreachable_marker", "no_token")

# The counts' keys, in the order a table shows them (the JSON uses exactly these).
COUNT_KEYS = ("n_vocab", "no_token", "single_byte", "special", "utf8_fragments", "unreachable", "unreachable_single",
              "unreachable_multi", "unreachable_marker", "space_initial_share", "longest_token", "longest_token_bytes",
              "longest_whitespace_token", "longest_whitespace_bytes", "digit_tokens", "longest_digit_token",
              "whole_words")

# `--tokens CATEGORY`: which ids each listing shows.
LISTINGS: dict[str, str] = {
    "unreachable": "tokens whose text never encodes back to them, with what it encodes to",
    "fragments": "tokens of several bytes that are not valid UTF-8 on their own",
    "special": "the special and reserved tokens the tokenizer declares",
    "whitespace": "tokens that are all whitespace",
    "digits": "tokens that are all ASCII digits",
}

FORMAT_VERSION = 1


@dataclass(frozen=True)
class VocabAudit:
    """One vocabulary's audit: its counts (`row`) and the ids of each category but ``ok``.

    Attributes:
        name: the tokenizer's name.
        row: the counts, keyed by `COUNT_KEYS`.
        ids: category -> its ids, ascending (no ``ok`` key: those are the rest).
        reencoded: unreachable id -> the ids its text encodes to.
        whitespace: ids of the all-whitespace tokens; digits: ids of the all-digit tokens.
    """

    name: str
    row: dict[str, Any]
    ids: dict[str, list[int]]
    reencoded: dict[int, list[int]] = field(default_factory=dict)
    whitespace: list[int] = field(default_factory=list)
    digits: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "row": self.row, "ids": self.ids,
                "reencoded": {str(k): v for k, v in self.reencoded.items()},
                "whitespace": self.whitespace, "digits": self.digits}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> "VocabAudit":
        return cls(doc["name"], doc["row"], {k: list(v) for k, v in doc["ids"].items()},
                   {int(k): list(v) for k, v in doc["reencoded"].items()}, list(doc["whitespace"]), list(doc["digits"]))


def _token_bytes(tok: Tokenizer, n_vocab: int, specials: set[int]) -> list[bytes | None]:
    """Every id's bytes (None: an id with no token). Specials are left None too: they are not walked."""
    out: list[bytes | None] = [None] * n_vocab
    get = tok.token_bytes
    for i in range(n_vocab):
        if i in specials:
            continue
        try:
            out[i] = get(i)
        except (KeyError, ValueError, IndexError):  # an id assigned to no token (BadInput is a ValueError)
            pass
    return out


def vocabulary_digest(tok: Tokenizer, data: Sequence[bytes | None]) -> str:
    """A sha256 naming this vocabulary: its name, normal form, specials and every token's bytes.

    Two tokenizers share a digest only when they hold the same bytes at the same ids, declare the
    same specials and bear the same name (the name stands for the split rule, which the bytes do
    not show).
    """
    h = hashlib.sha256(b"tokenprism vocab-audit v%d\n" % FORMAT_VERSION)
    h.update(f"{tok.name}\n{tok.normalize}\n{len(data)}\n".encode())
    h.update(json.dumps(sorted(tok.special_tokens.items(), key=lambda kv: kv[1]), ensure_ascii=False).encode())
    for b in data:
        if b is None:
            h.update(b"\xff\xff\xff\xff")
        else:
            h.update(len(b).to_bytes(4, "little") + b)
    return h.hexdigest()


def is_marker(text: str) -> bool:
    """True for text shaped like a control marker: at least 3 characters, opened by ``[`` or ``<``,
    closed by ``]`` or ``>``, with an ASCII letter inside, and not a byte name such as ``<0x0A>``
    (the shape Land & Bartolo's reports treat as special).

    >>> is_marker("</s>"), is_marker("<0x0A>"), is_marker("[]]"), is_marker("<br>")
    (True, False, False, True)
    """
    return (len(text) >= 3 and text[0] in "[<" and text[-1] in "]>" and not text.startswith("<0x")
            and any(c.isascii() and c.isalpha() for c in text))


def _is_whitespace(text: str) -> bool:
    return bool(text) and text.isspace()


def _is_digits(text: str) -> bool:
    return bool(text) and text.isascii() and text.isdigit()


def compute_audit(tok: Tokenizer, *, words: Iterable[str] = (), data: Sequence[bytes | None] | None = None,
                  progress: Callable[[int], None] | None = None) -> VocabAudit:
    """Audit `tok`'s vocabulary (see the module docstring for the categories).

    Args:
        tok: the tokenizer.
        words: a word list; `whole_words` counts the tokens whose text, less one leading space,
            is one of these words.
        data: every id's bytes, when the caller has them already (`_token_bytes`).
        progress: called with a number of ids done, as the walk advances.

    >>> from analysis import load_tokenizer
    >>> a = compute_audit(load_tokenizer("gpt2"))
    >>> a.row["single_byte"], a.row["utf8_fragments"], a.row["unreachable"]
    (256, 216, 0)
    """
    n_vocab = tok.n_vocab
    specials = set(tok.special_tokens.values())
    if data is None:
        data = _token_bytes(tok, n_vocab, specials)
    if progress:
        progress(n_vocab // 2)
    ids: dict[str, list[int]] = {c: [] for c in CATEGORIES if c != "ok"}
    texts: dict[int, str] = {}
    for i, b in enumerate(data):
        if i in specials:
            ids["special"].append(i)
        elif b is None:
            ids["no_token"].append(i)
        elif len(b) == 1:
            ids["single_byte"].append(i)
            texts[i] = b.decode("latin-1")
        else:
            try:
                texts[i] = b.decode("utf-8")
            except UnicodeDecodeError:
                ids["utf8_fragment"].append(i)
    multi = [i for i, t in texts.items() if len(data[i] or b"") > 1]
    encoded = tok.encode_batch([texts[i] for i in multi])
    reencoded: dict[int, list[int]] = {}
    for i, got in zip(multi, encoded):
        if got != [i]:
            reencoded[i] = list(got)
            kind = "marker" if is_marker(texts[i]) else "single" if len(got) == 1 else "multi"
            ids[f"unreachable_{kind}"].append(i)
    if progress:
        progress(n_vocab - n_vocab // 2)
    for v in ids.values():
        v.sort()

    # the shape of what is left: spaces, whitespace runs, digits, words
    with_bytes = [b for i, b in enumerate(data) if b is not None and i not in specials]
    space_initial = sum(1 for b in with_bytes if b[:1] == b" ")
    valid = {i: t for i, t in texts.items()}
    whitespace = sorted(i for i, t in valid.items() if _is_whitespace(t))
    digits = sorted(i for i, t in valid.items() if _is_digits(t))
    longest = max(((len(b), -i) for i, b in enumerate(data) if b is not None and i not in specials), default=(0, 0))
    longest_ws = max(((len(data[i] or b""), -i) for i in whitespace), default=(0, 0))
    wordset = set(words)
    whole = sum(1 for t in valid.values() if (t[1:] if t.startswith(" ") else t) in wordset) if wordset else None
    row: dict[str, Any] = {
        "n_vocab": n_vocab,
        "no_token": len(ids["no_token"]),
        "single_byte": len(ids["single_byte"]),
        "special": len(ids["special"]),
        "utf8_fragments": len(ids["utf8_fragment"]),
        "unreachable": len(ids["unreachable_single"]) + len(ids["unreachable_multi"]),
        "unreachable_single": len(ids["unreachable_single"]),
        "unreachable_multi": len(ids["unreachable_multi"]),
        "unreachable_marker": len(ids["unreachable_marker"]),
        "space_initial_share": round(space_initial / len(with_bytes), 4) if with_bytes else float("nan"),
        "longest_token": bytes_label(data[-longest[1]] or b"") if longest[0] else "",
        "longest_token_bytes": longest[0],
        "longest_whitespace_token": bytes_label(data[-longest_ws[1]] or b"") if longest_ws[0] else "",
        "longest_whitespace_bytes": longest_ws[0],
        "digit_tokens": len(digits),
        "longest_digit_token": max((len(valid[i]) for i in digits), default=0),
        "whole_words": whole,
    }
    return VocabAudit(tok.name, row, ids, reencoded, whitespace, digits)


# -- the kept copy (`kept`) ---------------------------------------------------------------------
def audit_vocabulary(tok: Tokenizer, *, words: Sequence[str] | None = None,
                     progress: Callable[[int], None] | None = None) -> VocabAudit:
    """`compute_audit(tok)`, through the copy kept in the data dir for this vocabulary.

    Args:
        tok: the tokenizer.
        words: the word list for `whole_words` (default: `words.common_words("en")`).
        progress: called with a number of ids done.
    """
    from .words import common_words

    words = list(common_words("en")) if words is None else list(words)
    specials = set(tok.special_tokens.values())
    data = _token_bytes(tok, tok.n_vocab, specials)
    h = hashlib.sha256(vocabulary_digest(tok, data).encode())
    h.update("\n".join(words).encode())
    digest = h.hexdigest()
    if not kept.enabled():
        return compute_audit(tok, words=words, data=data, progress=progress)
    path = kept.kept_path("vocab-audit", tok.name, digest)
    doc = kept.read_kept(path, digest)
    if doc is not None:
        try:
            audit = VocabAudit.from_json(doc)
        except (KeyError, TypeError, ValueError, AttributeError):
            audit = None
        if audit is not None:
            if progress:
                progress(tok.n_vocab)
            return audit
    audit = compute_audit(tok, words=words, data=data, progress=progress)
    kept.keep(path, digest, audit.to_json())
    return audit


# -- tables ------------------------------------------------------------------------------------------
def audit_table(audits: Sequence[VocabAudit]) -> pd.DataFrame:
    """One row per tokenizer: `tokenizer` then `COUNT_KEYS`."""
    import pandas as pd

    return pd.DataFrame([{"tokenizer": a.name, **{k: a.row[k] for k in COUNT_KEYS}} for a in audits])


def audit_headline(table: pd.DataFrame) -> str:
    """One sentence from `audit_table`'s frame: what the vocabularies hold that never appears as text."""
    if table.empty:
        return "No vocabulary was audited."
    worst = table.sort_values("unreachable", ascending=False).iloc[0]
    frag = table.sort_values("utf8_fragments", ascending=False).iloc[0]
    parts = [f"{worst['tokenizer']} has the most unreachable tokens ({worst['unreachable']:,}: their text never "
             f"encodes back to them)" if worst["unreachable"] else "every multi-byte token encodes back to itself",
             f"{'the same' if frag['tokenizer'] == worst['tokenizer'] else frag['tokenizer']} the most UTF-8 "
             f"fragments ({frag['utf8_fragments']:,})"]
    if len(table) == 1:
        r = table.iloc[0]
        return (f"{r['tokenizer']}: {r['n_vocab']:,} ids, {r['utf8_fragments']:,} UTF-8 fragments, {r['unreachable']:,} "
                f"unreachable tokens, {r['special']:,} specials; {r['space_initial_share']:.1%} of its tokens begin "
                f"with a space.")
    return f"Of {len(table)} vocabularies, {parts[0]}, and {parts[1]}."


def token_listing(tok: Tokenizer, audit: VocabAudit, category: str) -> pd.DataFrame:
    """The tokens of one `LISTINGS` category: id, the bytes drawn as `compare --show` draws them,
    their length, and for unreachable tokens the category and the ids and drawing they encode to."""
    import pandas as pd

    if category not in LISTINGS:
        from ..errors import UnknownName

        raise UnknownName("token category", category, LISTINGS,
                          message=f"unknown token category {category!r}; choose from: {', '.join(LISTINGS)}")
    if category == "special":
        names = {i: s for s, i in tok.special_tokens.items()}
        return pd.DataFrame([{"id": i, "token": names.get(i, ""), "n_bytes": len(names.get(i, "").encode())}
                             for i in audit.ids["special"]], columns=["id", "token", "n_bytes"])
    if category == "unreachable":
        markers = set(audit.ids["unreachable_marker"])
        rows = []
        for i in sorted(audit.reencoded):
            got = audit.reencoded[i]
            data = tok.token_bytes(i)
            kind = "one other token" if len(got) == 1 else f"{len(got)} tokens"
            rows.append({"id": i, "token": bytes_label(data), "n_bytes": len(data),
                         "kind": f"marker, {kind}" if i in markers else kind,
                         "encodes_to": " ".join(map(str, got)),
                         "drawn": "|".join(bytes_label(tok.token_bytes(j)) for j in got)})
        return pd.DataFrame(rows, columns=["id", "token", "n_bytes", "kind", "encodes_to", "drawn"])
    ids = {"fragments": audit.ids["utf8_fragment"], "whitespace": audit.whitespace, "digits": audit.digits}[category]
    return pd.DataFrame([{"id": i, "token": bytes_label(tok.token_bytes(i)), "n_bytes": len(tok.token_bytes(i))}
                         for i in ids], columns=["id", "token", "n_bytes"])
