"""`cost --logs` re-targets the whole bill: each target's own prompt cache simulated over the log's
requests in time order, reasoning per model, batch and service tiers, each priced as genai-prices'
calc_price prices it (issue 42)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal

import genai_prices
import pytest

from analysis.cli import main
from analysis.cost.caching import PrefixMarks, cache_rule, simulate
from analysis.tokenizers import load_tokenizer

ON = "2026-12-01"
SYSTEM = " ".join(f"rule {i}: answer in the customer's language and cite policy section {i}." for i in range(160))


def _rows(minutes=(0, 1, 2, 3, 4, 30), *, stamped=True):
    rows = []
    for i, minute in enumerate(minutes):
        row = {"model": "gpt-4o-2024-08-06",
               "messages": [{"role": "system", "content": SYSTEM},
                            {"role": "user", "content": f"Question number {i}: where is my parcel?"}],
               "response": {"model": "gpt-4o-2024-08-06",
                            "choices": [{"message": {"role": "assistant", "content": "It is on its way."}}]}}
        if stamped:
            row["timestamp"] = f"2026-11-02T09:{minute:02d}:00Z"
        rows.append(row)
    return rows


def _write(tmp_path, rows, name="log.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def _cost(capsys, argv):
    rc = main(["cost", "--logs", *argv, "--on", ON, "--format", "json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return {m["model"]: m for m in json.loads(out)["models"]}, json.loads(out)


def _genai(model: str, m: dict, ctx=None) -> Decimal:
    """genai-prices' calc_price of the row's parts, summed (one tier: the log is far below any tier start,
    so the price of the sum is the sum of the prices of the rows)."""
    parts = {p["name"]: p["tokens"] for p in m["parts"]}
    w5, w1 = parts.get("cache write 5m", 0), parts.get("cache write 1h", 0)
    reasoning = parts.get("reasoning") or 0
    prompt = parts.get("input", 0) + parts.get("cache read", 0) + w5 + w1
    usage = genai_prices.Usage(input_tokens=prompt, cache_read_tokens=parts.get("cache read", 0),
                               cache_write_tokens=w5 + w1, cache_write_1h_tokens=w1,
                               output_tokens=parts.get("output", 0) + reasoning, output_reasoning_tokens=reasoning)
    return genai_prices.calc_price(usage, model, genai_request_timestamp=datetime(2026, 12, 1, 12, tzinfo=UTC),
                                   price_context=ctx).total_price


def test_openai_rule_predicts_the_logged_cached_tokens_of_a_shared_system_prompt(tmp_path, capsys):
    # the Cookbook's rule: the system message is its text + 3 + its role (1 token); OpenAI caches the
    # longest 1,024 + 128k prefix, alive 5 minutes; the last row comes 26 minutes after the one before it
    shared = load_tokenizer("o200k_base").count(SYSTEM) + 3 + 1
    assert shared > 1024
    cached = 1024 + (shared - 1024) // 128 * 128
    logged = [0, cached, cached, cached, cached, 0]
    rows = _rows()
    for row, c in zip(rows, logged):
        row["response"]["usage"] = {"prompt_tokens": 2600, "completion_tokens": 5,
                                    "prompt_tokens_details": {"cached_tokens": c}}
    by, data = _cost(capsys, [_write(tmp_path, rows), "-m", "gpt-4o"])
    m = by["gpt-4o"]
    assert m["cache_read_tokens"] == sum(logged) and m["cache_write_tokens"] == 0
    # the calibration compares the cache part too: simulated against logged, on the model that served the log
    (cal,) = data["calibration"]
    assert (cal["cache_read_simulated"], cal["cache_read_logged"], cal["cache_read_error"]) == (sum(logged), sum(logged), 0)
    # input_tokens is the uncached input; the whole prompt is prompt_tokens
    assert m["input_tokens"] == m["prompt_tokens"] - sum(logged)
    assert m["prompt_tokens"] == m["content_tokens"] + m["format_tokens"]
    assert "openai prefix cache" in m["cache_rule"] and "estimate" in m["exactness"]
    assert Decimal(m["usd_total"]) == _genai("gpt-4o", m)
    assert Decimal(m["usd_total"]) < Decimal(m["usd_text_only"])
    assert Decimal(m["usd_cache_saving"]) == Decimal(m["usd_text_only"]) - Decimal(m["usd_total"])
    assert any(p["name"] == "cache read" and p["exactness"].startswith("estimate: simulated cache") for p in m["parts"])


@pytest.mark.slow  # loads five tokenizers (about 2 s)
def test_every_target_caches_by_its_own_rule_and_equals_calc_price(tmp_path, capsys):
    by, data = _cost(capsys, [_write(tmp_path, _rows()), "-m", "gpt-4.1-mini,gemini-2.5-flash,deepseek-chat,"
                              "claude-sonnet-4-5,gpt-3.5-turbo"])
    assert by["gpt-4.1-mini"]["cache_read_tokens"] > 0
    assert by["gemini-2.5-flash"]["cache_read_tokens"] > 0 and "google implicit" in by["gemini-2.5-flash"]["cache_rule"]
    assert by["deepseek-chat"]["cache_read_tokens"] > 0
    # Anthropic caches only at breakpoints, and an OpenAI log has none: nothing cached, and said so
    assert by["claude-sonnet-4-5"]["cache_read_tokens"] == 0
    assert "no request carries a cache_control breakpoint" in by["claude-sonnet-4-5"]["note"]
    assert by["gpt-3.5-turbo"]["cache_read_tokens"] == 0 and "no prompt-cache rule" in by["gpt-3.5-turbo"]["cache_rule"]
    for model in ("gpt-4.1-mini", "gemini-2.5-flash", "deepseek-chat"):
        assert Decimal(by[model]["usd_total"]) == _genai(model, by[model]), model


def test_cache_breakpoints_auto_places_them_and_shows_what_it_saves(tmp_path, capsys):
    log = _write(tmp_path, _rows())
    plain, _ = _cost(capsys, [log, "-m", "claude-sonnet-4-5"])
    auto, _ = _cost(capsys, [log, "-m", "claude-sonnet-4-5", "--cache-breakpoints", "auto"])
    m = auto["claude-sonnet-4-5"]
    assert m["cache_read_tokens"] > 0 and m["cache_write_tokens"] > 0
    assert Decimal(m["usd_total"]) < Decimal(plain["claude-sonnet-4-5"]["usd_total"])
    assert Decimal(m["usd_cache_saving"]) > 0 and "saves $" in m["note"]
    assert Decimal(m["usd_total"]) == _genai("claude-sonnet-4-5", m)
    # the rows 2-5 read the system block written by row 1; row 6 comes after the 5-minute lifetime
    assert m["cache_read_tokens"] % 4 == 0


def test_an_anthropic_logs_own_cache_control_with_a_1h_ttl(tmp_path, capsys):
    rows = []
    for i, minute in enumerate((0, 20, 40)):
        rows.append({"model": "claude-sonnet-4-5", "timestamp": f"2026-11-02T09:{minute:02d}:00Z",
                     "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
                     "messages": [{"role": "user", "content": f"Question {i}?"}],
                     "response": {"model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "Yes."}]}})
    by, _ = _cost(capsys, [_write(tmp_path, rows), "-m", "claude-sonnet-4-5"])
    m = by["claude-sonnet-4-5"]
    parts = {p["name"]: p for p in m["parts"]}
    # written once for an hour, read 20 and 40 minutes later (a 5-minute entry would have expired)
    assert parts["cache write 1h"]["tokens"] > 0 and "cache write 5m" not in parts
    assert parts["cache read"]["tokens"] == 2 * parts["cache write 1h"]["tokens"]
    assert Decimal(m["usd_total"]) == _genai("claude-sonnet-4-5", m)


def test_no_timestamps_is_one_burst_and_the_report_says_so(tmp_path, capsys):
    by, _ = _cost(capsys, [_write(tmp_path, _rows(stamped=False)), "-m", "gpt-4o"])
    assert "one burst" in by["gpt-4o"]["note"]
    assert by["gpt-4o"]["cache_read_tokens"] > 0  # every request at the same instant: all but the first hit


def test_cached_share_stays_a_manual_override(tmp_path, capsys):
    by, _ = _cost(capsys, [_write(tmp_path, _rows()), "-m", "gpt-4o", "--cached-share", "0.5"])
    m = by["gpt-4o"]
    assert m["cache_rule"] == "--cached-share" and m["cache_read_tokens"] == m["prompt_tokens"] // 2
    assert m["input_tokens"] == m["prompt_tokens"] - m["cache_read_tokens"]
    assert Decimal(m["usd_total"]) == _genai("gpt-4o", m)


@pytest.mark.parametrize(("flag", "model", "ctx"), [
    (["--batch"], "gpt-4.1-mini", {"processing": "batch"}),
    (["--service-tier", "flex"], "o4-mini", {"service_tier": "flex"}),
])
def test_batch_and_service_tier_price_every_target_as_genai_prices_does(tmp_path, capsys, flag, model, ctx):
    log = _write(tmp_path, _rows())
    standard, _ = _cost(capsys, [log, "-m", model, "--reasoning-tokens", "100"])
    varied, data = _cost(capsys, [log, "-m", model, "--reasoning-tokens", "100", *flag])
    m = varied[model]
    assert Decimal(m["usd_total"]) == _genai(model, m, ctx)
    assert Decimal(m["usd_total"]) < Decimal(standard[model]["usd_total"])
    assert any("--batch/--service-tier" in n for n in data["notes"])


def test_a_model_without_a_batch_price_is_refused_by_name(tmp_path, capsys):
    rc = main(["cost", "--logs", _write(tmp_path, _rows()), "-m", "deepseek-chat", "--batch", "--on", ON])
    err = capsys.readouterr().err
    assert rc == 2 and "no processing batch price for deepseek" in err and "Traceback" not in err


def test_reasoning_per_model_and_in_the_percentiles(tmp_path, capsys):
    log = _write(tmp_path, _rows())
    by, _ = _cost(capsys, [log, "-m", "o3,gpt-5.1,gpt-4.1", "--reasoning-tokens", "o3=1000,gpt-5.1=200"])
    assert by["o3"]["reasoning_tokens"] == 6000 and "for o3" in by["o3"]["reasoning_source"]
    assert by["gpt-5.1"]["reasoning_tokens"] == 1200
    assert by["gpt-4.1"]["reasoning_tokens"] == 0
    without, _ = _cost(capsys, [log, "-m", "o3", "--reasoning-tokens", "0"])
    # reasoning is in $/request: 1,000 reasoning tokens per request at o3's output rate
    rate = next(Decimal(p["usd_per_mtok"]) for p in by["o3"]["parts"] if p["name"] == "reasoning")
    p50 = Decimal(str(by["o3"]["usd_per_request_p50"])) - Decimal(str(without["o3"]["usd_per_request_p50"]))
    assert abs(p50 - 1000 * rate / 1_000_000) < Decimal("1e-9")


@pytest.mark.parametrize(("argv", "words"), [
    (["--logs", "LOG", "-m", "o3", "--reasoning-tokens", "gpt-5.1=10"], "not among the models"),
    (["--logs", "LOG", "-m", "o3", "--reasoning-tokens", "=10"], "not MODEL=VALUE"),
    (["some text", "-m", "o3", "--reasoning-tokens", "o3=10"], "apply to --logs"),
    # (`some text --batch` prices one request since issue 56: tests/analysis/cli/test_newcomer_bugs.py)
])
def test_bad_bill_flags_are_named(tmp_path, capsys, argv, words):
    log = _write(tmp_path, _rows())
    with pytest.raises(SystemExit) if "=10" == argv[-1] else _nothing():
        rc = main(["cost", *[log if a == "LOG" else a for a in argv]])
        assert rc == 2
    assert words in capsys.readouterr().err


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_anthropic_rule_reads_an_earlier_block_end_not_only_its_own_breakpoints():
    rule = cache_rule("claude-sonnet-4-5")
    t0 = datetime(2026, 11, 2, 9, tzinfo=UTC)
    first = PrefixMarks(3000, (2000, 2900), (1, 2), (0, 1), t0)  # breakpoint after its last message
    # the next turn shares the first turn's prompt up to 2,900 and marks its own last message
    second = PrefixMarks(3500, (2000, 2900, 3400), (1, 2, 3), (0, 0, 1), t0.replace(minute=1))
    sim = simulate(rule, [first, second])
    assert [o.read for o in sim.outcomes] == [0, 2900]
    assert sim.outcomes[1].write_5m == 500 and sim.outcomes[0].write_5m == 2900


def test_requests_per_lifetime_spaces_requests_without_timestamps_by_each_models_ttl(tmp_path, capsys):
    # a shared --system prompt over request texts: 2 requests per lifetime of each model's cache (OpenAI's 300 s,
    # DeepSeek's 3,600 s) read it; one per 8 lifetimes never does
    (tmp_path / "sys.txt").write_text(SYSTEM)
    files = []
    for i in range(3):
        (tmp_path / f"q{i}.txt").write_text(f"Where is parcel {i}?")
        files += ["-f", str(tmp_path / f"q{i}.txt")]

    def run(*extra):
        rc = main(["cost", *files, "--system", f"@{tmp_path / 'sys.txt'}", "-m", "gpt-4o,deepseek-chat",
                   "--output-tokens", "10", "--on", ON, "--format", "json", *extra])
        out, err = capsys.readouterr()
        assert rc == 0, err
        return {m["model"]: m for m in json.loads(out)["models"]}

    burst, often, rarely = run(), run("--requests-per-lifetime", "2"), run("--requests-per-lifetime", "0.125")
    assert "one burst" in burst["gpt-4o"]["note"] and burst["gpt-4o"]["cache_read_tokens"] > 0
    # a burst writes the prefix with its first request and the other two read it; a stream already running
    # (--requests-per-lifetime) finds it cached, so all three read it
    assert often["gpt-4o"]["cache_read_tokens"] == burst["gpt-4o"]["cache_read_tokens"] * 3 // 2
    assert "stream already running" in often["gpt-4o"]["note"]
    assert "2 per cache lifetime of 300 s" in often["gpt-4o"]["note"]
    assert often["deepseek-chat"]["cache_read_tokens"] > 0 and "of 3,600 s" in often["deepseek-chat"]["note"]
    assert rarely["gpt-4o"]["cache_read_tokens"] == rarely["deepseek-chat"]["cache_read_tokens"] == 0
    assert Decimal(rarely["gpt-4o"]["usd_total"]) > Decimal(often["gpt-4o"]["usd_total"])
    rc = main(["cost", "some text", "-m", "gpt-4o", "--requests-per-lifetime", "2"])
    assert rc == 2 and "give request bodies" in capsys.readouterr().err


def test_block_keys_are_the_blake2b_chain_of_the_blocks():
    # issue 44: the keys are hashed once per distinct (prefix, block) in a chunk and the common
    # blocks are written without the join; they stay the chain of `_key` over the blocks' texts
    from analysis.cost.logs.cache_trace import _blocks, _key, _Keys
    from analysis.cost.logs.read import LogRecord
    from analysis.requests import parse

    bodies = [{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]},
              {"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
                            {"role": "assistant", "content": "ok", "name": "bot"}, {"role": "user", "content": "more"}]},
              {"messages": [{"role": "developer", "content": "x"}, {"role": "user", "content": "y"}],
               "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]}]
    memo = _Keys()
    for body in bodies * 2:
        request = parse(body, shape="openai-chat")
        chain = [_key(b"", (request.system, request.tools))]
        for m in request.messages:
            texts = tuple(p.text for p in m.parts)
            chain.append(_key(chain[-1], "\x00".join((m.role, m.name or "", "\x01".join(texts), "\x02"))))
        for mode in ("request", "auto"):
            kept, keys, _ = _blocks(LogRecord("x", request), mode, memo)
            assert keys == [int.from_bytes(chain[b], "little", signed=True) for b in kept]
