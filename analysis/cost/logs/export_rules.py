"""What each usage field of an export means: the rules of `export_rules.toml`, read and applied.

Unlike `shapes` (a request log's wrapper around a provider's usage object, read by genai-prices'
own extractors) and `exports` (files, containers and rows), this module only knows fields: one
`Rule` per export shape says which field holds each part of a billed response and whether the
input and output fields hold the cache and reasoning parts inside them. `parts_of` turns one row's
fields into the disjoint parts of `cost.usage.LoggedBill` (uncached input, cache read, 5-minute and
1-hour cache writes, visible output, reasoning, media), and says in words whatever it had to decide.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from importlib import resources
from typing import Any

from ...errors import BadInput, shown
from ..usage import MAX_ROW_TOKENS

__all__ = ["PART_FIELDS", "Parts", "Rule", "field_value", "parts_of", "rules"]

# the token parts a rule may name; media parts are genai-prices usage keys of their own
PART_FIELDS = ("input", "cache_read", "cache_write", "cache_write_5m", "cache_write_1h", "output", "reasoning",
               "input_audio", "output_audio", "total")
MEDIA = {"input_audio": "input_audio_tokens", "output_audio": "output_audio_tokens"}
_MEANINGS = {"input": ("whole", "uncached"), "output": ("whole", "visible")}


@dataclass(frozen=True)
class Rule:
    """One shape's meaning of its fields (see `export_rules.toml`)."""

    shape: str
    title: str
    kind: str
    input: str
    output: str
    source: str
    checked: str
    why: str
    fields: dict[str, tuple[str, ...]]
    fallback: str | None = None
    total: str | None = None
    steps: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)  # each path split at "/", once

    def __post_init__(self) -> None:
        self.steps.update({k: tuple(tuple(p.split("/")) for p in v) for k, v in self.fields.items()})

    def value(self, row: Any, name: str) -> Any:
        """The row's value of the field `name` (`field_value` over its paths), or None."""
        return _walk(row, self.steps.get(name, ()))

    @property
    def aggregate(self) -> bool:
        return self.kind == "aggregate"


@dataclass(frozen=True, slots=True)
class Parts:
    """One row's billed parts, disjoint (tokens), and what reading them decided, in words."""

    input: int = 0
    cache_read: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    output: int = 0
    reasoning: int | None = None
    media: tuple[tuple[str, int], ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def prompt(self) -> int:
        """The whole prompt: uncached + cache read + cache writes (media is inside the uncached input)."""
        return self.input + self.cache_read + self.cache_write_5m + self.cache_write_1h

    @property
    def billed_output(self) -> int:
        return self.output + (self.reasoning or 0)

    @property
    def tokens(self) -> int:
        return self.prompt + self.billed_output


@functools.cache
def rules() -> dict[str, Rule]:
    """Every shape's rule, read once from `export_rules.toml` and checked.

    >>> r = rules()["otel"]
    >>> (r.input, r.output, r.fields["cache_read"][0])
    ('whole', 'whole', 'gen_ai.usage.cache_read.input_tokens')
    """
    text = resources.files(__package__).joinpath("export_rules.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    out: dict[str, Rule] = {}
    for shape, table in data["shape"].items():
        fields = {k: tuple(v) if isinstance(v, list) else (v,) for k, v in table.get("fields", {}).items()}
        rule = Rule(shape=shape, title=table["title"], kind=table["kind"], input=table["input"],
                    output=table["output"], source=table["source"], checked=table["checked"], why=table["why"],
                    fields=fields, fallback=table.get("fallback"), total=table.get("total"))
        for key, allowed in _MEANINGS.items():
            if getattr(rule, key) not in allowed:
                raise ValueError(f"export_rules.toml: shape {shape}: {key} must be one of {allowed}")
        if rule.kind not in ("request", "aggregate"):
            raise ValueError(f"export_rules.toml: shape {shape}: kind must be request or aggregate")
        out[shape] = rule
    return out


def field_value(row: Any, paths: tuple[str, ...]) -> Any:
    """The value of the first of `paths` present in `row` ("a/b": key b inside key a), or None.

    >>> field_value({"metadata": {"usage_object": {"prompt_tokens": 5}}}, ("x", "metadata/usage_object/prompt_tokens"))
    5
    """
    return _walk(row, (tuple(path.split("/")) for path in paths))


def _walk(row: Any, paths: Iterable[tuple[str, ...]]) -> Any:
    for steps in paths:
        node = row
        for step in steps:
            node = node.get(step) if isinstance(node, dict) else None
            if node is None:
                break
        if node is not None:
            return node
    return None


def _count(row: Any, rule: Rule, part: str) -> int | None:
    """A token count of `part` in `row`: an integer (or its text, as CSV and OTLP JSON write it), or None."""
    if part not in rule.steps:
        return None
    value = rule.value(row, part)
    if value is None or value == "":
        return None
    paths = rule.fields[part]
    if isinstance(value, str):
        text = value.strip()
        # ASCII digits only, bounded ("²".isdigit() is true and int("²") raises; int() refuses 4,300 digits)
        number = Decimal(text) if _NUMBER_TEXT.fullmatch(text) else None
        value = int(number) if number is not None and number == number.to_integral_value() else text
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ROW_TOKENS:
        got = shown(value if isinstance(value, str) else _size(value))
        raise BadInput(f"{rule.shape}: {part} ({'/'.join(paths[:1])}) must be a non-negative whole number of tokens, "
                       f"at most {MAX_ROW_TOKENS:,}, got {got}")
    return value


# a number as CSV and OTLP JSON write one: "1200", "1200.0", "1.2e3" (ASCII, bounded); whole ones are taken
_NUMBER_TEXT = re.compile(r"[0-9]{1,18}(?:\.[0-9]{0,9})?(?:[eE][+-]?[0-9]{1,2})?", re.ASCII)


def _size(value: Any) -> str:
    """A value for a message: an int of thousands of digits has no repr (Python's 4,300-digit limit)."""
    return f"an integer of {value.bit_length():,} bits" if isinstance(value, int) and value.bit_length() > 128 else repr(value)


def parts_of(row: Any, rule: Rule) -> Parts | None:
    """The disjoint parts of one row by `rule`, or None when the row holds no token count at all.

    Raises:
        BadInput: a count that is not a whole number, or parts that contradict each other (more
            reasoning than output, more cache than a whole input with no fallback).

    >>> otel = rules()["otel"]
    >>> p = parts_of({"gen_ai.usage.input_tokens": 12000, "gen_ai.usage.cache_read.input_tokens": 10000,
    ...               "gen_ai.usage.output_tokens": 400}, otel)
    >>> (p.input, p.cache_read, p.output)
    (2000, 10000, 400)
    """
    got = {part: _count(row, rule, part) for part in PART_FIELDS}
    if all(v is None for v in got.values()):
        return None
    notes: list[str] = []
    read = got["cache_read"] or 0
    w5, w1 = got["cache_write_5m"], got["cache_write_1h"]
    if w5 is None and w1 is None:
        write = got["cache_write"] or 0
        w5, w1 = write, 0
        if write:
            notes.append("cache writes without a lifetime are priced as 5-minute writes")
    else:
        w5, w1 = w5 or 0, w1 or 0
        if got["cache_write"] and got["cache_write"] > w5 + w1:  # a total beside a partial split
            w5 += got["cache_write"] - w5 - w1
    cached = read + w5 + w1
    total_in = got["input"] or 0
    meaning = rule.input
    if meaning == "whole" and cached > total_in:
        if rule.fallback != "uncached":
            raise BadInput(f"{rule.shape}: {cached:,} cache tokens cannot be inside an input of {total_in:,}: the row "
                           "contradicts itself")
        meaning = "uncached"
        notes.append(f"its cache counts ({cached:,}) exceed its input ({total_in:,}), so the input was read as "
                     "uncached, beside them")
    if meaning == "uncached" and rule.total and got["total"] is not None and cached:
        out_sum = (got["output"] or 0) + (got["reasoning"] or 0 if rule.output == "visible" else 0)
        if got["total"] == total_in + out_sum and got["total"] != total_in + cached + out_sum:
            meaning = "whole"  # its total says the input held the cache parts (a double count, Langfuse #10592)
            notes.append("its total equals input + output, so its input already held the cache parts: "
                         "they are taken out once, not added")
    uncached = total_in - cached if meaning == "whole" else total_in
    if uncached < 0:
        raise BadInput(f"{rule.shape}: {cached:,} cache tokens cannot be inside an input of {total_in:,}")
    out = got["output"] or 0
    reasoning = got["reasoning"]
    if rule.output == "whole" and reasoning:
        if reasoning > out:
            raise BadInput(f"{rule.shape}: {reasoning:,} reasoning tokens cannot be inside an output of {out:,}")
        out -= reasoning
    media = tuple((MEDIA[k], n) for k in MEDIA if (n := got[k]))
    if media and rule.input == "uncached":  # disjoint keys: the audio sits beside the input, bill it inside
        uncached += sum(n for k, n in media if k.startswith("input"))
        out += sum(n for k, n in media if k.startswith("output"))
    return Parts(uncached, read, w5, w1, out, reasoning, media, tuple(notes))
