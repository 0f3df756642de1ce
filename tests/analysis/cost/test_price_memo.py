"""Each distinct usage read once and each distinct (usage, model, context, prices in force) priced once
(issue 44): the memo's answers are genai-prices' own, row by row, whatever repeats."""

import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import genai_prices
import pytest
from genai_prices import extract_usage

from analysis.cost import usage as usage_mod
from analysis.memo import BoundedMemo
from analysis.cost.usage import as_billed, read_usage

START = datetime(2026, 3, 1, tzinfo=UTC)


def _rows(n: int, seed: int = 3) -> list[tuple[dict, datetime]]:
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        u = {"prompt_tokens": rng.choice((1100, 1200, 5000)), "completion_tokens": rng.choice((10, 300))}
        if rng.random() < 0.5:
            u["prompt_tokens_details"] = {"cached_tokens": rng.choice((0, 1024))}
        rows.append((u, START + timedelta(minutes=rng.randrange(60 * 24 * 40))))
    return rows


@pytest.mark.parametrize("model,provider", [("gpt-4o", "openai"), ("deepseek-chat", "deepseek"),
                                            ("deepseek-v4-flash", "deepseek")])
def test_memoised_bill_equals_genai_prices_row_by_row(model, provider, run):
    # deepseek's prices change with the time of day (off-peak) and the v4 models' with the date:
    # a memo keyed on the day alone would give one row the other hour's price
    rows = _rows(400)
    ours = [as_billed(read_usage(u, "openai-chat"), model, provider=provider, when=t) for u, t in rows]
    theirs = [genai_prices.calc_price(extract_usage({"usage": u}, provider_id="openai",
                                                    api_flavor="chat").usage,
                                      model, provider_id=provider, genai_request_timestamp=t).total_price
              for u, t in rows]
    assert ours == theirs
    assert [str(x) for x in ours] == [str(Decimal(x)) for x in theirs]  # the same digits, not only equal
    assert run.memo("usage.price").hits > 0 and run.memo("usage.read").hits > 0  # the rows did repeat


def test_time_of_day_prices_are_told_apart():
    u = read_usage({"prompt_tokens": 1000, "completion_tokens": 1000}, "openai-chat")
    day, night = datetime(2026, 3, 2, 10, tzinfo=UTC), datetime(2026, 3, 2, 17, 30, tzinfo=UTC)
    direct = [genai_prices.calc_price(u.to_genai(), "deepseek-chat", provider_id="deepseek",
                                      genai_request_timestamp=t).total_price for t in (day, night)]
    assert direct[0] != direct[1]  # the off-peak window is real in this genai-prices
    assert [as_billed(u, "deepseek-chat", provider="deepseek", when=t) for t in (day, night)] == direct


def test_values_that_compare_equal_in_python_are_distinct_usages():
    # true == 1 and 1.0 == 1 in Python; the usage object's JSON keeps them apart, so a bad value is
    # refused every time, not answered from a good row's memo
    good = read_usage({"prompt_tokens": 1, "completion_tokens": 1}, "openai-chat")
    assert good.input_tokens == 1
    for bad in (True, 1.5):
        try:
            other = read_usage({"prompt_tokens": bad, "completion_tokens": 1}, "openai-chat")
        except Exception:
            continue
        assert other is not good


def test_memo_is_bounded_and_does_not_keep_errors():
    memo: BoundedMemo[int] = BoundedMemo(3)
    for k in range(10):
        assert memo.get(k, lambda k=k: k * 2) == k * 2
        assert len(memo) <= 3

    def boom() -> int:
        raise ValueError("no")

    with pytest.raises(ValueError):
        memo.get("x", boom)
    assert memo.get("x", lambda: 5) == 5
    with pytest.raises(ValueError):
        BoundedMemo(0)


def test_a_nan_or_a_huge_integer_is_not_keyed_as_null_or_a_float():
    # orjson writes NaN as null and cannot write an integer beyond 64 bits: those keys are the
    # standard library's text, so they stay apart from the usage objects orjson writes
    from analysis.cost.usage import _json_key

    assert _json_key({"a": float("nan")}) != _json_key({"a": None})
    assert _json_key({"a": 2 ** 70}) == '{"a": 1180591620717411303424}'
    assert _json_key({"a": 1}) != _json_key({"a": 1.0}) != _json_key({"a": True})
    assert _json_key({"a": 1, "b": 2}) != _json_key({"b": 2, "a": 1})  # the order it came
    assert _json_key({"a": {1, 2}}) is None  # not JSON
