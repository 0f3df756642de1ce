"""Real-browser tests: `streamlit run` plus headless Chromium, one server for the module.

AppTest (the other tests here) runs the scripts without a browser; these check what a user gets:
the first text box has focus, Ctrl+Enter counts without reloading the page and so does a pause in
typing (counts as you type), a deep link
opens with the expected counts, a chart's tooltip tells the exact value, and no request the
page makes leaves the machine. They need Debian's `chromium` and the `playwright` package;
without them they are skipped, except under CI (CI set), where they fail so that a broken
setup is not mistaken for a pass.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

from analysis import load_tokenizer
from analysis.requests import input_tokens, parse
from dashboards import chat, shared
from tests.dashboards import browser

TEXT = "Tokenizers cut text into pieces: 2024 costs one token, ２０２４ more.\n    indented()  \n"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(page, base URL, every URL the browser requested) for the whole module."""
    requested: list[str] = []
    with browser.served_page(tmp_path_factory.mktemp("browser"), height=1600) as (page, url):
        page.context.on("request", lambda request: requested.append(request.url))
        page.on("websocket", lambda ws: requested.append(ws.url))
        yield page, url, requested


def _counts_table(page) -> dict[str, dict[str, str]]:
    table = page.locator('[data-testid="stTable"]').first
    header = [c.inner_text().strip() for c in table.locator("thead th").all()]
    rows = {}
    for r in table.locator("tbody tr").all():
        cells = [c.inner_text().strip() for c in r.locator("td, th").all()]
        rows[cells[0]] = dict(zip(header, cells))
    return rows


def _compact_counts(page) -> dict[str, dict[str, str]]:
    """Compare's compact counts: tokenizer -> {n_tokens, chars_per_token}, as shown."""
    rows = {}
    for r in page.locator(".st-key-counts .tp-counts div:not(.tp-head)").all():
        name, n, cpt = (c.inner_text().strip() for c in r.locator("span").all())
        rows[name] = {"n_tokens": n, "chars_per_token": cpt}
    return rows


def _n(name: str, text: str) -> int:
    return len(load_tokenizer(name).encode(text))


def test_compare_keyboard_flow_counts_without_reloading(served, tmp_path):
    page, url, _ = served
    page.goto(url)
    area = page.locator('[data-testid="stTextArea"] textarea')
    area.wait_for(timeout=90_000)
    browser.wait_idle(page)
    # focus starts in the text box: typing goes straight in
    page.wait_for_function("() => document.activeElement && document.activeElement.tagName === 'TEXTAREA'",
                           timeout=10_000)
    page.evaluate("() => { window.__tpSamePage = true; }")  # gone if the page reloads
    page.keyboard.press("Control+A")
    page.keyboard.type(TEXT)
    page.keyboard.press("Control+Enter")  # a text area sends its value on Ctrl+Enter (or on blur)

    n = _n("o200k_base", TEXT)
    page.get_by_text(f"o200k_base · {n} tokens").first.wait_for(timeout=90_000)
    browser.wait_idle(page)
    assert page.evaluate("() => window.__tpSamePage === true"), "the page reloaded"
    rows = _compact_counts(page)
    assert rows["o200k_base"]["n_tokens"] == str(n), rows
    assert rows["cl100k_base"]["n_tokens"] == str(_n("cl100k_base", TEXT)), rows

    drawing = page.locator("div.tp-text").first
    spans = drawing.locator("span.tp-tok")
    assert spans.count() == n
    assert spans.first.get_attribute("title").startswith("id ")  # hover shows id and bytes
    assert "·" in drawing.inner_text()  # spaces made visible
    # the URL now holds the text: the Copy link control shows it
    assert urlsplit(page.url).query
    # counts as you type: no Ctrl+Enter, no blur; a pause in typing sends the text, the box keeps focus
    page.locator('[data-testid="stTextArea"] textarea').click()
    page.keyboard.press("Control+End")
    page.keyboard.type(" 12345")
    typed = TEXT + " 12345"
    page.locator(f'.tp-counts[data-chars="{len(typed)}"]').wait_for(state="attached", timeout=60_000)
    browser.wait_idle(page)
    assert _compact_counts(page)["gpt2"]["n_tokens"] == str(_n("gpt2", typed))
    assert page.evaluate("() => document.activeElement && document.activeElement.tagName === 'TEXTAREA'")
    assert page.locator('[data-testid="stTextArea"] textarea').input_value() == typed
    # a keystroke reruns the first screen alone (its counts first), then the page follows it: the
    # model's count below is the typed text's, and so is the link
    model = shared.model_choices()[0]
    want = input_tokens(parse(typed), model).input_tokens
    assert want != input_tokens(parse(TEXT), model).input_tokens
    metric = page.locator('[data-testid="stMetric"]', has_text="Input tokens")
    metric.locator('[data-testid="stMetricValue"]', has_text=re.compile(rf"^{want:,}$")).wait_for(timeout=60_000)
    page.wait_for_function("(t) => new URL(location.href).searchParams.get('text') === t", arg=typed, timeout=10_000)
    out = Path(os.environ.get("TOKENPRISM_SCREENSHOT_DIR", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / "browser-compare.png"))


def test_deep_link_opens_with_the_expected_counts(served):
    page, url, _ = served
    text = "Deep links reopen a view: 31415926535 tokens?"
    query = urlencode([("text", text), ("tokenizers", "o200k_base"), ("tokenizers", "gpt2")])
    page.goto(f"{url}/?{query}")
    n = _n("o200k_base", text)
    page.get_by_text(f"o200k_base · {n} tokens").first.wait_for(timeout=90_000)
    page.locator('.st-key-counts .tp-counts[data-rows="2"]').wait_for(state="attached", timeout=60_000)
    browser.wait_idle(page)
    rows = _compact_counts(page)
    assert set(rows) == {"o200k_base", "gpt2"}
    assert rows["gpt2"]["n_tokens"] == str(_n("gpt2", text))
    assert page.locator('[data-testid="stTextArea"] textarea').input_value() == text

    # Copy link gives a URL that, opened in a new tab (a new session), shows the same numbers
    page.get_by_role("button", name=re.compile("Copy link")).click()
    shown = page.locator('[data-testid="stPopoverBody"] [data-testid="stCode"] code').first
    shown.wait_for(timeout=10_000)
    link = shown.inner_text().strip()
    assert link.startswith(url), link
    assert "tokenizers=gpt2" in link, link
    other = page.context.new_page()
    try:
        other.goto(link)
        other.get_by_text(f"o200k_base · {n} tokens").first.wait_for(timeout=60_000)
        other.locator('.st-key-counts .tp-counts[data-rows="2"]').wait_for(state="attached", timeout=60_000)
        browser.wait_idle(other)
        assert _compact_counts(other) == rows
    finally:
        other.close()


TOOL = [{"type": "function", "function": {"name": "get_weather", "description": "Weather in a city.",
                                         "parameters": {"type": "object", "properties": {
                                             "city": {"type": "string", "description": "The city"}}}}}]


def _chat_counts(page) -> dict[str, dict[str, str]]:
    page.locator('[data-testid="stTable"]').first.locator("tbody tr").nth(len(chat.DEFAULT_MODELS) - 1).wait_for(
        timeout=60_000)
    return _counts_table(page)


def test_chat_mode_counts_greys_the_format_and_reopens_from_its_link(served, tmp_path):
    page, url, _ = served
    page.goto(url)
    page.locator('[data-testid="stTextArea"] textarea').wait_for(timeout=90_000)
    browser.wait_idle(page)
    page.get_by_role("radio", name="Chat", exact=True).click()  # the default chat: a system and a user message
    page.get_by_text("Tokens of the request").wait_for(timeout=90_000)
    browser.wait_idle(page)
    # add a tool definition by typing it, as a user does
    tools = page.get_by_role("textbox", name="Tools (optional, JSON)")
    tools.fill(json.dumps(TOOL))
    tools.press("Control+Enter")
    browser.wait_idle(page)
    body = {**chat.DEFAULT_CHAT, "tools": TOOL}
    page.wait_for_function("() => new URLSearchParams(location.search).has('chat')", timeout=30_000)
    rows = _chat_counts(page)
    assert list(rows) == list(chat.DEFAULT_MODELS)
    for model in chat.DEFAULT_MODELS:
        count = input_tokens(parse(body), model)
        assert rows[model]["input_tokens"] == str(count.input_tokens), (model, rows[model])
        bare = input_tokens(parse({**body, "tools": []}), model)  # the tools are a part of their own
        assert rows[model]["tool_tokens"] == str(count.input_tokens - bare.input_tokens), (model, rows[model])
        assert int(rows[model]["format_tokens"]) + int(rows[model]["tool_tokens"]) == count.format_tokens, \
            (model, rows[model])
        assert rows[model]["exactness"] == count.exactness
    # the exact formats are drawn token by token, the format's tokens greyed apart from the content
    exact = [m for m in chat.DEFAULT_MODELS if input_tokens(parse(body), m).ids is not None]
    prompts = page.locator("div.tp-prompt")
    assert prompts.count() == len(exact) >= 1
    first = input_tokens(parse(body), exact[0])
    assert prompts.first.locator("span.tp-fmt").count() == first.format_tokens
    assert prompts.first.locator("span.tp-tok").count() == first.input_tokens
    grey = prompts.first.locator("span.tp-fmt").first.evaluate("e => getComputedStyle(e).color")
    content = prompts.first.locator("span.tp-t0").first.evaluate("e => getComputedStyle(e).color")
    assert grey != content, (grey, content)  # drawn apart: greyed text
    out = Path(os.environ.get("TOKENPRISM_SCREENSHOT_DIR", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / "browser-compare-chat.png"), full_page=True)

    # the deep link (Copy link) reopens the same chat, tools and models in a new session
    page.get_by_role("button", name=re.compile("Copy link")).click()
    shown = page.locator('[data-testid="stPopoverBody"] [data-testid="stCode"] code').first
    shown.wait_for(timeout=10_000)
    link = shown.inner_text().strip()
    assert "mode=Chat" in link and "chat=" in link, link
    other = page.context.new_page()
    try:
        other.goto(link)
        other.get_by_text("Tokens of the request").wait_for(timeout=90_000)
        browser.wait_idle(other)
        assert _chat_counts(other) == rows
        assert other.locator("div.tp-prompt").first.locator("span.tp-fmt").count() == first.format_tokens
        assert json.loads(other.get_by_role("textbox", name="Tools (optional, JSON)").input_value()) == TOOL
    finally:
        other.close()


def _hover_until_tooltip(page, chart) -> str:
    """Move the mouse over a chart, row by row, until Vega's tooltip shows; return its text."""
    box = chart.bounding_box()
    assert box, "the chart is not drawn"
    tooltip = page.locator("#vg-tooltip-element")
    for fx in (0.25, 0.35, 0.15):
        for y in range(int(box["y"]) + 4, int(box["y"] + box["height"]) - 4, 6):
            page.mouse.move(box["x"] + box["width"] * fx, y)
            if tooltip.count() and "visible" in (tooltip.get_attribute("class") or ""):
                return tooltip.inner_text()
    raise AssertionError("no tooltip appeared over the chart")


def test_hovering_a_bar_shows_its_exact_value(served):
    page, url, _ = served
    number = "31415926535"
    page.goto(f"{url}/why?why_number={number}")
    chart = page.locator('[data-testid="stVegaLiteChart"]').first
    chart.wait_for(timeout=90_000)
    browser.wait_idle(page)
    page.wait_for_timeout(500)  # Vega finishes drawing
    text = _hover_until_tooltip(page, chart.locator("canvas, svg").first)
    found = re.search(r"tokenizer\s+(\S+)", text)
    assert found, text
    name = found.group(1)
    assert re.search(rf"tokens\s+{_n(name, number)}\b", text), text
    assert number in text


def test_no_request_leaves_the_machine(served):
    """Every page opened here loads only from the dashboard's own server (no CDN, no telemetry)."""
    page, url, requested = served
    # Compare and Why (with its Vega charts) were opened by the tests above; Explore's first
    # visit measures every corpus (slow) and draws the same kind of charts as Why.
    for path in ("cost", "bpe_lab?lab_merges=5"):
        page.goto(f"{url}/{path}")
        page.locator('[data-testid="stMainBlockContainer"]').wait_for(timeout=90_000)
        browser.wait_idle(page, 120_000)
    page.wait_for_timeout(500)
    assert any("/_stcore/stream" in u for u in requested)  # the websocket was seen too
    own = urlsplit(url).netloc
    hosts = {urlsplit(u).netloc for u in requested if urlsplit(u).scheme in ("http", "https", "ws", "wss")}
    assert requested, f"requests to other hosts: {sorted(hosts - {own})}"
    assert hosts == {own}, f"requests to other hosts: {sorted(hosts - {own})}"
