"""Which tokenizer counts a model's tokens, and how sure we are: exact, estimate or none.

Unlike `resolve` beside it (which decides whether a model id is known at all, and finds its
price reference) and the tokenizer registry (how to build a tokenizer by name), this module only
answers "which registry tokenizer and chat format stand for model X".
The answer comes from a data file shipped in the package, `analysis/models/models.toml`:
rules of glob patterns over model ids, first match wins. Every answer carries its exactness
and the reason, and nothing falls back silently: a model no rule matches is "none", an
exact tokenizer that is not fetched yet says so with the fetch command (or, where its rule
lists proxies after it, counts with the proxy as an estimate that names that command), and an
estimate names its proxy. The words are `analysis.contract`'s (`TextExactness`).
"""

from __future__ import annotations

import fnmatch
import importlib.resources
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..contract import TEXT_EXACTNESS, TextExactness, text_exactness
from ..errors import BadInput, UnknownName
from ..tokenizers import CATALOGUE
from .families import FAMILIES
from ..tokenizers.registry import is_available

EXACTNESS = TEXT_EXACTNESS  # a model's text: exact, estimate or none (kept under this name)
_RULE_KEYS = {"match", "tokenizer", "exactness", "why", "format"}


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of models.toml."""

    match: tuple[str, ...]
    tokenizers: tuple[str, ...]  # exact: its tokenizer, then proxies while it is not fetched; estimate: proxies in order
    exactness: TextExactness
    why: str
    format: str | None = None  # the chat-format family (FAMILIES); None: not known for these models

    def matches(self, model_id: str) -> bool:
        key = model_id.lower()
        return any(fnmatch.fnmatchcase(key, pattern.lower()) for pattern in self.match)


@dataclass(frozen=True, slots=True)
class TokenizerChoice:
    """The tokenizer that stands for one model, and how far to trust its counts.

    Attributes:
        model: the model id asked about.
        tokenizer: registry name to count with, or None (exactness "none", or not fetched).
        exactness: "exact", "estimate" or "none".
        status: "ok", or why no count is possible ("not fetched: tokenprism vocab fetch llama3").
        note: one line for reports: the reason, and "estimate" for estimated rows.
        wanted: the tokenizer the rule names first (differs from `tokenizer` when a closer
            proxy is not fetched, or when an exact one is missing).
    """

    model: str
    tokenizer: str | None
    exactness: TextExactness
    status: str
    note: str
    wanted: str | None = None

    @property
    def usable(self) -> bool:
        return self.tokenizer is not None and self.status == "ok"

    def refusal(self, name: str) -> str:
        """Why model `name` cannot be counted with this choice: "... is counted with X, which is {status}"."""
        return f"model {name!r} is counted with {self.wanted!r}, which is {self.status}"

    @property
    def label(self) -> str:
        """Short form for tables: "o200k_base", "~o200k_base" (estimate) or "none"."""
        if self.exactness == "estimate" and self.tokenizer:
            return f"~{self.tokenizer}"
        return self.tokenizer or self.wanted or "none"


def _fail(where: str, problem: str) -> ValueError:
    return ValueError(f"models.toml {where}: {problem}")


def parse_rules(data: dict[str, Any]) -> list[Rule]:
    """Validate a parsed models.toml and return its rules in file order.

    Raises:
        ValueError: an unknown key, exactness or tokenizer name, or a rule whose tokenizer
            field does not fit its exactness (the message names the rule by number).
    """
    if data.get("version") != 1:
        raise _fail("header", f"version must be 1, got {data.get('version')!r}")
    rules = []
    for i, raw in enumerate(data.get("rule", []), start=1):
        where = f"rule #{i}"
        unknown = set(raw) - _RULE_KEYS
        if unknown:
            raise _fail(where, f"unknown keys {sorted(unknown)}; valid: {sorted(_RULE_KEYS)}")
        exactness = text_exactness(raw.get("exactness"))  # "approximate", the former word, reads as estimate
        if exactness is None:
            raise _fail(where, f"exactness must be one of {TEXT_EXACTNESS}, got {raw.get('exactness')!r}")
        match = raw.get("match")
        if not isinstance(match, list) or not match or not all(isinstance(m, str) and m for m in match):
            raise _fail(where, "match must be a non-empty list of glob patterns")
        tok = raw.get("tokenizer")
        names = (tok,) if isinstance(tok, str) else tuple(tok or ())
        if exactness == "exact" and not (isinstance(tok, str) or (isinstance(tok, list) and tok)):
            raise _fail(where, "an exact rule names its tokenizer (a string), or a list of it and then its proxies")
        if exactness == "estimate" and not (isinstance(tok, list) and tok):
            raise _fail(where, "an estimate rule lists its proxy tokenizers (a non-empty list)")
        if exactness == "none" and tok:
            raise _fail(where, "a rule with exactness none has no tokenizer")
        bad = [n for n in names if n not in CATALOGUE]
        if bad:
            raise _fail(where, f"unknown tokenizer {bad}; valid: {', '.join(CATALOGUE)}")
        if not raw.get("why"):
            raise _fail(where, "why (where the mapping comes from) is required")
        family = raw.get("format")
        if family is not None and family not in FAMILIES:
            raise _fail(where, f"unknown chat format {family!r}; valid: {', '.join(FAMILIES)}")
        rules.append(Rule(tuple(match), names, exactness, str(raw["why"]), family))
    return rules


def load_rules() -> list[Rule]:
    """The rules of the packaged models.toml: a new list on every call, of rules that cannot change.

    >>> load_rules()[0].tokenizers
    ('o200k_harmony',)
    """
    return list(_packaged_rules())


@lru_cache(maxsize=1)
def _packaged() -> dict[str, Any]:
    return tomllib.loads(importlib.resources.files("analysis.models").joinpath("models.toml").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _packaged_rules() -> tuple[Rule, ...]:
    # Read and validated once per process: the file is package data, and a Rule is frozen. The
    # dashboard prices every paste, and parsing the TOML each time held the GIL for it.
    return tuple(parse_rules(_packaged()))


def parse_known(data: dict[str, Any]) -> dict[str, str]:
    """{lower-case id: why} of the `[[known]]` tables: model ids accepted without a price entry.

    Raises:
        ValueError: a table without `ids` (a non-empty list of strings) or `why`, or another key.
    """
    out: dict[str, str] = {}
    for i, raw in enumerate(data.get("known", []), start=1):
        where = f"known #{i}"
        if set(raw) != {"ids", "why"}:
            raise _fail(where, f"a known table has exactly the keys ['ids', 'why'], got {sorted(raw)}")
        ids = raw["ids"]
        if not isinstance(ids, list) or not ids or not all(isinstance(x, str) and x for x in ids):
            raise _fail(where, "ids must be a non-empty list of model ids")
        out.update((x.lower(), str(raw["why"])) for x in ids)
    return out


@lru_cache(maxsize=1)
def known_ids() -> dict[str, str]:
    """The packaged `[[known]]` ids: open-weight families named without a host, e.g. "llama3".

    >>> "llama3" in known_ids()
    True
    """
    return parse_known(_packaged())


def _fetch_hint(name: str) -> str:
    return f"tokenprism vocab fetch {name}"


def choose(rule: Rule | None, model: str) -> TokenizerChoice:
    """Turn a matched rule (or no rule) into a usable choice, checking what is on this machine."""
    if rule is None:
        return TokenizerChoice(model, None, "none", "no tokenizer",
                               "no rule in models.toml matches this model: no token count (pass a tokenizer "
                               "in a --prices file, or --fallback-tokenizer NAME for an explicit estimate)")
    if rule.exactness == "none":
        return TokenizerChoice(model, None, "none", "no tokenizer", rule.why)
    first = rule.tokenizers[0]
    if rule.exactness == "exact":
        if is_available(first):
            return TokenizerChoice(model, first, "exact", "ok", rule.why, first)
        # A missing exact tokenizer is replaced only by the proxies its rule lists after it, and
        # then the count is an estimate that says which fetch makes it exact.
        for name in rule.tokenizers[1:]:
            if is_available(name):
                note = (f"estimate: {name} is a proxy because {first} is not fetched; `{_fetch_hint(first)}` "
                        f"makes this count exact ({rule.why})")
                return TokenizerChoice(model, name, "estimate", "ok", note, first)
        return TokenizerChoice(model, None, "exact", f"not fetched: {_fetch_hint(first)}",
                               f"{rule.why}; its vocabulary is not on this machine yet", first)
    for name in rule.tokenizers:
        if is_available(name):
            note = f"estimate: {rule.why}"
            if name != first:
                note += f"; counted with {name} because {first} is not fetched ({_fetch_hint(first)})"
            return TokenizerChoice(model, name, "estimate", "ok", note, first)
    return TokenizerChoice(model, None, "estimate", f"not fetched: {_fetch_hint(first)}",
                           f"estimate: {rule.why}; no proxy is on this machine", first)


def rule_for(names: tuple[str, ...], rules: list[Rule] | None = None) -> Rule | None:
    """The first rule matching the first name that any rule matches (default: the packaged rules).

    The one glob lookup of models.toml: `resolve` calls it with the typed id and then the canonical
    one; the price listing with each price's own id.

    >>> rule_for(("gpt-4o",)).tokenizers
    ('o200k_base',)
    """
    rules = load_rules() if rules is None else rules
    for name in names:
        for rule in rules:
            if rule.matches(name):
                return rule
    return None


def explicit_choice(model: str, tokenizer: str, exactness: TextExactness, why: str) -> TokenizerChoice:
    """A choice stated outright (a --prices file column, or --fallback-tokenizer), checked.

    Raises:
        UnknownName: `tokenizer` is not a registry name (the message lists the names).
        BadInput: `exactness` is not exact or estimate.
    """
    if tokenizer not in CATALOGUE:
        raise UnknownName("tokenizer", tokenizer, CATALOGUE,
                          message=f"unknown tokenizer {tokenizer!r} for model {model!r}; valid: {', '.join(CATALOGUE)}")
    if exactness not in ("exact", "estimate"):
        raise BadInput(f"exactness for model {model!r} must be exact or estimate, got {exactness!r}")
    if not is_available(tokenizer):
        return TokenizerChoice(model, None, exactness, f"not fetched: {_fetch_hint(tokenizer)}", why, tokenizer)
    note = why if exactness == "exact" else f"estimate: {why}"
    return TokenizerChoice(model, tokenizer, exactness, "ok", note, tokenizer)
