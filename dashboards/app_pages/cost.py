"""Cost: a workload form (or an uploaded chat log) -> cost per model (table, charts) and a downloadable report."""

import json

import streamlit as st

from analysis.textio.lines import UPLOAD_BOUNDS
from analysis.textio import MAX_UPLOAD_BYTES, decode_upload, input_problem
from analysis.report import exports as render_exports, traffic as render_traffic
from analysis.cost.logs.export_bill import bill_of_rows
from analysis.cost.logs.export_files import EXPORT_SHAPES, detect_export
from analysis.cost.logs.exports import iter_export_rows
from analysis.report.cost import render_markdown, safe_table
from analysis.cost import (SHAPES, DEFAULT_MODELS, LogReport, LogUpload, format_usd, iter_log_records, plan_traffic,
                           price_records, summarise, with_count_exactness)
from analysis.report.tables import display_categories, display_models, model_notes
from analysis.cost.caching import REASONING_NOT_INCLUDED, reasoning_rule
from analysis.cost.shared_prefix import prefix_tools
from analysis.errors import REFUSALS, BadInput, UnknownName
from analysis.models import resolve
from dashboards import corpus_views, fields, links, shared

st.title("Cost")
st.caption("What a workload costs under each model: each request counted as `tokenprism count` counts it (the "
           "model's own tokenizer, or a named proxy marked ~, plus its chat format; exact, documented or estimate), "
           "priced from the maintained genai-prices data.")


def typed_models(key: str) -> list[str]:
    """Model ids typed as the CLI takes them (gpt-4o, openai:gpt-4o, an alias), each checked by the
    one resolver; an unknown id stops the page with the closest ids."""
    typed = st.text_input("More models, as ids (comma-separated: gpt-4o, openai:gpt-4o, claude-sonnet-4-5-20250929)",
                          key=key, bind="query-params",
                          help="Any id `tokenprism cost -m` accepts; an unknown id is refused with the closest ones.")
    ids = [m.strip() for m in typed.split(",") if m.strip()]
    for model in ids:
        try:
            resolve(model)
        except (UnknownName, BadInput) as e:
            st.error(str(e))
            st.stop()
    return ids


# The workload's number fields: (widget key, workload field, label), each read by the reader of the
# CLI flag of the same field (`cost --requests-per-month`...), in the form and in a link alike.
NUMBERS = {
    "requests": ("cost_rpm", "requests_per_month", "Requests per month"),
    "messages": ("cost_messages", "messages_per_request", "Chat messages per request"),
    "chars": ("cost_chars", "chars_per_request", "Characters per request (0: each text as it is)"),
    "out_tokens": ("cost_out_tokens", "output_tokens", "Output tokens per request"),
    "out_ratio": ("cost_out_ratio", "output_ratio", "Output / content tokens"),
    "reasoning": ("cost_reasoning", "reasoning_tokens", "Reasoning tokens per request (models that reason)"),
    "per_lifetime": ("cost_per_lifetime", "requests_per_lifetime", "Requests per cache lifetime"),
}
UNLINKED: set[str] = set()  # every field is in the link (the reasoning figure too: it changes the totals)
form_fields = fields.Fields()


def number(where, name: str, default: str, **kwargs):
    """The workload field `name` of NUMBERS in `where` (in the link unless UNLINKED)."""
    key, field, label = NUMBERS[name]
    return form_fields.number(where, label, key=key, default=default, read=fields.workload(field, label),
                              bind=name not in UNLINKED, **kwargs)


SOURCES = ["Paste a prompt", "Upload a file", "Built-in corpus", "Chat log"]
# genai-prices' variants of a price: (batch, service tier) for each choice of the Prices box
PRICES = {"standard": (False, None), "batch": (True, None), "flex tier": (False, "flex"),
          "priority tier": (False, "priority")}
PRICES_HELP = ("genai-prices' batch price or service-tier price (OpenAI's flex and priority), for every model: "
               "a model without that price is named, and is priced once you set standard or remove it.")

CATEGORIES = ["prose", "code", "multilingual"]
# where an Anthropic-style cache may write (`cost --cache-breakpoints`): a pasted text has no cache_control
BREAKPOINTS = {"request": "request: the request's own cache_control marks (a text has none, so nothing is cached)",
               "auto": "auto: after the system prompt and tools, and after the message"}


def reasoners(models: list[str]) -> str:
    """Which of `models` the reasoning figure applies to, worded the same whether it is given or not:
    those that always reason, and those that reason only when asked (their figure is 0 unless given)."""
    always: list[str] = []
    asked: list[str] = []
    for model in models:
        try:
            rule = reasoning_rule(resolve(model).price_ref or model)
        except (UnknownName, BadInput):
            continue
        if rule is not None:
            (asked if rule.optional else always).append(model)
    if not always and not asked:
        return "None of the models picked reasons: the figure changes nothing here."
    return " ".join(filter(None, [
        f"Always reason: {', '.join(always)}." if always else "",
        f"Reason only when asked (extended thinking; none unless a figure is given): {', '.join(asked)}." if asked
        else ""]))


def tools_value(text: str) -> object:
    """The shared tools box's JSON (OpenAI's `tools` list), checked as the request parser reads it;
    None when empty. Raises ValueError naming the problem."""
    if not text.strip():
        return None
    try:
        tools = json.loads(text)
        prefix_tools(tools)
    except json.JSONDecodeError as e:
        raise ValueError(f"Tools must be JSON ({e.msg} at line {e.lineno}, column {e.colno}): give OpenAI's "
                         '"tools" list, e.g. [{"type": "function", "function": {"name": "track", "parameters": {}}}]') from None
    except (BadInput, UnknownName) as e:
        raise ValueError(f"Tools must be OpenAI's tools list: {e.args[0] if e.args else e}") from None
    return tools
# -- link: ?cost_models=…&cost_rpm=… and the other workload inputs (each widget's key is its parameter)
links.check("cost", [
    links.Param("cost_models", "models with a price", choices=shared.model_choices, multi=True),
    *(links.Param(key, label, read=fields.workload(field, label))
      for name, (key, field, label) in NUMBERS.items() if name not in UNLINKED),
    links.Param("cost_out_mode", "output modes", choices=lambda: ["tokens per request", "ratio of input tokens"]),
    links.Param("cost_cached", "a share", number="float", low=0, high=1),
    # the rest of the form: where the requests come from (an upload stays out of links), which
    # built-in categories, and the typed model ids (the resolver refuses a wrong one on the page)
    links.Param("cost_source", "request sources", choices=lambda: SOURCES),
    links.Param("cost_categories", "built-in categories", choices=lambda: CATEGORIES, multi=True),
    links.Param("cost_model_ids", "model ids"),
    links.Param("cost_text", "a text", max_chars=links.LINK_MAX_TEXT),
    # the log view's settings (the log itself, an upload, stays out of links)
    links.Param("cost_log_models", "models with a price", choices=shared.model_choices, multi=True),
    links.Param("cost_log_model_ids", "model ids"),
    links.Param("cost_log_format", "log formats", choices=lambda: ["auto", *SHAPES, *EXPORT_SHAPES]),
    links.Param("cost_log_out", "Output tokens of rows without a logged response",
                read=fields.workload("output_tokens", "Output tokens of rows without a logged response")),
    links.Param("cost_log_cached", "a share", number="float", low=0, high=1),
    links.Param("cost_log_skip", "true or false", choices=lambda: ["true", "false"]),
    links.Param("cost_prices", "prices", choices=lambda: list(PRICES)),
    # the shared prefix: carried up to what a link carries, as the prompt is; the tools read as the parser reads them
    links.Param("cost_system", "a system prompt", max_chars=links.LINK_MAX_TEXT),
    links.Param("cost_tools", "Tools", max_chars=links.LINK_MAX_TEXT, read=tools_value),
    links.Param("cost_breakpoints", "cache breakpoint modes", choices=lambda: list(BREAKPOINTS)),
    links.Param("cost_log_prices", "prices", choices=lambda: list(PRICES)),
])
links.copy_link("cost", note=f"A pasted prompt is carried up to {links.LINK_MAX_TEXT:,} characters; an uploaded "
                             "file or log is not.")
source = st.segmented_control("Requests", SOURCES, default="Paste a prompt", key="cost_source", bind="query-params")


# The library names the Python argument that fixes a problem; on this page the fix is a control.
@st.cache_data(max_entries=4, show_spinner="Pricing the log under each model...")
def traffic_report(name: str, data: bytes, models: tuple[str, ...], shape: str, skip: bool, output_tokens: str,
                   cached: str, prices: str = "standard"):
    """The traffic report of an uploaded log (cached on the bytes and the settings)."""
    report = LogReport()
    records = iter_log_records(LogUpload(name, data), shape=shape, errors="skip" if skip else "strict", report=report,
                               bounds=UPLOAD_BOUNDS)
    batch, tier = PRICES[prices]
    # the slider at 0 leaves each model's own cache simulated (None); a share above 0 replaces it
    plan = plan_traffic(models, output_tokens=output_tokens, cached_share=cached if float(cached) else None,
                        batch=batch, service_tier=tier)
    partial = price_records(records, plan)
    if not partial.rows:
        raise ValueError(f"no request read from {name}: {report.summary()}")
    return summarise(partial, plan, report)


@st.cache_data(max_entries=4, show_spinner="Pricing the export...")
def export_bill(name: str, data: bytes, models: tuple[str, ...], shape: str, skip: bool):
    """The bill of an uploaded export (OTel, Langfuse, Helicone, LiteLLM, a usage or cost report)."""
    report = LogReport()
    rows = iter_export_rows(LogUpload(name, data), shape=shape, errors="skip" if skip else "strict", report=report,
                            bounds=UPLOAD_BOUNDS)
    try:
        bill = bill_of_rows(rows, targets=models)
    except BadInput as e:
        raise ValueError(f"{name}: {e} ({report.summary()})") from None
    return bill, report.summary()


def show_export(bill, summary: str) -> None:
    """An export's bill: the headline (re-priced or as billed), unknown models as warnings, the tools'
    own cost beside genai-prices', and the rows that differ with the part that explains them."""
    st.markdown(f"**{shared.page_words(bill.headline())}**")
    for warning in bill.warnings():
        st.warning(shared.page_words(warning))
    st.caption(f"Exactness: {bill.exactness}. Rows: {summary}. Prices: genai-prices on the logged usage.")
    st.dataframe(render_exports.models_frame(bill), hide_index=True, width="stretch", key="cost_export_models")
    if bill.differences:
        st.markdown("**Rows whose own cost differs from genai-prices' by more than 0.5%**")
        st.dataframe(render_exports.differences_frame(bill), hide_index=True, width="stretch", key="cost_export_diff")
    if bill.targets:
        st.markdown(f"**Re-priced per part under each model** ({bill.exactness}: no tokenizer saw these rows, no cache "
                    "was simulated)")
        st.dataframe({"model": list(bill.targets), "USD": ["not priced" if v is None else str(v)
                                                            for v in bill.targets.values()]},
                     hide_index=True, key="cost_export_targets")
    for note, n in bill.notes.most_common():
        st.caption(f"Note ({n:,} row(s)): {shared.page_words(note)}")
    st.download_button("Report (Markdown)", render_exports.render_markdown(bill), "tokenprism-export-report.md",
                       key="dl_export")


def _notes_and_downloads(traffic, heading: str, title: str, stem: str, csv_name: str, key: str) -> None:
    """A traffic report's notes (worded as this page's controls, the per-model ones apart: reasoning not
    included, each simulated cache's rule), then its HTML, Markdown and CSV downloads."""
    with st.expander(heading, expanded=True):
        st.markdown("\n".join(f"- {shared.page_words(n)}" for n in traffic.notes))
        per_model = render_traffic.model_notes(traffic)
        if per_model:
            st.markdown("**Per model**\n" + "\n".join(f"- {shared.page_words(n)}" for n in per_model))
    c1, c2, c3 = st.columns(3)
    c1.download_button(f"{title} (HTML, with charts)", render_traffic.render_html(traffic).encode("utf-8"),
                       f"{stem}.html", "text/html", key=f"{key}_html", icon=":material/download:")
    c2.download_button(f"{title} (Markdown)", render_traffic.render_markdown(traffic).encode("utf-8"),
                       f"{stem}.md", "text/markdown", key=f"{key}_md", icon=":material/download:")
    c3.download_button("Cost by model (CSV)", render_traffic.models_csv(traffic).encode("utf-8"), csv_name,
                       "text/csv", key=f"{key}_csv", icon=":material/download:")


def show_prefix(inputs, models: list[str]) -> None:
    """The workload's requests, each after the shared prefix, priced as `tokenprism cost TEXT --system S
    --requests-per-lifetime R` prices them: each model's cache by its own rule."""
    if not isinstance(inputs, str):
        st.warning("A shared prefix prices requests one by one, as `tokenprism cost TEXT --system S` does: paste a "
                   "prompt or upload a file (a corpus is priced with the share of input served from the cache).")
        st.stop()
    if int(messages) != 1 or chars:
        st.warning("With a shared prefix each request is counted as it is (a system prompt, the tools and the text "
                   "as one user message): set Chat messages per request to 1 and Characters per request to 0.")
        st.stop()
    try:
        traffic = shared.prefix_report(
            (inputs,), tuple(models), system=system, tools=tools_text, per_lifetime=str(per_lifetime)
            if per_lifetime is not None else None, breakpoints=breakpoints, requests=str(requests),
            output_tokens=str(out_tokens) if out_mode.startswith("tokens") else None,
            output_ratio=str(out_ratio) if out_mode.startswith("ratio") else None, cached=str(cached),
            reasoning=None if reasoning is None else str(reasoning), prices=PRICES[prices])
    except (ValueError, KeyError) as e:
        st.error(shared.page_words(str(e.args[0] if e.args else e)))
        st.stop()
    m = traffic.models
    priced = m[m["usd_per_month"].map(lambda v: v is not None)]
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Requests per month", f"{requests:,f}")
    if len(priced):
        cheap = priced.loc[priced["usd_per_month"].map(float).idxmin()]
        dear = priced.loc[priced["usd_per_month"].map(float).idxmax()]
        c2.metric("Cheapest per month", format_usd(cheap["usd_per_month"]), cheap["model"], delta_color="off",
                  delta_arrow="off")
        c3.metric("Dearest per month", format_usd(dear["usd_per_month"]), dear["model"], delta_color="off",
                  delta_arrow="off")
    c4.metric("Estimates (proxy tokenizer, format or cache)", int((m["exactness"] == "estimate").sum()))
    st.caption(f"Prices: {traffic.price_source}, in force on {traffic.on} (UTC). Requests: {traffic.log_summary}, "
               "each counted under each model as `tokenprism count` counts it, its prompt cache simulated by the "
               "model's own rule.")
    unknown = m.loc[m["reasoning_source"] == REASONING_NOT_INCLUDED, "model"].tolist()
    if unknown:
        st.warning(f"{REASONING_NOT_INCLUDED.capitalize()} for {', '.join(unknown)}: they bill their reasoning as "
                   "output tokens, so their cost here is understated. Give reasoning tokens per request in the workload.")
    st.dataframe(shared.money_first(render_traffic.display_models(traffic)), hide_index=True, width="stretch",
                 key="cost_prefix_models")
    st.markdown("**Prompt cache by model** — each model's own rule (documented by the provider, or an estimate "
                "where the provider does not say), simulated over the requests: an estimate")
    st.dataframe(render_traffic.display_cache(traffic), hide_index=True, width="stretch", key="cost_prefix_cache")
    shared.cost_chart("traffic_total_bar", m, "usd_total")
    _notes_and_downloads(traffic, "Notes: exactness, the cache, reasoning", "Report", "tokenprism-cost-report",
                         "cost_by_model.csv", "dl_prefix")


if source == "Chat log":
    st.caption("Each row of the log is one request: OpenAI Chat Completions bodies, OpenAI Batch input lines, "
               "Anthropic Messages requests (JSONL, optionally gzip), CSV/Parquet with a `messages` column, or text "
               "with one request per line. Every request is recounted in each model's own tokenizer.")
    log = st.file_uploader(f"Chat log (up to {MAX_UPLOAD_BYTES // 1_000_000} MB)", key="cost_log",
                           type=["jsonl", "json", "gz", "csv", "parquet", "txt"])
    models = st.multiselect("Models", shared.model_choices(), default=list(DEFAULT_MODELS[:6]), key="cost_log_models",
                            bind="query-params")
    models = list(dict.fromkeys([*models, *typed_models("cost_log_model_ids")]))
    c1, c2, c3, c4 = st.columns(4)
    shape = c1.selectbox("Log format", ("auto",) + SHAPES + EXPORT_SHAPES, key="cost_log_format", bind="query-params")
    log_fields = fields.Fields()
    out_tokens = log_fields.number(c2, "Output tokens of rows without a logged response", key="cost_log_out",
                                   default="300",
                                   read=fields.workload("output_tokens", "Output tokens of rows without a logged response"))
    cached = c3.slider("Share of input served from the prompt cache", 0.0, 1.0, 0.0, step=0.05, key="cost_log_cached", bind="query-params",
                       help="0: each model's own prompt-cache rule is simulated over the log's requests in time order "
                            "(an estimate, named in the table's cache column and the notes); above 0, this flat share "
                            "replaces the simulation")
    skip = c4.checkbox("Skip malformed rows (and count them)", key="cost_log_skip", bind="query-params")
    log_prices = c4.selectbox("Prices", list(PRICES), key="cost_log_prices", bind="query-params", help=PRICES_HELP)
    log_fields.stop_if_unread()
    if log is None:
        st.info("Upload a chat log to price last month's traffic under each model.")
        st.stop()
    if log.size > MAX_UPLOAD_BYTES:
        st.error(f"{log.name} is {log.size:,} bytes; the limit here is {MAX_UPLOAD_BYTES:,}. Price bigger logs with "
                 "the CLI: tokenprism cost --logs FILE -m MODELS")
        st.stop()
    if not models:
        st.warning("Pick at least one model.")
        st.stop()
    if shape in EXPORT_SHAPES or (shape == "auto" and detect_export(LogUpload(log.name, log.getvalue())) is not None):
        try:
            bill, summary = export_bill(log.name, log.getvalue(), tuple(models), shape, skip)
        except (ValueError, KeyError) as e:
            st.error(shared.page_words(e.args[0] if e.args else str(e)))
            st.stop()
        show_export(bill, summary)
        st.stop()
    try:
        traffic = traffic_report(log.name, log.getvalue(), tuple(models), shape, skip, str(out_tokens), str(cached),
                                 log_prices)
    except REFUSALS as e:  # the library's refusals, as the CLI's exit 2: the message names the fix
        st.error(shared.page_words(str(e)))
        st.stop()
    except Exception as e:  # anything else is a bug: one line, as the CLI says it, not a traceback
        st.error(f"Internal error ({type(e).__name__}) while pricing {log.name}: this is a bug in tokenprism, not in "
                 "your log. Price it with the CLI (tokenprism cost --logs FILE) to see where.")
        st.stop()
    st.caption(f"Prices: {traffic.price_source}, in force on {traffic.on} (UTC). Log: {traffic.log_summary}. "
               "Each request is **recounted** under each model as `tokenprism count` counts it (exactness per model).")
    if traffic.billed_line():
        st.markdown(f"**{shared.billed_headline(traffic)}**")
    st.dataframe(shared.money_first(render_traffic.display_models(traffic)), hide_index=True, width="stretch",
                 key="cost_log_models_table")
    with st.expander("Prompt cache by model: each model's rule, documented or an estimate"):
        st.dataframe(render_traffic.display_cache(traffic), hide_index=True, width="stretch", key="cost_log_cache")
    shared.cost_chart("traffic_total_bar", traffic.models, "usd_total")
    if not traffic.days.empty:
        shared.cost_chart("traffic_cost_per_day", traffic.days)
    if "n_billed" in traffic.served and traffic.served["n_billed"].notna().any():
        st.markdown("**As billed** — the logged usage at the serving model's price, beside our recount of those rows")
        st.dataframe(render_traffic.display_billed(traffic), hide_index=True, width="stretch")
    if not traffic.days.empty:
        st.markdown("**Cost per day**")
        st.dataframe(render_traffic.display_days(traffic), hide_index=True, width="stretch")
    st.markdown("**Calibration** — our recount against the provider's logged usage, on the model that served each row")
    if traffic.calibration.empty:
        st.info("No row carries provider usage for a model we can count, so there is nothing to calibrate against.")
    else:
        st.dataframe(render_traffic.display_calibration(traffic), hide_index=True, width="stretch")
        st.dataframe(render_traffic.display_worst_rows(traffic), hide_index=True, width="stretch")
    _notes_and_downloads(traffic, "Notes: exactness, what is not counted", "Traffic report",
                         "tokenprism-traffic-report", "traffic_by_model.csv", "dl_traffic")
    st.stop()

if source == "Upload a file":
    upload = st.file_uploader("One request's text (UTF-8)", key="cost_upload")
    if upload is None:
        st.info("Upload the text of a typical request, or paste one.")
        st.stop()
    try:
        inputs, _ = decode_upload(upload.getvalue(), upload.name)
    except ValueError as e:
        st.error(str(e))
        st.stop()
    if input_problem(inputs):  # the same character limit as a pasted prompt
        st.warning(input_problem(inputs))
        st.stop()
elif source == "Built-in corpus":
    categories = st.multiselect("Categories (each sample is one request)", CATEGORIES,
                                default=["prose", "code"], key="cost_categories", bind="query-params")
    if not categories:
        st.warning("Pick at least one category.")
        st.stop()
    inputs = corpus_views.builtin_samples().pipe(lambda d: d[d["category"].isin(categories)])
else:
    st.session_state.setdefault("cost_text", shared.sample_text())  # the default, where a link sets none
    links.linked_text("cost_text", "cost_text")  # a link's prompt, up to what a link carries
    inputs = st.text_area("One request's text (the prompt)", height=140, key="cost_text")
    links.sync_text("cost_text", inputs, shared.sample_text())
    problem = input_problem(inputs)
    if problem:
        st.warning(problem)
        st.stop()

models = st.multiselect("Models", shared.model_choices(), default=list(DEFAULT_MODELS), key="cost_models", bind="query-params",
                        help="Type to search every model with a price (provider:model).")
models = list(dict.fromkeys([*models, *typed_models("cost_model_ids")]))
with st.form("workload"):
    st.markdown("**Workload**")
    c1, c2, c3 = st.columns(3)
    requests = number(c1, "requests", "100000")
    messages = number(c2, "messages", "1",
                      help="1: the text as one user message, counted as `tokenprism count` counts it. N > 1: "
                           "the chat format of N turns (an estimate). 0: the raw text, no chat format.")
    chars = number(c3, "chars", "0", help="Scale each text to this length, keeping its tokens per character.")
    c1, c2, c3 = st.columns(3)
    out_mode = c1.radio("Output", ["tokens per request", "ratio of input tokens"], key="cost_out_mode", bind="query-params",
                        format_func=lambda m: "ratio of content tokens" if m == "ratio of input tokens" else m)  # the value stays: old links
    out_tokens = number(c2, "out_tokens", "300")
    out_ratio = number(c2, "out_ratio", "0.5",
                       help="Output tokens per content token: the request's text, not the chat format's tokens.")
    cached = c3.slider("Share of input served from the prompt cache", 0.0, 1.0, 0.0, step=0.05, key="cost_cached", bind="query-params")
    reasoning = number(c3, "reasoning", "", optional=True, placeholder="not given",
                       help="Reasoning models (o3, gpt-5, Gemini 2.5...) bill their reasoning as output "
                            "tokens, which no text shows. Left empty, their rows say 'reasoning not included'.")
    c3.caption(reasoners(models))
    prices = c1.selectbox("Prices", list(PRICES), key="cost_prices", bind="query-params", help=PRICES_HELP)
    st.markdown("**Shared prefix** — a system prompt and tools every request begins with, cached on each model by "
                "its own prompt-cache rule (the share above, when above 0, overrides every rule)")
    c1, c2 = st.columns(2)
    links.linked_text("cost_system", "cost_system")
    system = c1.text_area("System prompt shared by every request", height=110, key="cost_system",
                          placeholder="none: the text alone, priced with the share above")
    links.linked_text("cost_tools", "cost_tools")
    tools_text = c2.text_area("Tools shared by every request (OpenAI's tools JSON list)", height=110, key="cost_tools",
                              placeholder='[{"type": "function", "function": {"name": "track", "parameters": {}}}]')
    c1, c2 = st.columns(2)
    per_lifetime = number(c1, "per_lifetime", "", optional=True, placeholder="one burst",
                          help="How many requests come in each model's cache lifetime (its rule's TTL: 5 minutes on "
                               "OpenAI and Anthropic, an hour on DeepSeek), as a stream already running: at 1 or more "
                               "the prefix is read from the cache, below 1 it has expired. Empty: the request(s) "
                               "form one burst, the first writing the cache.")
    # the options are the link's values (a bound selectbox matches the URL against what it shows)
    breakpoints = c2.selectbox("Anthropic cache breakpoints", list(BREAKPOINTS), key="cost_breakpoints",
                               bind="query-params",
                               help="Anthropic caches only at cache_control breakpoints (`--cache-breakpoints`): "
                                    + "; ".join(BREAKPOINTS.values()) + ".")
    st.form_submit_button("Estimate", type="primary", key="cost_go")
form_fields.stop_if_unread()  # each refusal is beside its field; nothing is priced with a value not read
links.sync_text("cost_system", system, "")
links.sync_text("cost_tools", tools_text, "")
try:
    tools_value(tools_text)
except ValueError as e:
    st.error(str(e))
    st.stop()
shared_prefix = bool(system.strip() or tools_text.strip())
if not shared_prefix and (per_lifetime is not None or breakpoints != "request"):
    st.warning("Requests per cache lifetime and the Anthropic cache breakpoints simulate each model's cache over "
               "requests that share a prefix: give a system prompt or tools, or empty the one and set the other to none.")
    st.stop()

if not models:
    st.warning("Pick at least one model.")
    st.stop()
if shared_prefix:
    show_prefix(inputs, models)
    st.stop()
try:
    report = shared.cost_report(inputs, tuple(models), requests=requests, messages=int(messages), chars=chars or None,
                                output_tokens=out_tokens if out_mode.startswith("tokens") else None,
                                output_ratio=out_ratio if out_mode.startswith("ratio") else None, cached=str(cached),
                                reasoning=reasoning, prices=PRICES[prices])
except (ValueError, KeyError) as e:
    st.error(shared.page_words(str(e.args[0] if e.args else e)))
    st.stop()
# Each model's exactness is its count's, the word `tokenprism count` and the Compare page say for it
# (one word per model on every page); a reasoning model whose reasoning is not given says so in its
# own column, the warning below and the notes, not by another exactness word.
report = with_count_exactness(report)

priced = report.models[report.models["usd_per_month"].notna()]
c1, c2, c3, c4 = st.columns(4)
c1.metric("Requests per month", f"{report.workload.requests_per_month:,f}")  # as read: 1.5 is not 1
if len(priced):
    cheap = priced.loc[priced["usd_per_month"].idxmin()]
    dear = priced.loc[priced["usd_per_month"].idxmax()]
    c2.metric("Cheapest per month", format_usd(cheap["usd_per_month"]), cheap["model"], delta_color="off", delta_arrow="off")
    c3.metric("Dearest per month", format_usd(dear["usd_per_month"]), dear["model"], delta_color="off", delta_arrow="off")
c4.metric("Estimates (proxy tokenizer or format)", int((report.models["exactness"] == "estimate").sum()))
st.caption(f"Prices: {report.price_source}, in force on {report.on} (UTC). Workload: {report.workload.describe()}. "
           f"Input: {report.n_samples:,} request text(s), {report.n_chars:,} characters.")

unknown = report.models.loc[report.models["reasoning"] == REASONING_NOT_INCLUDED, "model"].tolist()
if unknown:
    st.warning(f"{REASONING_NOT_INCLUDED.capitalize()} for {', '.join(unknown)}: they bill their reasoning as output "
               "tokens, so their cost here is understated. Give reasoning tokens per request in the workload.")
st.dataframe(shared.money_first(display_models(report)), hide_index=True, width="stretch")
for tab, (plot, column) in zip(st.tabs(["Monthly cost by model", "Input cost vs characters per token"]),
                               (("monthly_cost_bar", "usd_per_month"), ("cost_vs_chars_per_token", "usd_per_mchar_input"))):
    with tab:
        shared.cost_chart(plot, report.models, column)
if len(report.categories):
    st.markdown("**By category** — the cost if every request were like this category")
    st.dataframe(display_categories(report), hide_index=True, width="stretch")
with st.expander("Notes: exactness, tiers", expanded=True):  # the fixes named as this page's fields
    st.markdown("\n".join(f"- {shared.page_words(n)}" for n in report.notes))
    per_model = model_notes(report)
    if per_model:
        st.markdown("\n".join(f"- {shared.page_words(n)}" for n in per_model))

c1, c2, c3 = st.columns(3)
c1.download_button("Report (HTML, with charts)", shared.cost_html(report), "tokenprism-cost-report.html", "text/html",
                   key="dl_cost_html", icon=":material/download:")
c2.download_button("Report (Markdown)", render_markdown(report).encode("utf-8"), "tokenprism-cost-report.md",
                   "text/markdown", key="dl_cost_md", icon=":material/download:")
c3.download_button("Cost by model (CSV)", safe_table(report.models).to_csv(index=False).encode("utf-8"), "cost_by_model.csv",
                   "text/csv", key="dl_cost_csv", icon=":material/download:")
