"""Prompt caching and reasoning by each provider's rule: which tokens of a sequence of requests are
read from the cache or written to it, and which models bill reasoning.

Unlike `usage` (what a logged response *was* billed for), this module estimates what a request
*would* be billed for on another model, from the request's own tokens. The rules are data
(``bill_rules.toml``: one row per provider rule, with its source, the day it was checked and
whether it is documented or an estimate); the code is one small function per rule *kind*:

* ``prefix`` (OpenAI): the longest prefix seen before, alive, of at least ``minimum`` tokens, in
  ``step``-token increments; no write premium;
* ``breakpoints`` (Anthropic): only prefixes that end at the request's ``cache_control``
  breakpoints, each of at least ``minimum`` tokens; a miss writes (5 minutes, or 1 hour);
* ``implicit`` (Gemini 2.5+) and ``disk`` (DeepSeek): automatic, as ``prefix`` with their own
  minimum and step.

Requests are simulated in the order of their timestamps; requests without one are one burst
(the same instant), and `CacheSim.notes` says so.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fnmatch import fnmatch
from importlib import resources
from typing import Any, Callable

__all__ = ["REASONING_NOT_INCLUDED", "CacheOutcome", "CacheRequest", "CacheRule", "CacheSim", "CacheStream", "PrefixMarks", "ReasoningRule", "auto_breakpoints",
           "cache_rule", "filled_times_note", "no_breakpoints_note", "reasoning_rule", "simulate"]

# The label every face shows when a model that reasons is priced without a reasoning figure.
REASONING_NOT_INCLUDED = "reasoning not included"


@dataclass(frozen=True, slots=True)
class CacheRule:
    """One provider caching rule (a row of bill_rules.toml)."""

    provider: str
    match: tuple[str, ...]
    kind: str
    minimum: int
    step: int
    ttl_seconds: int
    read: float
    write: float
    exactness: str
    source: str
    checked: str
    why: str
    ttl_long_seconds: int | None = None
    write_long: float | None = None
    max_breakpoints: int | None = None
    # where a log's prefixes can end: "block" (the block ends a row keeps, `logs.cache_trace`) or
    # "step" (also every `step` tokens from `minimum` on, keyed by the target's own token ids)
    granularity: str = "block"

    @property
    def label(self) -> str:
        """ "openai prefix cache (documented, platform.openai.com/..., checked 2026-12-03)"."""
        return f"{self.provider} {self.kind} cache ({self.exactness}; {self.source}, checked {self.checked})"


@dataclass(frozen=True, slots=True)
class ReasoningRule:
    """Models that bill reasoning as output (a [[reasoning]] row). `optional`: only when asked for."""

    match: tuple[str, ...]
    source: str
    checked: str
    why: str
    excluded: tuple[str, ...] = ()
    optional: bool = False


@functools.cache
def _rules() -> tuple[tuple[CacheRule, ...], tuple[ReasoningRule, ...]]:
    data = tomllib.loads(resources.files("analysis.cost").joinpath("bill_rules.toml").read_text("utf-8"))
    cache = tuple(CacheRule(**{**row, "match": tuple(row["match"])}) for row in data.get("cache", ()))
    reasoning = tuple(ReasoningRule(match=tuple(r["match"]), source=r["source"], checked=r["checked"], why=r["why"],
                                    excluded=tuple(r.get("except", ())), optional=bool(r.get("optional", False)))
                      for r in data.get("reasoning", ()))
    for rule in cache:
        if rule.kind not in _KINDS:
            raise ValueError(f"bill_rules.toml: unknown cache kind {rule.kind!r} (known: {', '.join(_KINDS)})")
        if rule.granularity not in ("block", "step") or (rule.granularity == "step" and rule.kind == "breakpoints"):
            raise ValueError(f"bill_rules.toml: granularity {rule.granularity!r} of {rule.provider} {rule.kind} "
                             "(known: \"block\"; \"step\" for an automatic rule)")
    return cache, reasoning


def _bare(model: str) -> str:
    return model.lower().rsplit(":", 1)[-1].rsplit("/", 1)[-1]


def cache_rule(model: str) -> CacheRule | None:
    """The caching rule of a model id ("gpt-4.1", "anthropic:claude-sonnet-4-5"), or None.

    >>> cache_rule("gpt-4.1-mini").minimum, cache_rule("gpt-4.1-mini").step
    (1024, 128)
    >>> cache_rule("llama-3.3-70b") is None
    True
    """
    name = _bare(model)
    return next((r for r in _rules()[0] if any(fnmatch(name, g) for g in r.match)), None)


def reasoning_rule(model: str) -> ReasoningRule | None:
    """The [[reasoning]] row that says `model` bills reasoning as output, or None.

    >>> reasoning_rule("o4-mini") is not None, reasoning_rule("gpt-4.1-mini") is None
    (True, True)
    """
    name = _bare(model)
    for r in _rules()[1]:
        if any(fnmatch(name, g) for g in r.match) and not any(fnmatch(name, g) for g in r.excluded):
            return r
    return None


@dataclass(frozen=True, slots=True)
class CacheRequest:
    """One request as the cache sees it, with its tokens (tests, workloads with ids).

    Attributes:
        tokens: the prompt's token ids on the target model, in order (or any hashable units of
            the same length: only equality of prefixes matters).
        when: the request's time, or None (then the whole log is one burst).
        breakpoints: (token offset where a cache_control block ends, True for a 1-hour TTL), for
            breakpoint rules; ignored by automatic ones.
    """

    tokens: Sequence[Any]
    when: datetime | None = None
    breakpoints: tuple[tuple[int, bool], ...] = ()

    def marks(self, rule: CacheRule) -> PrefixMarks:
        """The prefixes `rule` can match, keyed by a hash of their tokens: every step cut from the
        minimum for an automatic rule, the breakpoints for a breakpoint rule."""
        n = len(self.tokens)
        if rule.kind == "breakpoints":
            flags = dict(sorted((b, 2 if long else 1) for b, long in self.breakpoints if 0 < b <= n))
            cuts = sorted(flags)
        else:
            flags, cuts = {}, list(range(rule.minimum, n + 1, rule.step)) if n >= rule.minimum else []
        keys = _prefix_hashes(self.tokens, cuts)
        return PrefixMarks(n, tuple(cuts), tuple(keys[c] for c in cuts), tuple(flags.get(c, 0) for c in cuts),
                           self.when)


@dataclass(frozen=True, slots=True)
class PrefixMarks:
    """One request as the cache sees it, without its tokens: the prefixes a cache can match.

    What a log keeps per row (a few integers): where each block of the prompt ends on the target
    model (the system prompt and tools, then the messages) and one key per end that is equal for
    equal prefixes (a hash of the text up to there), so a simulation never needs the token ids.

    Attributes:
        n: the prompt's tokens on the target model.
        ends: token offsets where a matchable prefix ends, increasing.
        keys: one integer per end; two requests share the prefix up to an end when their keys match.
        flags: per end, 0 (no breakpoint), 1 (a 5-minute cache_control breakpoint) or 2 (1 hour).
        when: the request's time (a datetime, or Unix seconds), or None.
    """

    n: int
    ends: tuple[int, ...]
    keys: tuple[int, ...]
    flags: tuple[int, ...] = ()
    when: datetime | float | None = None

    def at(self, when: datetime | float | None) -> PrefixMarks:
        return PrefixMarks(self.n, self.ends, self.keys, self.flags, when)


@dataclass(frozen=True, slots=True)
class CacheOutcome:
    """One request's prompt, split: read from the cache, written to it (5m / 1h), and uncached."""

    read: int
    write_5m: int
    write_1h: int
    uncached: int


@dataclass
class CacheSim:
    """The outcome per request, in the input's order, and what the simulation assumed."""

    rule: CacheRule
    outcomes: list[CacheOutcome]
    notes: list[str] = field(default_factory=list)

    @property
    def read(self) -> int:
        return sum(o.read for o in self.outcomes)

    @property
    def write(self) -> int:
        return sum(o.write_5m + o.write_1h for o in self.outcomes)


def _prefix_hashes(tokens: Sequence[Any], cuts: Iterable[int]) -> dict[int, int]:
    """{cut: hash of tokens[:cut]} for increasing cuts, chained so the work is linear."""
    out: dict[int, int] = {}
    h, at = 0, 0
    for cut in cuts:
        h = hash((h, tuple(tokens[at:cut])))
        at = cut
        out[cut] = h
    return out


def _seconds(when: datetime | float | None) -> float:
    return 0.0 if when is None else when if isinstance(when, float) else when.timestamp()


def _automatic(rule: CacheRule, ordered: Sequence[PrefixMarks], alive: dict[int, float] | None = None
               ) -> list[CacheOutcome]:
    """prefix / implicit / disk: the longest live prefix is read, rounded down to the rule's step
    from its minimum; every prefix of the request is then alive for the lifetime (a hit refreshes
    it); nothing is billed as a write. `alive` (prefix key -> expiry in seconds) carries the cache
    from earlier requests (`CacheStream`); None starts empty."""
    alive = {} if alive is None else alive
    out: list[CacheOutcome] = []
    low, step, ttl = rule.minimum, rule.step, rule.ttl_seconds
    for req in ordered:
        now = _seconds(req.when)
        best = max((end for end, key in zip(req.ends, req.keys) if end >= low and alive.get(key, -1.0) >= now),
                   default=0)
        read = min(low + (best - low) // step * step, req.n) if best else 0
        for end, key in zip(req.ends, req.keys):
            if end >= low:
                alive[key] = now + ttl
        out.append(CacheOutcome(read, 0, 0, req.n - read))
    return out


def _breakpoints(rule: CacheRule, ordered: Sequence[PrefixMarks], alive: dict[int, float] | None = None
                 ) -> list[CacheOutcome]:
    """Anthropic: only a request with breakpoints uses the cache. It reads the longest live prefix
    ending at one of its block ends up to its last breakpoint (the provider looks back over earlier
    block boundaries), and writes what lies between that and its last breakpoint; a hit refreshes
    the entry's lifetime. `alive` as in `_automatic`."""
    alive = {} if alive is None else alive
    out: list[CacheOutcome] = []
    short, long_ttl = rule.ttl_seconds, rule.ttl_long_seconds or rule.ttl_seconds
    for req in ordered:
        now = _seconds(req.when)
        marks = [(end, key, flag) for end, key, flag in zip(req.ends, req.keys, req.flags or (0,) * len(req.ends))
                 if flag and rule.minimum <= end <= req.n]
        if rule.max_breakpoints and len(marks) > rule.max_breakpoints:
            marks = marks[-rule.max_breakpoints:]
        if not marks:
            out.append(CacheOutcome(0, 0, 0, req.n))
            continue
        last = marks[-1][0]
        hits = [(end, key) for end, key in zip(req.ends, req.keys)
                if rule.minimum <= end <= last and alive.get(key, -1.0) >= now]
        read, read_key = max(hits, default=(0, None))
        if read_key is not None:
            alive[read_key] = max(alive[read_key], now + short)  # a hit refreshes the lifetime
        w5 = w1 = 0
        prev = read
        for end, key, flag in marks:
            ttl = long_ttl if flag == 2 else short
            if end > read and alive.get(key, -1.0) < now:
                if flag == 2:
                    w1 += end - prev
                else:
                    w5 += end - prev
            prev = max(prev, end)
            alive[key] = max(alive.get(key, -1.0), now + ttl)
        out.append(CacheOutcome(read, w5, w1, req.n - read - w5 - w1))
    return out


_KINDS: dict[str, Callable[..., list[CacheOutcome]]] = {
    "prefix": _automatic, "implicit": _automatic, "disk": _automatic, "breakpoints": _breakpoints}


class CacheStream:
    """`simulate` over requests that come in time order, a run of them at a time, with the cache
    carried from one run to the next: the same outcomes as one `simulate` over all of them.

    The carried state is the live prefixes only: before each run, entries that expired before the
    run's first request are dropped (requests come in time order, so no later request can read
    them, and a write over a dropped key is the same as over an expired one). So it holds what
    was written within one lifetime (the longest, for 1-hour breakpoints) of the latest request;
    requests without times all share one instant, and then nothing expires.
    """

    def __init__(self, rule: CacheRule) -> None:
        self.rule = rule
        self.alive: dict[int, float] = {}

    def feed(self, ordered: Sequence[PrefixMarks]) -> list[CacheOutcome]:
        """The outcomes of `ordered` (in time order, none before the previous run's last request)."""
        if ordered:
            now = _seconds(ordered[0].when)
            if self.alive:
                self.alive = {key: until for key, until in self.alive.items() if until >= now}
        return _KINDS[self.rule.kind](self.rule, ordered, self.alive)

ONE_BURST = "no request has a timestamp: the log is simulated as one burst (every request at the same instant)"


def simulate(rule: CacheRule, requests: Sequence[CacheRequest | PrefixMarks]) -> CacheSim:
    """Each request's cache read and writes under `rule`, the requests taken in time order.

    >>> r = cache_rule("gpt-4.1")
    >>> sim = simulate(r, [CacheRequest(list(range(1500))), CacheRequest(list(range(1500)) + [7])])
    >>> [o.read for o in sim.outcomes], sim.notes
    ([0, 1408], ['no request has a timestamp: the log is simulated as one burst (every request at the same instant)'])
    """
    notes: list[str] = []
    marks = [r.marks(rule) if isinstance(r, CacheRequest) else r for r in requests]
    stamped = [r.when is not None for r in marks]
    if not any(stamped):
        notes.append(ONE_BURST)
    elif not all(stamped):
        notes.append(filled_times_note(stamped.count(False)))
        last: datetime | float | None = None
        filled = []
        for m in marks:
            last = m.when or last
            filled.append(m.at(last))
        marks = filled
    # sorted() is stable: requests at the same instant keep the log's order
    order = sorted(range(len(marks)), key=lambda i: _seconds(marks[i].when)) if any(stamped) else list(range(len(marks)))
    by_pos = _KINDS[rule.kind](rule, [marks[i] for i in order])
    outcomes: list[CacheOutcome] = [CacheOutcome(0, 0, 0, 0)] * len(marks)
    for pos, i in enumerate(order):
        outcomes[i] = by_pos[pos]
    if rule.kind == "breakpoints" and not any(any(m.flags) for m in marks):
        notes.append(no_breakpoints_note(rule))
    return CacheSim(rule, outcomes, notes)


def filled_times_note(unstamped: int) -> str:
    """The note of a log where `unstamped` requests (not all) have no timestamp."""
    return f"{unstamped:,} request(s) without a timestamp are simulated at the previous request's time"


def no_breakpoints_note(rule: CacheRule) -> str:
    """The note of a breakpoint rule simulated over requests that carry no breakpoint."""
    return ("no request carries a cache_control breakpoint, so nothing is cached on "
            f"{rule.provider}; --cache-breakpoints auto places them after the system prompt and tools")


def auto_breakpoints(prefix_ends: Sequence[int], *, long: bool = False) -> tuple[tuple[int, bool], ...]:
    """Breakpoints a careful user places: after the system prompt and tools (the first end given)
    and after the conversation so far (the last end before the new turn).

    `prefix_ends` are the token offsets where the system+tools block and then each earlier
    message end, in order.

    >>> auto_breakpoints([1800, 2400, 3100])
    ((1800, False), (3100, False))
    """
    if not prefix_ends:
        return ()
    marks = {prefix_ends[0], prefix_ends[-1]}
    return tuple((b, long) for b in sorted(marks))
