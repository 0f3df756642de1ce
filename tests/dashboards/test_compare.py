"""The Compare page under AppTest: widgets drive the numbers, and they are the library's numbers."""

from __future__ import annotations

import json
import re

import pytest

from analysis import available_tokenizers, load_tokenizer
from analysis.cli import main
from analysis.cost import format_usd, get_price, request_cost
from analysis.requests import input_tokens, parse
from analysis.compare import PARALLEL_CHARS, compare
from analysis.corpora import sample_text
from analysis.probes.boundaries import boundary_diff, diff_regions
from analysis.render import html_tokens
from analysis.textio import MAX_INPUT_CHARS
from dashboards import shared
from tests.dashboards.conftest import as_read, open_link, open_page

PAGE = "app_pages/compare.py"


def _counts(at) -> dict[str, int]:
    df = at.table[0].value
    return dict(zip(df["tokenizer"], df["n_tokens"]))


def test_default_text_counts_equal_the_library():
    at = open_page()  # Compare is the default page
    names = available_tokenizers()
    expected = compare(sample_text(), [load_tokenizer(n) for n in names])
    table = at.table[0].value
    assert list(table["tokenizer"]) == names
    assert list(table["n_tokens"]) == list(expected["n_tokens"])
    assert table["bytes_per_token"].round(9).tolist() == expected["bytes_per_token"].round(9).tolist()
    assert at.metric[0].value == f"{len(sample_text()):,}"


def test_typed_text_and_tokenizer_choice_drive_the_table():
    at = open_page(PAGE)
    at.multiselect(key="tokenizers").set_value(["gpt2", "o200k_base"])
    at.text_area(key="text").set_value("def f(x):\n    return x ** 2  \n").run()
    assert not at.exception
    counts = _counts(at)
    assert list(counts) == ["gpt2", "o200k_base"]
    for name, n in counts.items():
        assert n == len(load_tokenizer(name).encode("def f(x):\n    return x ** 2  \n"))
    # the drawing follows the text: one span per piece of the library's pieces()
    drawn = [h.proto.body for h in at.html if 'class="tp-text"' in h.proto.body]
    assert drawn[0].count('class="tp-tok') == len(load_tokenizer("o200k_base").pieces("def f(x):\n    return x ** 2  \n"))


def test_special_token_strings_are_flagged_as_plain_text():
    text = "Hello<|endoftext|>world"
    at = open_page(PAGE)
    at.multiselect(key="tokenizers").set_value(["cl100k_base"])
    at.text_area(key="text").set_value(text).run()
    assert any("counted as plain text" in w.value for w in at.warning)
    flagged = at.dataframe[0].value
    assert flagged.loc[0, "special"] == "<|endoftext|>"
    assert flagged.loc[0, "plain_tokens"] == len(load_tokenizer("cl100k_base").encode("<|endoftext|>")) > 1
    assert _counts(at)["cl100k_base"] == len(load_tokenizer("cl100k_base").encode(text))


@pytest.mark.parametrize("text, message", [("", "empty"), ("x" * (MAX_INPUT_CHARS + 1), "limit")])
def test_empty_and_oversized_text_get_a_message_not_an_exception(text, message):
    at = open_page(PAGE)
    at.text_area(key="text").set_value(text).run()
    assert not at.exception
    assert any(message in w.value for w in at.warning)
    assert not at.table  # nothing measured


def test_no_tokenizer_selected_is_a_message():
    at = open_page(PAGE)
    at.multiselect(key="tokenizers").set_value([]).run()
    assert not at.exception
    assert any("at least one tokenizer" in w.value for w in at.warning)


def test_upload_counts_the_file():
    at = open_page(PAGE)
    at.segmented_control(key="source").set_value("Upload a file").run()
    assert any("Upload a text file" in i.value for i in at.info)
    at.file_uploader(key="upload").set_value(("notes.txt", "naïve café — 2024\n".encode(), "text/plain")).run()
    at.multiselect(key="tokenizers").set_value(["o200k_base"]).run()
    assert not at.exception
    assert _counts(at) == {"o200k_base": len(load_tokenizer("o200k_base").encode("naïve café — 2024\n"))}


@pytest.mark.parametrize("data, message", [
    (b"\x89PNG\r\n\x1a\n\x00\x00", "PNG image"),
    (b"abc\x00def", "binary"),
    (b"caf\xe9", "not valid UTF-8"),
    (b"", "empty"),
])
def test_bad_uploads_get_a_clear_error(data, message):
    at = open_page(PAGE)
    at.segmented_control(key="source").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value(("f.bin", data, "application/octet-stream")).run()
    assert not at.exception
    assert any(message in e.value for e in at.error), [e.value for e in at.error]


def test_replace_invalid_bytes_checkbox_accepts_latin1():
    at = open_page(PAGE)
    at.segmented_control(key="source").set_value("Upload a file").run()
    at.checkbox(key="replace").check()
    at.file_uploader(key="upload").set_value(("f.txt", b"caf\xe9 au lait", "text/plain")).run()
    assert not at.exception
    assert any("replaced by U+FFFD" in w.value for w in at.warning)
    assert at.metric[0].value == str(len("caf\ufffd au lait"))


def test_token_list_toggle_shows_the_library_ids():
    at = open_page(PAGE)
    at.text_area(key="text").set_value("tokenization")
    at.multiselect(key="show").set_value(["cl100k_base"])
    at.toggle(key="show_ids").set_value(True).run()
    assert not at.exception
    ids = at.dataframe[-1].value["id"].tolist()
    assert ids == load_tokenizer("cl100k_base").encode("tokenization")


def _drawings(at) -> list[str]:
    """The side-by-side drawings (the first drawing on the page is the one tokenizer drawn at the top)."""
    return [h.proto.body for h in at.html if h.proto.body.startswith('<div class="tp-text">')][1:]


def test_the_first_screen_draws_one_tokenizer_a_colour_per_token_with_its_ids():
    text = "naïve 日本 tokens\t  x"
    at = open_page(PAGE)
    at.text_area(key="text").set_value(text)
    at.selectbox(key="draw").set_value("gpt2").run()
    assert not at.exception
    gpt2 = load_tokenizer("gpt2").pieces(text)
    top = next(h.proto.body for h in at.html if h.proto.body.startswith('<div class="tp-text">'))
    assert top == html_tokens(text, gpt2)
    classes = re.findall(r'class="tp-tok (tp-t\d|tp-partial)', top)
    assert len(classes) == len(gpt2)
    whole = [c for c in classes if c != "tp-partial"]
    assert len(set(whole)) > 2  # more than two shades
    # neighbours never share a colour (a partial token is framed, each in its own frame)
    assert all(a != b for a, b in zip(classes, classes[1:]) if "tp-partial" not in (a, b))
    assert "tp-partial" in classes and "&lt;0x" in top  # bytes for a partial character
    assert "·" in top and "→" in top  # visible whitespace
    ids = next(c.value for c in at.code if c.value.split(",")[0].strip().isdigit())
    assert [int(i) for i in ids.split(", ")] == load_tokenizer("gpt2").encode(text)
    # the compact counts: name, tokens, chars/token for every tokenizer picked
    compact = next(h.proto.body for h in at.html if 'class="tp-counts"' in h.proto.body)
    for name in available_tokenizers():
        n = len(load_tokenizer(name).encode(text))
        assert f"<span>{name}</span><span>{n:,}</span>" in compact


def test_side_by_side_rings_the_spans_not_shared_by_every_column_and_states_the_spread():
    text = "Internationalization 1234567"
    names = ["gpt2", "o200k_base", "cl100k_base"]
    ps = {n: load_tokenizer(n).pieces(text) for n in names}
    at = open_page(PAGE)
    at.text_area(key="text").set_value(text)
    at.multiselect(key="show").set_value(names).run()
    assert not at.exception
    drawn = _drawings(at)
    assert drawn == [html_tokens(text, ps[n], others=[ps[o] for o in names if o != n]) for n in names]
    for n, d in zip(names, drawn):  # ringed exactly where the span is missing from some other column
        others = [{(p.start, p.end) for p in ps[o]} for o in names if o != n]
        expected = sum(1 for p in ps[n] if not all((p.start, p.end) in s for s in others))
        assert d.count("tp-diff") == expected
    counts = {n: len(ps[n]) for n in names}
    low, high = min(counts.values()), max(counts.values())
    assert any(f"Spread: {low:,} tokens" in c.value and f"{high - low:,} tokens apart" in c.value for c in at.caption)
    # the regions table: the first against the partner, each cell's tokens one space apart
    diff = boundary_diff(ps["gpt2"], ps["o200k_base"])
    assert any(f"boundary agreement {diff.agreement:.0%}" in m.value for m in at.markdown)
    regions = at.dataframe[-1].value
    expected = diff_regions(text, ps["gpt2"], ps["o200k_base"])
    assert regions["gpt2"].tolist() == expected["a"].tolist()
    at.selectbox(key="partner").set_value("cl100k_base").run()
    assert any("gpt2 and cl100k_base cut differently" in m.value for m in at.markdown)


def test_at_most_four_side_by_side():
    at = open_page(PAGE)
    assert at.multiselect(key="show").proto.max_selections == 4


def test_one_tokenizer_is_drawn_alone_without_marks():
    at = open_page(PAGE)
    at.text_area(key="text").set_value("tokenization")
    at.multiselect(key="show").set_value(["cl100k_base"]).run()
    assert not at.exception
    assert _drawings(at) == [html_tokens("tokenization", load_tokenizer("cl100k_base").pieces("tokenization"))]
    assert not any("cut differently" in m.value for m in at.markdown)


def test_no_tokenizer_to_draw_is_a_message():
    at = open_page(PAGE)
    at.multiselect(key="show").set_value([]).run()
    assert not at.exception
    assert any("Pick tokenizers to draw" in i.value for i in at.info)
    assert not _drawings(at)


# -- a chosen model: the text as one request, the number of `tokenprism count` ---------------------
def _cli_count(capsys, *argv: str) -> list[dict]:
    assert main(["count", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_a_chosen_model_shows_the_request_count_and_its_price(capsys):
    text = "Summarise this contract in three bullet points."
    at = open_page(PAGE)
    at.multiselect(key="tokenizers").set_value(["o200k_base"])
    at.selectbox(key="cost_model").set_value("openai:gpt-4o")
    at.text_area(key="text").set_value(text).run()
    assert not at.exception
    (row,) = _cli_count(capsys, text, "-m", "openai:gpt-4o")
    assert _metric(at, "Input tokens") == f"{row['input_tokens']:,}"
    assert _metric(at, "Content tokens") == f"{row['content_tokens']:,}"
    assert _metric(at, "Chat-format tokens") == f"{row['format_tokens']:,}"
    assert row["input_tokens"] > _counts(at)["o200k_base"]  # the chat format is counted, not the text alone
    usd = request_cost(get_price("openai:gpt-4o"), input_tokens=row["input_tokens"], output_tokens=0).usd_total
    assert _metric(at, "Input cost") == format_usd(usd)
    assert any(c.value.startswith("documented: OpenAI Cookbook") for c in at.caption)


def test_a_misspelt_model_is_refused_with_the_closest_ids():
    # The box accepts any typed id, as a link does (AppTest cannot type into it: it only picks options).
    at = open_link(PAGE, {"cost_model": "gpt-4oo"})
    (error,) = [as_read(e.value) for e in at.error]  # escaped: a link's id cannot add Markdown
    assert "unknown model 'gpt-4oo'" in error and "gpt-4o" in error
    assert not [m for m in at.metric if m.label == "Input tokens"]
    at = open_link(PAGE, {"cost_model": "claude-sonet-4-5"})
    assert any("claude-sonet-4-5" in as_read(e.value) and "claude-sonnet-4-5" in as_read(e.value) for e in at.error)
    assert at.table  # the tokenizer counts still show


# -- Chat mode --------------------------------------------------------------------------------------
CHAT = {"messages": [{"role": "system", "content": "Be brief."},
                     {"role": "user", "name": "ann", "content": "How many tokens is «this»?"}]}


def _chat_link(chat=CHAT, models=("gpt-4o", "qwen3-32b")) -> dict:
    return {"mode": "Chat", "chat": json.dumps(chat), "chat_models": list(models)}


def test_chat_mode_counts_each_model_as_tokenprism_count_does(tmp_path, capsys):
    at = open_link(PAGE, _chat_link(models=("gpt-4o", "qwen3-32b", "claude-sonnet-4-5")))
    assert not at.error
    shown = {r["model"]: r for r in at.table[0].value.to_dict("records")}
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(CHAT), encoding="utf-8")
    for row in _cli_count(capsys, "--messages", str(path), "-m", "gpt-4o,qwen3-32b,claude-sonnet-4-5"):
        mine = shown[row["model"]]
        for key in ("input_tokens", "content_tokens", "format_tokens", "exactness"):
            assert mine[key] == row[key], (row["model"], key)
        # the tokenizer as the CLI names it, ~ for a proxy (Claude's counts use a proxy vocabulary)
        assert mine["tokenizer"] == row["tokenizer"], row
        assert mine["tokenizer"].startswith("~") == row["model"].startswith("claude"), row
    assert {shown[m]["exactness"] for m in shown} == {"documented", "exact", "estimate"}


def test_chat_mode_draws_the_format_tokens_apart():
    at = open_link(PAGE, _chat_link(models=("qwen3-32b", "gpt-4o")))
    count = input_tokens(parse(CHAT), "qwen3-32b")
    drawn = [h.proto.body for h in at.html if "tp-prompt" in h.proto.body]
    assert len(drawn) == 1  # qwen3 is rendered id for id; gpt-4o's format is a counted number
    assert drawn[0].count('class="tp-tok tp-fmt"') == count.format_tokens
    assert drawn[0].count('class="tp-tok') == count.input_tokens
    assert "&lt;|im_start|&gt;" in drawn[0]
    gpt = input_tokens(parse(CHAT), "gpt-4o")
    assert any(f"Chat format: +{gpt.format_tokens} tokens, counted (documented)" in c.value for c in at.caption)


def test_chat_mode_tools_and_refusals():
    chat = {**CHAT, "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather.",
                                                                "parameters": {"type": "object", "properties": {
                                                                    "city": {"type": "string", "description": "A city"}}}}}]}
    at = open_link(PAGE, _chat_link(chat, models=("gpt-4o",)))
    shown = at.table[0].value.to_dict("records")[0]
    assert shown["input_tokens"] == input_tokens(parse(chat), "gpt-4o").input_tokens
    # the tools are a part of their own (issue 46), beside the format's tokens without them
    assert shown["format_tokens"] == input_tokens(parse(CHAT), "gpt-4o").format_tokens
    assert shown["tool_tokens"] == shown["input_tokens"] - input_tokens(parse(CHAT), "gpt-4o").input_tokens > 0
    at.text_area(key="chat_tools").set_value("[{not json").run()
    assert any("the tools: not JSON" in as_read(e.value) for e in at.error)
    at = open_link(PAGE, _chat_link(models=("gpt-4oo", "gpt-4o")))
    assert any("unknown model 'gpt-4oo'" in as_read(e.value) and "gpt-4o" in as_read(e.value) for e in at.error)
    assert list(at.table[0].value["model"]) == ["gpt-4o"]  # the known model is still counted
    at = open_link(PAGE, {"mode": "Chat", "chat": "{broken"})
    assert any("could not be read" in w.value for w in at.warning) and at.table


def test_the_chat_editor_rows_become_an_openai_chat_body():
    import pandas as pd

    from dashboards.chat import request_body

    rows = pd.DataFrame([{"role": "system", "name": None, "content": "Be brief."},
                         {"role": "user", "name": float("nan"), "content": "Hi"},  # a new row's blank cell
                         {"role": "assistant", "name": " bot ", "content": ""},
                         {"role": None, "name": None, "content": None}],  # an added row left empty
                        columns=["role", "name", "content"]).astype("object")
    body = request_body(rows, '[{"type": "function", "function": {"name": "f"}}]')
    assert body == {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
                                 {"role": "assistant", "content": "", "name": " bot "}],
                    "tools": [{"type": "function", "function": {"name": "f"}}]}
    assert input_tokens(parse(body), "gpt-4o").input_tokens > 0
    with pytest.raises(ValueError, match="the tools: not JSON"):
        request_body(rows, "[{")


@pytest.mark.parametrize("length", [600, PARALLEL_CHARS + 1])  # counted one by one; in threads, one per core
def test_the_counts_come_one_row_at_a_time_in_the_order_picked(length):
    text = (sample_text() * (length // len(sample_text()) + 1))[:length]
    names = ["o200k_base", "gpt2", "ownbpe", "cl100k_base"]
    so_far = [list(rows) for rows in shared.count_rows(text, names)]
    assert [len(rows) for rows in so_far] == [1, 2, 3, 4]  # the table can be drawn after each one
    assert all(rows == so_far[-1][: len(rows)] for rows in so_far)  # each a prefix of the last
    expected = compare(text, [load_tokenizer(n) for n in names])
    assert shared.counts_frame(so_far[-1]).to_dict("records") == expected.to_dict("records")


def test_the_rows_in_progress_read_as_the_finished_table():
    rows = list(shared.count_rows("naïve café, 2024!", ["gpt2", "o200k_base"]))[-1]
    html = shared.compact_counts(rows)
    cells = re.findall(r"<div><span>([^<]+)</span><span>([^<]+)</span><span>([^<]+)</span></div>", html)
    assert cells == [(r["tokenizer"], f"{r['n_tokens']:,}", f"{r['chars_per_token']:,.2f}") for r in rows]
    assert 'data-chars="17" data-rows="2"' in html
    nan = shared.compact_counts([{**rows[0], "n_tokens": 0, "chars_per_token": float("nan")}])
    assert "<span>0</span><span>—</span>" in nan  # NaN as the finished table shows it


def test_chat_mode_counts_a_dropped_image_by_its_real_size(tmp_path, capsys):
    from tests.analysis.requests.test_media import b64, jpeg, png

    at = open_link(PAGE, _chat_link(models=("gpt-4o", "claude-sonnet-4-5", "gemini-2.5-flash")))
    at.file_uploader(key="chat_images").set_value([("shot.png", png(1024, 1024), "image/png"),
                                                   ("photo.jpg", jpeg(1000, 1000), "image/jpeg")])
    at.segmented_control(key="chat_image_detail").set_value("high").run()
    assert not at.exception and not at.error
    shown = {r["model"]: r for r in at.table[0].value.to_dict("records")}
    # the same request with the images inline: `tokenprism count` reads their headers itself
    inline = json.loads(json.dumps(CHAT))
    inline["messages"][-1]["content"] = [{"type": "text", "text": CHAT["messages"][-1]["content"]}] + [
        {"type": "image_url", "image_url": {"url": f"data:{kind};base64," + b64(data), "detail": "high"}}
        for kind, data in (("image/png", png(1024, 1024)), ("image/jpeg", jpeg(1000, 1000)))]
    path = tmp_path / "vision.json"
    path.write_text(json.dumps(inline), encoding="utf-8")
    for row in _cli_count(capsys, "--messages", str(path), "-m", "gpt-4o,claude-sonnet-4-5,gemini-2.5-flash"):
        for key in ("input_tokens", "media_tokens", "exactness"):
            assert shown[row["model"]][key] == row[key], (row["model"], key)
    assert shown["gpt-4o"]["media_tokens"] == 765 + 765  # 1024x1024 and 1000x1000 at high: 4 tiles each
    assert shown["claude-sonnet-4-5"]["media_tokens"] == 1399 + 1334  # ceil(w x h / 750)
    parts = at.table[1].value
    assert set(parts["part"]) == {"image 1024x1024 detail high", "image 1000x1000 detail high"}
    assert len(parts) == 6 and set(parts["exactness"]) == {"documented"}
    at.file_uploader(key="chat_images").set_value([("notes.png", b"not an image", "image/png")]).run()
    assert any("notes.png: its size could not be read" in e.value for e in at.error)
    assert "media_tokens" in at.table[0].value and (at.table[0].value["media_tokens"] == 0).all()


def test_chat_mode_says_which_fields_a_format_does_not_write():
    # Qwen 3's template writes no message name: the page says so for qwen3, not for gpt-4o (the
    # Cookbook's rule counts the name), and the count without the name is indeed the same
    at = open_link(PAGE, _chat_link(models=("gpt-4o", "qwen3-32b")))
    notes = [as_read(c.value) for c in at.caption if "does not write" in as_read(c.value)]
    assert len(notes) == 1 and "qwen3-32b" in notes[0] and "the messages' name" in notes[0], notes
    nameless = {**CHAT, "messages": [{k: v for k, v in m.items() if k != "name"} for m in CHAT["messages"]]}
    assert input_tokens(parse(nameless), "qwen3-32b").ids == input_tokens(parse(CHAT), "qwen3-32b").ids
    assert input_tokens(parse(nameless), "gpt-4o").input_tokens != input_tokens(parse(CHAT), "gpt-4o").input_tokens


def test_a_problem_of_the_request_is_said_once_naming_the_models_it_stops():
    chat = {**CHAT, "tools": {"type": "function", "function": {"name": "f", "parameters": {}}}}  # an object, not a list
    models = ("gpt-4o", "qwen3-32b", "claude-sonnet-4-5")
    at = open_link(PAGE, _chat_link(chat, models=models))
    assert not at.exception
    said = [as_read(e.value) for e in at.error if "tools" in as_read(e.value)]
    assert len(said) == 1, said
    assert said[0].startswith(", ".join(models) + ":"), said


def test_image_tokens_are_whole_numbers():
    assert shared.whole_tokens(765.0) == "765" and shared.whole_tokens(None) == "not counted"


def test_media_a_model_does_not_count_reads_not_counted_in_the_chat_table(tmp_path, capsys):
    # deepseek-chat has no image rule: its media cell says so, as the media table and the CLI's
    # notes do, rather than a 0 that reads as an image of no tokens; gpt-4o's is the number
    from tests.analysis.requests.test_media import b64, png

    at = open_link(PAGE, _chat_link(models=("gpt-4o", "deepseek-chat")))
    at.file_uploader(key="chat_images").set_value([("shot.png", png(1024, 1024), "image/png")])
    at.segmented_control(key="chat_image_detail").set_value("high").run()
    assert not at.exception and not at.error
    shown = {r["model"]: r for r in at.table[0].value.to_dict("records")}
    inline = json.loads(json.dumps(CHAT))
    inline["messages"][-1]["content"] = [{"type": "text", "text": CHAT["messages"][-1]["content"]},
                                         {"type": "image_url", "image_url": {"url": "data:image/png;base64,"
                                                                             + b64(png(1024, 1024)), "detail": "high"}}]
    path = tmp_path / "vision.json"
    path.write_text(json.dumps(inline), encoding="utf-8")
    cli = {r["model"]: r for r in _cli_count(capsys, "--messages", str(path), "-m", "gpt-4o,deepseek-chat")}
    assert [line["tokens"] for line in cli["deepseek-chat"]["media"]] == [None]  # the product counts none
    assert shown["deepseek-chat"]["media_tokens"] == "not counted"
    assert shown["deepseek-chat"]["input_tokens"] == cli["deepseek-chat"]["input_tokens"]
    assert cli["gpt-4o"]["media_tokens"] == 765 and shown["gpt-4o"]["media_tokens"] == "765"  # one column, one type
    parts = {r["model"]: r["tokens"] for r in at.table[1].value.to_dict("records")}
    assert parts == {"gpt-4o": "765", "deepseek-chat": "not counted"}  # the lower table's words
    lines = [as_read(m.value) for m in at.markdown if "tokens =" in m.value]
    assert any(line.startswith("**deepseek-chat**") and "+ media not counted" in line for line in lines), lines
    assert any(line.startswith("**gpt-4o**") and "+ 765 media" in line for line in lines), lines


def test_the_media_cell_names_the_parts_left_out():
    from analysis.requests import Count
    from analysis.requests.formats.base import Rendered
    from analysis.requests.media import MediaLine
    from dashboards.chat import media_cell, media_words

    def count(*lines: MediaLine) -> Count:
        return Count("m", "t", None, Rendered(3, 1, "estimate", "why"), sum(x.tokens or 0 for x in lines), lines)

    counted, left_out = MediaLine("image 1024x1024", 1105, "documented"), MediaLine("file text/plain", None, "not counted")
    assert (media_cell(count()), media_words(count())) == (0, "")
    assert (media_cell(count(counted)), media_words(count(counted))) == (1105, " + 1,105 media")
    assert (media_cell(count(left_out)), media_words(count(left_out))) == ("not counted", " + media not counted")
    both = count(counted, left_out, left_out)
    assert (media_cell(both), media_words(both)) == ("1,105 (2 parts not counted)", " + 1,105 media (2 parts not counted)")
