"""The Cost page under AppTest: the form drives the estimate."""

from __future__ import annotations

import pytest

from analysis.cost import Workload, estimate, format_usd
from tests.dashboards.conftest import open_page, vega_charts

PAGE = "app_pages/cost.py"
MODELS = ["openai:gpt-4o-mini", "deepseek:deepseek-chat", "anthropic:claude-sonnet-4-5"]


def _models_table(at):
    return at.dataframe[0].value.set_index("model")


def test_workload_form_drives_the_estimate():
    at = open_page(PAGE)
    at.multiselect(key="cost_models").set_value(MODELS)
    at.text_area(key="cost_text").set_value("Summarise this email in two sentences, please.")
    at.text_input(key="cost_rpm").set_value("50000")
    at.text_input(key="cost_out_tokens").set_value("120")
    at.slider(key="cost_cached").set_value(0.5)
    at.button(key="cost_go").click().run()
    assert not at.exception
    expected = estimate("Summarise this email in two sentences, please.", MODELS,
                        workload=Workload(requests_per_month=50_000, output_tokens=120, cached_share="0.5",
                                          messages_per_request=1)).models.set_index("model")
    shown = _models_table(at)
    assert list(shown.index) == MODELS
    for model in MODELS:
        assert shown.loc[model, "$/month"] == format_usd(expected.loc[model, "usd_per_month"])
    assert shown.loc["anthropic:claude-sonnet-4-5", "exactness"] == "estimate"
    assert shown.loc["openai:gpt-4o-mini", "exactness"] == "documented"
    labels = {b.label for b in at.download_button}
    assert {"Report (HTML, with charts)", "Report (Markdown)", "Cost by model (CSV)"} <= labels
    # both charts are interactive Vega-Lite, as on the other pages (issue 46), with the exact dollars on hover
    specs = [spec for spec, _ in vega_charts(at)]
    assert len(specs) == 2 and not at.get("image")
    monthly = specs[0]
    assert monthly["encoding"]["x"]["title"] == "USD per month"
    assert {"field": "usd_text", "type": "nominal", "title": "USD per month"} in monthly["encoding"]["tooltip"]


def test_output_ratio_and_builtin_corpus():
    at = open_page(PAGE)
    at.segmented_control(key="cost_source").set_value("Built-in corpus").run()
    at.multiselect(key="cost_models").set_value(["openai:gpt-4o-mini"])
    at.radio(key="cost_out_mode").set_value("ratio of input tokens")
    at.text_input(key="cost_out_ratio").set_value("0.25")
    at.button(key="cost_go").click().run()
    assert not at.exception
    shown = _models_table(at)
    inp = float(shown.loc["openai:gpt-4o-mini", "in_tok/req"].replace(",", ""))
    fmt = float(shown.loc["openai:gpt-4o-mini", "of which format"].replace(",", ""))
    out = float(shown.loc["openai:gpt-4o-mini", "out_tok/req"].replace(",", ""))
    assert fmt > 0
    assert abs(out - 0.25 * (inp - fmt)) < 0.11  # the ratio applies to the content; display rounds to one decimal
    assert len(at.dataframe) == 2  # a by-category table: prose and code


def test_unreachable_model_shows_no_price_or_reason_not_zero():
    at = open_page(PAGE)
    at.multiselect(key="cost_models").set_value(["mistral:mistral-small-3.2-24b-instruct"]).run()
    assert not at.exception
    row = _models_table(at).loc["mistral:mistral-small-3.2-24b-instruct"]
    assert "$0" != row["$/month"]


def test_bad_workload_and_empty_text_are_messages():
    at = open_page(PAGE)
    at.multiselect(key="cost_models").set_value([]).run()
    assert not at.exception
    assert any("at least one model" in w.value for w in at.warning)
    at.text_area(key="cost_text").set_value("").run()
    assert not at.exception
    assert any("empty" in w.value for w in at.warning)


def test_an_uploaded_chat_log_shows_per_model_change_and_calibration():
    from pathlib import Path

    log = Path(__file__).resolve().parents[1] / "fixtures" / "logs" / "calibration.jsonl"
    at = open_page(PAGE)
    at.segmented_control(key="cost_source").set_value("Chat log").run()
    assert not at.exception
    assert any("Upload a chat log" in i.value for i in at.info)
    at.file_uploader(key="cost_log").set_value((log.name, log.read_bytes(), "application/jsonl"))
    at.multiselect(key="cost_log_models").set_value(["openai:gpt-4o", "openai:gpt-4.1-mini"]).run()
    assert not at.exception, at.exception
    models = at.dataframe[0].value.set_index("model")
    # every row carries usage, so the change is against the bill: the serving model re-targeted is
    # its recount, within the calibration's error of what was billed
    assert abs(float(models.loc["openai:gpt-4o", "vs served"].rstrip("%"))) <= 2
    assert models.loc["openai:gpt-4.1-mini", "vs served"].startswith("-")
    tables = {tuple(d.value.columns)[0]: d.value for d in at.dataframe}
    # by model, as billed, per day, calibration, worst rows
    assert list(tables) == ["model", "served by", "day", "served by", "row"] or list(tables) == ["model", "served by", "day", "row"]
    calibration = tables["served by"]
    assert calibration.loc[0, "served by"] == "gpt-4o"
    assert calibration.loc[0, "rows with usage"] == 2
    worst = tables["row"].set_index("row")
    assert worst.loc[f"{log.name}:1", "input error"] == "+0.0%"
    assert worst.loc[f"{log.name}:2", "input ours / logged"].endswith("/ 64")
    assert any("recounted" in c.value for c in at.caption)
    assert any(m.value.startswith("**as billed: $") and "; recounted: $" in m.value for m in at.markdown)


def test_model_ids_as_the_cli_takes_them_and_the_count_of_tokenprism_count():
    from analysis.requests import Request, input_tokens

    text = "Summarise this email in two sentences, please."
    at = open_page(PAGE)
    at.multiselect(key="cost_models").set_value([])
    at.text_area(key="cost_text").set_value(text)
    at.text_input(key="cost_model_ids").set_value("gpt-4o, openai:gpt-4o-2024-08-06, claude-sonnet-4-5-20250929")
    at.button(key="cost_go").click().run()
    assert not at.exception, at.exception
    shown = _models_table(at)
    assert list(shown.index) == ["gpt-4o", "openai:gpt-4o-2024-08-06", "claude-sonnet-4-5-20250929"]
    for model in shown.index:  # one number everywhere: the page's input tokens are `tokenprism count`'s
        assert shown.loc[model, "in_tok/req"] == f"{input_tokens(Request.from_text(text), model).input_tokens:,}"


def test_an_unknown_model_id_is_refused_with_the_closest_ids():
    at = open_page(PAGE)
    at.text_input(key="cost_model_ids").set_value("gpt-4oo").run()
    assert not at.exception
    (error,) = at.error
    assert "unknown model 'gpt-4oo'" in error.value
    assert "gpt-4o" in error.value.split("did you mean", 1)[1]
    assert not at.dataframe  # nothing priced under a guess


def test_a_reasoning_model_without_a_figure_says_reasoning_not_included():
    at = open_page(PAGE)
    at.multiselect(key="cost_models").set_value(["openai:o3", "openai:gpt-4o-mini"])
    at.text_area(key="cost_text").set_value("Prove that there are infinitely many primes.")
    at.button(key="cost_go").click().run()
    assert not at.exception
    assert any("Reasoning not included for openai:o3" in w.value for w in at.warning)
    shown = _models_table(at)
    assert shown.loc["openai:o3", "reasoning/req"] == "reasoning not included"
    assert shown.loc["openai:gpt-4o-mini", "reasoning/req"] == "0"
    at.text_input(key="cost_reasoning").set_value("2000")
    at.button(key="cost_go").click().run()
    assert not at.exception and not any("Reasoning not included" in w.value for w in at.warning)
    assert _models_table(at).loc["openai:o3", "reasoning/req"] == "2,000"


@pytest.mark.slow  # an AppTest run with an upload: about 10 s on a shared machine
def test_an_uploaded_log_shows_each_models_simulated_cache_as_an_estimate():
    # issue 42: the cache column names the rule and says estimate; the per-model notes say how it was simulated
    import json

    system = " ".join(f"rule {i}: answer in the customer's language and cite policy section {i}." for i in range(160))
    rows = [{"model": "gpt-4o", "timestamp": f"2026-11-02T09:0{i}:00Z",
             "messages": [{"role": "system", "content": system}, {"role": "user", "content": f"Question {i}?"}],
             "response": "It is on its way."} for i in range(3)]
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    at = open_page(PAGE)
    at.segmented_control(key="cost_source").set_value("Chat log").run()
    at.file_uploader(key="cost_log").set_value(("support.jsonl", data, "application/jsonl"))
    at.multiselect(key="cost_log_models").set_value(["openai:gpt-4o"]).run()
    assert not at.exception, at.exception
    models = at.dataframe[0].value.set_index("model")
    assert models.loc["openai:gpt-4o", "cache read / written (est.)"].endswith("(openai prefix)")
    assert not models.loc["openai:gpt-4o", "cache read / written (est.)"].startswith("0 ")
    (cache,) = [d.value.set_index("model") for d in at.dataframe if "rule is" in d.value.columns]
    assert cache.loc["openai:gpt-4o", "rule is"] == "documented" and cache.loc["openai:gpt-4o", "cache rule"] == "openai prefix"
    assert any("prompt cache simulated" in m.value and "an estimate" in m.value for m in at.markdown)


def test_a_link_carries_the_pasted_prompt_both_ways():
    from tests.dashboards.conftest import open_link

    prompt = "Translate «this» into Norwegian, keeping the tone."
    at = open_link(PAGE, {"cost_text": prompt, "cost_models": MODELS[:1]})
    assert at.text_area(key="cost_text").value == prompt  # the link's prompt is the one priced
    at.button(key="cost_go").click().run()
    assert not at.exception
    expected = estimate(prompt, MODELS[:1], workload=Workload(requests_per_month=100_000, output_tokens=0,
                                                             messages_per_request=1)).models.set_index("model")
    assert _models_table(at).loc[MODELS[0], "in_tok/req"] == f"{int(expected.loc[MODELS[0], 'prompt_tokens_per_request']):,}"
    # an edited prompt goes into the link; the sample text (the default) is left out of it
    at.text_area(key="cost_text").set_value("Another prompt.").run()
    assert at.query_params["cost_text"] in ("Another prompt.", ["Another prompt."])
    fresh = open_page(PAGE)
    assert "cost_text" not in fresh.query_params


def test_a_link_carries_the_log_views_settings():
    from tests.dashboards.conftest import as_read, open_link

    settings = {"cost_source": "Chat log", "cost_log_models": ["openai:gpt-4o-mini"], "cost_log_format": "anthropic",
                "cost_log_out": "120", "cost_log_cached": "0.25", "cost_log_skip": "true",
                "cost_log_model_ids": "gpt-4o"}
    at = open_link(PAGE, settings)
    assert not at.error and not [w for w in at.warning if "link" in w.value]
    assert at.multiselect(key="cost_log_models").value == ["openai:gpt-4o-mini"]
    assert at.selectbox(key="cost_log_format").value == "anthropic"
    assert at.text_input(key="cost_log_out").value == "120"
    assert at.slider(key="cost_log_cached").value == 0.25
    assert at.checkbox(key="cost_log_skip").value is True
    assert at.text_input(key="cost_log_model_ids").value == "gpt-4o"
    # a bad link value is named, not used
    at = open_link(PAGE, {"cost_source": "Chat log", "cost_log_format": "nonsense"})
    assert any("'cost_log_format': 'nonsense' is not one of the log formats" in as_read(w.value) for w in at.warning)


def test_batch_and_tier_prices_on_both_views():
    from tests.dashboards.conftest import as_read, open_link

    at = open_link(PAGE, {"cost_models": ["openai:gpt-4o-mini"], "cost_prices": "batch"})
    at.button(key="cost_go").click().run()
    assert not at.exception and not at.error
    batch = estimate(at.text_area(key="cost_text").value, ["openai:gpt-4o-mini"],
                     workload=Workload(requests_per_month=100_000, output_tokens=300, messages_per_request=1,
                                       batch=True)).models.set_index("model")
    standard = estimate(at.text_area(key="cost_text").value, ["openai:gpt-4o-mini"],
                        workload=Workload(requests_per_month=100_000, output_tokens=300,
                                          messages_per_request=1)).models.set_index("model")
    shown = _models_table(at).loc["openai:gpt-4o-mini", "$/month"]
    assert shown == format_usd(batch.loc["openai:gpt-4o-mini", "usd_per_month"]) != format_usd(
        standard.loc["openai:gpt-4o-mini", "usd_per_month"])
    # a model without the variant is named, with the page's fix
    at = open_link(PAGE, {"cost_models": ["deepseek:deepseek-chat"], "cost_prices": "batch"})
    at.button(key="cost_go").click().run()
    assert any("deepseek:deepseek-chat" in as_read(e.value) and 'set "Prices" to standard' in as_read(e.value)
               for e in at.error), [e.value for e in at.error]
    # the log view takes the same choice, priced as `cost --logs --batch` prices it
    import json
    from decimal import Decimal
    from pathlib import Path

    from analysis.cli import main

    log = Path(__file__).resolve().parents[1] / "fixtures" / "logs" / "calibration.jsonl"
    at = open_link(PAGE, {"cost_source": "Chat log", "cost_log_prices": "batch"})
    assert at.selectbox(key="cost_log_prices").value == "batch"
    at.file_uploader(key="cost_log").set_value((log.name, log.read_bytes(), "application/jsonl"))
    at.multiselect(key="cost_log_models").set_value(["openai:gpt-4o"]).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["cost", "--logs", str(log), "-m", "openai:gpt-4o", "--batch", "--output-tokens", "300",
                     "--format", "json"]) == 0
    (row,) = json.loads(out.getvalue())["models"]
    shown = at.dataframe[0].value.set_index("model").loc["openai:gpt-4o"]
    assert Decimal(shown["total $"].lstrip("$")) == Decimal(format_usd(Decimal(row["usd_total"])).lstrip("$")) > 0


# -- a shared prefix: each model's cache by its own rule (issue 42) ------------------------------------
SYSTEM = "You are a careful support agent for a parcel service; cite the policy section you rely on. " * 120
TOOLS = [{"type": "function", "function": {"name": "track", "description": "Where a parcel is",
                                           "parameters": {"type": "object", "properties": {"id": {"type": "string"}}}}}]
PREFIX_MODELS = ["openai:gpt-4.1", "anthropic:claude-sonnet-4-5", "deepseek:deepseek-chat", "openai:o3"]


def _prefix_form(at, *, tools: str = "", per_lifetime: str = "10", breakpoints: str = "auto"):
    at.multiselect(key="cost_models").set_value(PREFIX_MODELS)
    at.text_area(key="cost_text").set_value("Where is parcel 7?")
    at.text_area(key="cost_system").set_value(SYSTEM)
    at.text_area(key="cost_tools").set_value(tools)
    at.text_input(key="cost_per_lifetime").set_value(per_lifetime)
    at.selectbox(key="cost_breakpoints").set_value(breakpoints)
    at.button(key="cost_go").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at.dataframe[0].value.set_index("model"), at.dataframe[1].value.set_index("model")


@pytest.mark.slow  # two priced AppTest runs and a CLI run: a few seconds on a shared machine
def test_a_shared_prefix_is_cached_on_each_model_by_its_own_rule_as_the_cli_prices_it(capsys):
    import json
    from decimal import Decimal

    from analysis.cli import main
    from analysis.cost import price_shared_prefix

    at = open_page(PAGE)
    models, cache = _prefix_form(at)
    assert main(["cost", "Where is parcel 7?", "--system", SYSTEM, "--requests-per-lifetime", "10",
                 "--cache-breakpoints", "auto", "--output-tokens", "300", "--requests-per-month", "100000",
                 "-m", ",".join(PREFIX_MODELS), "--format", "json"]) == 0
    cli = {m["model"]: m for m in json.loads(capsys.readouterr().out)["models"]}
    for model in PREFIX_MODELS:  # the page's numbers are the CLI's
        row = cli[model]
        assert models.loc[model, "total $"] == format_usd(Decimal(row["usd_total"]))
        assert models.loc[model, "$/month (projected)"] == format_usd(Decimal(row["usd_per_month"]))
        assert models.loc[model, "cache read / written (est.)"].startswith(
            f"{row['cache_read_tokens']:,} / {row['cache_write_tokens']:,} (")
        assert cache.loc[model, "read / request (est.)"] == f"{row['cache_read_tokens']:,}"
    # each rule: OpenAI reads the prefix in 128-token steps from 1,024; Anthropic reads it at its breakpoint and
    # writes only the new message; DeepSeek's disk cache is an estimate, the others documented
    assert cli["openai:gpt-4.1"]["cache_read_tokens"] % 128 == 0 and cli["openai:gpt-4.1"]["cache_read_tokens"] >= 1024
    assert 0 < cli["anthropic:claude-sonnet-4-5"]["cache_write_tokens"] < 20
    assert cache.loc["openai:gpt-4.1", "rule is"] == cache.loc["anthropic:claude-sonnet-4-5", "rule is"] == "documented"
    assert cache.loc["deepseek:deepseek-chat", "rule is"] == "estimate"
    assert models.loc["openai:o3", "reasoning"] == "reasoning not included"
    assert any("Reasoning not included for anthropic:claude-sonnet-4-5, openai:o3" in w.value for w in at.warning)
    # tools join the prefix (the CLI has no flag for them): the library's one function prices what the page shows
    models, cache = _prefix_form(at, tools=json.dumps(TOOLS))
    lib = price_shared_prefix("Where is parcel 7?", PREFIX_MODELS, system=SYSTEM, tools=TOOLS, requests_per_lifetime=10,
                              cache_breakpoints="auto", output_tokens=300, requests_per_month=100_000
                              ).models.set_index("model")
    for model in PREFIX_MODELS:
        assert models.loc[model, "total $"] == format_usd(lib.loc[model, "usd_total"])
        assert lib.loc[model, "cache_read_tokens"] > cli[model]["cache_read_tokens"]  # the tools are read too


@pytest.mark.slow  # an AppTest run: over a second on a shared machine
def test_fewer_requests_than_one_per_lifetime_and_the_manual_share():
    at = open_page(PAGE)
    _, cache = _prefix_form(at, per_lifetime="0.5", breakpoints="request")
    # the prefix has expired before each request: nothing is read; without breakpoints Anthropic caches nothing
    assert (cache["read / request (est.)"] == "0").all()
    assert cache.loc["anthropic:claude-sonnet-4-5", "written / request (est.)"] == "0"
    at.slider(key="cost_cached").set_value(0.5)
    at.button(key="cost_go").click().run()
    assert not at.exception
    cache = at.dataframe[1].value.set_index("model")
    assert cache.loc["openai:gpt-4.1", "rule is"] == "your figure"  # the share overrides every rule


@pytest.mark.slow  # an AppTest run: over a second on a shared machine
def test_a_shared_prefix_refuses_what_it_cannot_price_in_the_pages_words():
    at = open_page(PAGE)
    at.text_input(key="cost_per_lifetime").set_value("10")
    at.button(key="cost_go").click().run()
    assert not at.exception
    assert any("give a system prompt or tools" in w.value for w in at.warning)
    at.text_area(key="cost_tools").set_value("[{\"type\": \"function\"")
    at.button(key="cost_go").click().run()
    assert any("Tools must be JSON" in e.value for e in at.error)
    at.text_input(key="cost_per_lifetime").set_value("0")
    at.button(key="cost_go").click().run()
    assert any("Requests per cache lifetime must be above 0" in e.value for e in at.error)


@pytest.mark.slow  # an AppTest run: over a second on a shared machine
def test_a_link_carries_the_shared_prefix_and_names_a_bad_value():
    import json

    from tests.dashboards.conftest import as_read, open_link

    settings = {"cost_system": "Answer in French.", "cost_tools": json.dumps(TOOLS), "cost_per_lifetime": "4",
                "cost_breakpoints": "auto", "cost_models": ["openai:gpt-4o-mini"]}
    at = open_link(PAGE, settings)
    assert not [w for w in at.warning if "link" in w.value]
    assert at.text_area(key="cost_system").value == "Answer in French."
    assert json.loads(at.text_area(key="cost_tools").value) == TOOLS
    assert at.text_input(key="cost_per_lifetime").value == "4"
    assert at.selectbox(key="cost_breakpoints").value == "auto"
    # an edited system prompt goes into the link once the form is sent
    at.text_area(key="cost_system").set_value("Answer in Norwegian.")
    at.button(key="cost_go").click().run()
    assert at.query_params["cost_system"] in ("Answer in Norwegian.", ["Answer in Norwegian."])
    for name, value, said in (("cost_per_lifetime", "0", "must be above 0"), ("cost_breakpoints", "always",
                              "is not one of the cache breakpoint modes"), ("cost_tools", "[1]", "must be OpenAI's tools list"),
                              ("cost_system", "x" * 2_001, "characters long")):
        at = open_link(PAGE, {name: value})
        assert any(f"'{name}'" in as_read(w.value) and said in as_read(w.value) for w in at.warning), (name, [
            w.value for w in at.warning])


@pytest.mark.slow  # two AppTest runs with uploads: about 15 s on a shared machine
def test_an_uploaded_export_names_an_unknown_model_and_the_rows_that_differ():
    """An export in the log view: the headline says re-priced, an unknown model is a warning, never $0."""
    from pathlib import Path

    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "export_logs"
    at = open_page(PAGE)
    at.segmented_control(key="cost_source").set_value("Chat log").run()
    log = fixtures / "litellm-35913-unknown-model.csv"
    at.file_uploader(key="cost_log").set_value((log.name, log.read_bytes(), "text/csv"))
    at.multiselect(key="cost_log_models").set_value(["openai:gpt-4o-mini"]).run()
    assert not at.exception, at.exception
    assert any("re-priced, not recounted" in m.value and "acme-internal-router-v7" in m.value for m in at.markdown)
    assert any("acme-internal-router-v7" in w.value and "37,400,000 tokens" in w.value for w in at.warning)
    models = at.dataframe[0].value.set_index("model")
    assert models.loc["acme-internal-router-v7", "as billed (USD)"].startswith("not priced")
    log = fixtures / "langfuse-10592-cached-twice.jsonl"
    at.file_uploader(key="cost_log").set_value((log.name, log.read_bytes(), "application/jsonl")).run()
    assert not at.exception, at.exception
    differ = at.dataframe[1].value
    assert "counted twice" in differ.loc[0, "why"]
