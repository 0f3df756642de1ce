"""Prompt caching by each provider's rule, simulated over a sequence of requests (issue 42)."""

from datetime import UTC, datetime, timedelta

import pytest

from analysis.cost.caching import CacheRequest, auto_breakpoints, cache_rule, reasoning_rule, simulate

T0 = datetime(2026, 11, 2, 9, tzinfo=UTC)
SYSTEM = list(range(100_000, 101_800))  # a 1,800-token system prompt shared by every request


def _req(question: int, minutes: float = 0, **kw) -> CacheRequest:
    return CacheRequest(SYSTEM + [question] * (40 + question), T0 + timedelta(minutes=minutes), **kw)


def test_every_rule_row_names_its_source_date_and_exactness():
    for model in ("gpt-4.1", "claude-sonnet-4-5", "claude-haiku-4-5", "gemini-2.5-flash", "gemini-2.5-pro",
                  "deepseek-chat"):
        rule = cache_rule(model)
        assert rule is not None, model
        assert rule.source.startswith("https://") and rule.checked and rule.exactness in ("documented", "estimate")
    assert cache_rule("claude-haiku-4-5").minimum == 2048
    assert cache_rule("gemini-2.5-pro").minimum == 2048


def test_openai_rule_reads_the_shared_system_prompt_in_128_token_steps():
    sim = simulate(cache_rule("gpt-4.1"), [_req(1, 0), _req(2, 1), _req(3, 2)])
    # 1,800 shared tokens: the longest 1,024 + 128k prefix inside them is 1,792
    assert [o.read for o in sim.outcomes] == [0, 1792, 1792]
    assert sim.write == 0 and sim.notes == []


def test_openai_cache_expires_after_its_lifetime():
    sim = simulate(cache_rule("gpt-4.1"), [_req(1, 0), _req(2, 30)])
    assert [o.read for o in sim.outcomes] == [0, 0]


def test_openai_short_prompts_are_never_cached():
    short = [CacheRequest(list(range(900)), T0), CacheRequest(list(range(900)), T0)]
    assert [o.read for o in simulate(cache_rule("gpt-4.1"), short).outcomes] == [0, 0]


def test_requests_are_taken_in_time_order():
    sim = simulate(cache_rule("gpt-4.1"), [_req(2, 1), _req(1, 0)])
    assert [o.read for o in sim.outcomes] == [1792, 0]


def test_no_timestamps_is_one_burst_and_says_so():
    reqs = [CacheRequest(SYSTEM + [i]) for i in range(3)]
    sim = simulate(cache_rule("gpt-4.1"), reqs)
    assert [o.read for o in sim.outcomes] == [0, 1792, 1792]
    assert "one burst" in sim.notes[0]


def test_anthropic_caches_only_at_breakpoints_with_write_premium_buckets():
    rule = cache_rule("claude-sonnet-4-5")
    mark = ((len(SYSTEM), True),)  # cache_control after the system prompt, ttl 1h
    sim = simulate(rule, [_req(1, 0, breakpoints=mark), _req(2, 40, breakpoints=mark), _req(3, 200, breakpoints=mark)])
    assert [(o.read, o.write_1h, o.write_5m) for o in sim.outcomes] == [(0, 1800, 0), (1800, 0, 0), (0, 1800, 0)]
    five = simulate(rule, [_req(1, 0, breakpoints=((1800, False),)), _req(2, 40, breakpoints=((1800, False),))])
    assert [(o.read, o.write_5m) for o in five.outcomes] == [(0, 1800), (0, 1800)]  # 5 minutes had passed
    none = simulate(rule, [_req(1, 0), _req(2, 1)])
    assert none.read == 0 and none.write == 0 and "--cache-breakpoints auto" in none.notes[0]


def test_anthropic_breakpoint_below_minimum_caches_nothing():
    rule = cache_rule("claude-haiku-4-5")  # 2,048 minimum
    sim = simulate(rule, [_req(1, 0, breakpoints=((1800, False),)), _req(2, 1, breakpoints=((1800, False),))])
    assert sim.read == 0 and sim.write == 0


def test_auto_breakpoints_after_system_and_conversation():
    marks = auto_breakpoints([1800, 2300])
    assert marks == ((1800, False), (2300, False))
    rule = cache_rule("claude-sonnet-4-5")
    sim = simulate(rule, [_req(1, 0, breakpoints=marks[:1]), _req(2, 1, breakpoints=marks[:1])])
    assert sim.outcomes[1].read == 1800


@pytest.mark.parametrize("model, reasons", [
    ("o4-mini", True), ("o3", True), ("gpt-5.1", True), ("gpt-5-mini", True), ("gpt-5-chat-latest", False),
    ("gpt-4.1-mini", False), ("deepseek-reasoner", True), ("deepseek-chat", False), ("gemini-2.5-flash", True),
    ("gemini-2.5-flash-lite", False), ("openai:o4-mini", True), ("claude-sonnet-4-5", True)])
def test_which_models_reason_is_data(model, reasons):
    assert (reasoning_rule(model) is not None) is reasons
