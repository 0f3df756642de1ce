"""The one model resolver: a model id as a user types it -> what the product knows about that model.

Unlike `rules` (which says what tokenizer and chat format a *known* id is counted with, by glob),
this module decides whether an id is known at all, and finds it in the price data. An id is
known when genai-prices knows it (bare, provider-prefixed, or one of its aliases: a dated
snapshot, a "-latest"), or when models.toml lists it as an open-weight family ("llama3"). Anything
else is refused with the closest names: a glob that happens to match ("gpt-4oo" against "gpt-4o*")
never makes a typo into a model.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..contract import TextExactness
from ..errors import BadInput, UnknownName, check_name, closest
from ..tokenizers import CATALOGUE
from . import price_index
from .price_index import Hit
from .rules import Rule, TokenizerChoice, choose, known_ids, load_rules, rule_for



@dataclass(frozen=True, slots=True)
class ModelSpec:
    """What the product knows about one model.

    Attributes:
        id: the id as given (stripped), e.g. "openai:gpt-4o-2024-08-06".
        model: the canonical id: genai-prices' id ("gpt-4o"), or the known family ("llama3").
        provider: the provider of the price data ("openai"), None when not priced or ambiguous.
        tokenizer: the registry tokenizer the rule names first, None when none applies.
        tokenizers: every tokenizer the rule allows, in preference order (proxies after the first).
        exactness: how the *text* is counted: "exact" (the model's own vocabulary), "estimate"
            (a proxy vocabulary) or "none" (no text tokenizer applies).
        reason: where that comes from, in one sentence.
        format: the chat-format family (see `families.FAMILIES`), None when not known.
        price_ref: "provider:model" for `analysis.cost.genai.get_price`, None when there is no
            price or several providers price it (see `price_note`).
        price_note: why `price_ref` is None, or "" when it is set.
        context_window: the model's context window in tokens, where the price data has it.
    """

    id: str
    model: str
    provider: str | None
    tokenizer: str | None
    tokenizers: tuple[str, ...]
    exactness: TextExactness
    reason: str
    format: str | None
    price_ref: str | None
    price_note: str = ""
    context_window: int | None = None
    rule: Rule | None = None

    def choice(self) -> TokenizerChoice:
        """The tokenizer to count with on this machine (a proxy when the first is not fetched)."""
        return choose(self.rule, self.model)

    def tokenizer_label(self, tokenizer: str) -> str:
        """`tokenizer` as every face shows it for this model: "~o200k_base" when it is this model's
        proxy vocabulary (its counts are estimates), else the name itself."""
        choice = self.choice()
        return choice.label if choice.tokenizer == tokenizer else tokenizer

    def usable_choice(self) -> TokenizerChoice:
        """`choice()`, refused with `BadInput` (and the fix) when this model's text cannot be counted here."""
        if self.tokenizer is None:
            raise BadInput(f"model {self.id!r} has no text tokenizer, so its text cannot be counted: {self.reason}")
        choice = self.choice()
        if not choice.usable or choice.tokenizer is None:
            raise BadInput(choice.refusal(self.id))
        return choice


def _snapshot() -> Any:
    # genai-prices through its one door, which imports it on first use: `import analysis` must not
    # load 1.6 MB of prices.
    from . import genai

    return genai.snapshot()


@lru_cache(maxsize=1)
def _provider_ids() -> frozenset[str]:
    return price_index.provider_ids(lambda: frozenset(p.id.lower() for p in _snapshot().providers))


@lru_cache(maxsize=1)
def known_names() -> tuple[str, ...]:
    """Every id `resolve` accepts by name (bare model ids and the known families), for suggestions."""
    names = {m.id for p in _snapshot().providers for m in p.models}
    return tuple(sorted(names | set(known_ids())))


def _split(model_id: str) -> tuple[str | None, str]:
    head, sep, tail = model_id.partition(":")
    if sep and tail and head.lower() in _provider_ids():
        return head.lower(), tail
    return None, model_id


def _find_priced(provider_id: str | None, ref: str) -> tuple[list[Hit], bool]:
    """([(provider id, model id, context window)], matched by genai-prices' own inference) for an
    id; [] when unknown. Kept per genai-prices release (`price_index`)."""
    return price_index.lookup(provider_id, ref, lambda: _search(provider_id, ref), keep_empty=ref.lower() in known_ids())


def _search(provider_id: str | None, ref: str) -> tuple[list[Hit], bool]:
    from . import genai

    try:
        provider, model = genai.find(ref, provider_id)
        return [(provider.id, model.id, model.context_window)], True
    except LookupError:
        pass
    # Models that only third-party hosts serve are not inferred from the name alone: look them up
    # across the hosts, by id or by each model's own match rule (as `tokenprism models` lists them).
    key = ref.lower()
    hits = [(p.id, m.id, m.context_window) for p in _snapshot().providers if provider_id is None or p.id == provider_id
            for m in p.models if m.id.lower() == key or m.is_match(ref)]
    return [h for h in hits if h[1].lower() == key] or hits, False


def resolve(model_id: str, *, rules: list[Rule] | None = None) -> ModelSpec:
    """The `ModelSpec` of a model id.

    Args:
        model_id: "gpt-4o", "openai:gpt-4o", "claude-sonnet-4-5-20250929" (an alias genai-prices
            knows), "groq:llama-3.3-70b-versatile", or a known family such as "llama3".
        rules: the model -> tokenizer rules (default: the packaged models.toml).

    Raises:
        UnknownName: the id is neither in the price data nor a known family; the message names
            the closest ids and how to list them.
        BadInput: an empty id.

    >>> spec = resolve("openai:gpt-4o-2024-08-06")
    >>> (spec.model, spec.tokenizer, spec.exactness, spec.format, spec.price_ref)
    ('gpt-4o', 'o200k_base', 'exact', 'openai', 'openai:gpt-4o')
    >>> resolve("gpt-4oo")
    Traceback (most recent call last):
    ...
    analysis.errors.UnknownName: unknown model 'gpt-4oo'; did you mean gpt-4o, gpt-4, ft:gpt-4o? (list models ...
    """
    check_name("model", model_id)  # before the cache and the closest-name search
    if rules is None:
        return _resolve_packaged(model_id.strip())
    return _resolve(model_id.strip(), rules)


@lru_cache(maxsize=4096)
def _resolve_packaged(model_id: str) -> ModelSpec:
    # A ModelSpec is frozen and the packaged rules cannot change, so one answer per id per process.
    return _resolve(model_id, load_rules())


def family_message(name: str, valid: Iterable[str]) -> str:
    """For a family name such as "claude" (the start of several ids), the refusal that names the
    newest model of each line (sonnet, opus, haiku...); "" when `name` is not one.

    >>> family_message("claude", ["claude-sonnet-4-5", "claude-sonnet-5", "claude-opus-4-1", "claude-3-opus", "gpt-4o"])
    "'claude' names a family of 4 models, not one: pick one, e.g. claude-opus-4-1, claude-sonnet-5 (`tokenprism models claude` lists them all)"
    """
    import re

    members = [v for v in valid if v.lower().startswith(name.lower() + "-")]
    if len(members) < 2:
        return ""
    newest: dict[str, tuple] = {}
    for m in members:
        rest = m[len(name) + 1:]
        line, _, version = rest.partition("-")
        if not line.isalpha() or not re.fullmatch(r"[0-9]+(-[0-9]+)*", version):
            continue  # "latest", "-fast", dotted twins: the newest dashed version of each line only
        key = tuple(int(x) for x in version.split("-"))
        if line not in newest or key > newest[line][0]:
            newest[line] = (key, m)
    picks = sorted(m for _, m in newest.values())[:6]
    example = f": pick one, e.g. {', '.join(picks)}" if picks else ""
    return (f"{name!r} names a family of {len(members)} models, not one{example} "
            f"(`tokenprism models {name}` lists them all)")


def _resolve(model_id: str, rules: list[Rule]) -> ModelSpec:
    if not model_id:
        raise BadInput("the model id is empty; pass one such as gpt-4o or anthropic:claude-sonnet-4-5")
    provider_id, ref = _split(model_id)
    hits, inferred = _find_priced(provider_id, ref)
    known = known_ids()
    if not hits and ref.lower() not in known:
        # Within a named provider, suggest that provider's ids, prefixed as the user wrote them.
        valid = ([f"{provider_id}:{m.id}" for p in _snapshot().providers if p.id == provider_id for m in p.models]
                 if provider_id else known_names())
        hint = "(list models with `tokenprism models SUBSTRING`; name a host as PROVIDER:MODEL)"
        if model_id in CATALOGUE:
            hint = (f"({model_id!r} is a tokenizer, not a model: count a text with it using "
                    f"`tokenprism compare -t {model_id}`, or name a model that uses it)")
        elif (family := family_message(model_id, valid)):
            raise UnknownName("model", model_id, valid, message=family)
        raise UnknownName("model", model_id, valid, hint=hint)
    provider = price_ref = None
    price_note, window = "", None
    if not hits:
        model = ref
        price_note = f"{ref!r} is {known[ref.lower()]}"
    else:
        model = hits[0][1]
        if len({p for p, _, _ in hits}) == 1:
            provider = hits[0][0]
            price_ref = f"{provider}:{model}"
            window = hits[0][2]
        else:
            choices = ", ".join(f"{p}:{m}" for p, m, _ in hits[:8])
            price_note = f"several providers price {ref!r}; name one as PROVIDER:MODEL ({choices}{' ...' if len(hits) > 8 else ''})"
        if not inferred and len(hits) == 1 and hits[0][1].lower() != ref.lower():
            price_note = f"{ref!r} is priced as {price_ref} (its match rule in genai-prices)"
    # The typed id first: it is often more specific than the price data's ("-v0.3", a date).
    rule = rule_for((ref, model), rules)
    if rule is None:
        exactness: TextExactness = "none"
        reason = "no rule in models.toml maps this model to a tokenizer: no token count"
        names: tuple[str, ...] = ()
    else:
        exactness, reason, names = rule.exactness, rule.why, rule.tokenizers
    return ModelSpec(model_id, model, provider, names[0] if names else None, names, exactness, reason,
                     rule.format if rule else None, price_ref, price_note, window, rule)


def closest_models(model_id: str, n: int = 5) -> list[str]:
    """The known ids closest to `model_id` (for faces that list suggestions apart from the message)."""
    return closest(model_id, known_names(), n=n)
