"""The pages' logic that lives in analysis (input checks, boundary diffs, special strings, merge traces, the years grid), tested without Streamlit."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ownbpe
from analysis.compare import special_strings_in, special_token_strings, splits
from analysis.lab.trace import merge_trace
from analysis.probes.boundaries import boundary_diff
from analysis.probes.numbers import years_grid
from analysis.render import highlight_prefix, html_tokens
from analysis.textio import MAX_UPLOAD_BYTES, decode_upload, input_problem
from analysis import load_tokenizer
from analysis.corpora import sample_text
from analysis.tokenizers import Piece, tiktoken_params


# -- input -------------------------------------------------------------------------------------
def test_input_problem_names_empty_and_oversized_text():
    assert "empty" in input_problem("")
    assert input_problem(" ") is None  # a lone space is text worth counting
    msg = input_problem("x" * 11, limit=10)
    assert "11 characters" in msg
    assert "10" in msg
    assert "tokenprism compare -f" in msg


@pytest.mark.parametrize("data, words", [
    (b"", ["empty"]),
    (b"\x89PNG\r\n\x1a\nrest", ["PNG image", "UTF-8 text file"]),
    (b"%PDF-1.7 ...", ["PDF document"]),
    (b"ab\x00cd", ["NUL bytes"]),
    (b"ok caf\xe9 ok", ["not valid UTF-8", "0xe9", "offset 6", "replace invalid bytes"]),
    (b"x" * 11, ["11 bytes", "limit is 10"]),
])
def test_decode_upload_refuses_with_a_reason(data, words):
    with pytest.raises(ValueError) as err:
        decode_upload(data, "up.txt", max_bytes=10 if len(data) == 11 else MAX_UPLOAD_BYTES)
    for word in words:
        assert word in str(err.value)
    assert "up.txt" in str(err.value)


def test_decode_upload_keeps_text_exactly_and_can_replace():
    assert decode_upload("\ufeffa\r\nb  ".encode(), "f") == ("\ufeffa\r\nb  ", 0)
    assert decode_upload(b"caf\xe9 \xef\xbf\xbd", "f", replace_invalid=True) == ("caf\ufffd \ufffd", 1)


def test_highlight_prefix_cuts_at_a_line_break_and_keeps_the_tokens():
    text = (sample_text() + "\n") * 60
    prefix = highlight_prefix(text, limit=5_000)
    assert prefix.endswith("\n")
    assert len(prefix) <= 5_000
    assert text.startswith(prefix)
    tok = load_tokenizer("o200k_base")
    head = tok.encode(prefix)
    assert tok.encode(text)[: len(head)] == head  # the drawn tokens are those of the whole text
    assert highlight_prefix("short") == "short"


# -- special-token strings -----------------------------------------------------------------------
def test_special_strings_are_found_with_their_plain_text_cost():
    text = "<|start|>user<|message|>hi<|end|> and <|endoftext|> twice <|endoftext|>"
    harmony, cl100k = load_tokenizer("o200k_harmony"), load_tokenizer("cl100k_base")
    df = special_strings_in(text, [harmony, cl100k])
    rows = {(r.tokenizer, r.special): r for r in df.itertuples()}
    assert rows[("o200k_harmony", "<|start|>")].special_id == 200006
    assert rows[("o200k_harmony", "<|endoftext|>")].occurrences == 2
    assert rows[("cl100k_base", "<|endoftext|>")].plain_tokens == len(cl100k.encode("<|endoftext|>"))
    assert ("cl100k_base", "<|start|>") not in rows  # not a cl100k special token
    assert special_strings_in("no specials here", [cl100k]).empty


def test_hf_special_tokens_are_found():
    deepseek = load_tokenizer("deepseek-v4")
    specials = special_token_strings(deepseek)
    assert specials, "deepseek-v4 exposes special tokens"
    one = sorted(specials)[0]
    df = special_strings_in(f"a {one} b", [deepseek])
    assert df["special"].tolist() == [one]


# -- boundaries ------------------------------------------------------------------------------------
def test_boundary_diff_and_marking():
    text = "Internationalization 1234567"
    a, b = load_tokenizer("gpt2").pieces(text), load_tokenizer("o200k_base").pieces(text)
    same = boundary_diff(a, a)
    assert same.agreement == 1.0
    assert same.shared == len(a) - 1
    diff = boundary_diff(a, b)
    assert 0 < diff.agreement < 1
    assert 'tp-diff' not in html_tokens(text, a, other=a)
    html_a = html_tokens(text, a, other=b)
    spans_b = {(p.start, p.end) for p in b}
    assert html_a.count("tp-diff") == sum((p.start, p.end) not in spans_b for p in a)
    assert html_a.count('class="tp-tok') == len(a)


def test_boundary_diff_of_one_token_texts_is_full_agreement():
    assert boundary_diff([], []).agreement == 1.0
    assert boundary_diff([Piece(1, b"a", 0, 1)], [Piece(2, b"a", 0, 1)]).agreement == 1.0


def test_the_compare_page_and_the_probe_share_one_jaccard():
    from analysis.probes.boundaries import boundary_agreement

    text = "Internationalization 1234567 naïve 東京"
    a, b = load_tokenizer("gpt2").pieces(text), load_tokenizer("o200k_base").pieces(text)
    probe = boundary_agreement("gpt2,o200k_base", {"t": text}).iloc[0]
    assert boundary_diff(a, b).agreement == pytest.approx(probe["jaccard"])
    assert boundary_diff(a, b).shared == probe["n_shared"]


def test_splits_show_each_tokenizers_cut():
    df = splits("1234567", [load_tokenizer("cl100k_base"), load_tokenizer("qwen2.5")]).set_index("tokenizer")
    assert df.loc["cl100k_base", "split"] == "123|456|7"
    assert df.loc["qwen2.5", "split"] == "1|2|3|4|5|6|7"


# -- merge traces and the years grid -------------------------------------------------------------
@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_merge_trace_reproduces_tiktoken_ids(name):
    explainer = ownbpe.Tokenizer.from_tiktoken(*tiktoken_params(name))
    word = " unbelievably 2024"
    pieces, steps = merge_trace(explainer.explain(word, ordinary=True))
    ids = [int(i) for cell in pieces["ids"] for i in cell.split()]
    assert ids == load_tokenizer(name).encode(word)
    assert pieces["piece"].str.replace("·", " ").str.cat() == word
    assert (steps.groupby("piece", sort=False)["step"].max() >= 1).all()
    # every merge's result is its left + right
    assert (steps["left"] + steps["right"] == steps["result"]).all()


def test_years_grid_matches_the_probe():
    from analysis.probes.numbers import single_token_numbers, single_token_years

    years = single_token_years(single_token_numbers(["cl100k_base", "gpt2"], stop=2101, contexts=["bare"]))
    grid = years_grid(years, "gpt2")
    assert grid.shape == (21, 10)
    gpt2 = years[years["tokenizer"] == "gpt2"].set_index("number")["single_token"]
    assert grid.loc["1990s", "7"] == bool(gpt2[1997])
    assert grid.loc["2020s", "4"] == bool(gpt2[2024])
    assert grid.loc["2100s", "5"] is None


# -- the drawing: cached parts per token, the same HTML as escaping each token afresh ------------
def _html_tokens_reference(text, pieces, *, show_ids=True, other=None):
    """The drawing as it was first written, every token escaped afresh: the reference for `html_tokens`."""
    import html

    from analysis.render import piece_label

    spans = None if other is None else {(p.start, p.end, p.bytes if p.partial else b"") for p in other}
    out = []
    for i, p in enumerate(pieces):
        cls = "tp-partial" if p.partial else f"tp-t{i % 8}"
        if spans is not None and (p.start, p.end, p.bytes if p.partial else b"") not in spans:
            cls += " tp-diff"
        title = f"id {p.id} · bytes {p.bytes!r}" if show_ids else ""
        label = html.escape(piece_label(text, p)).replace("\n", "<br>")
        out.append(f'<span class="tp-tok {cls}" title="{html.escape(title)}">{label}\u200b</span>')
    return '<div class="tp-text">' + "".join(out) + "</div>"


_DRAW_ALPHABET = ("ab Z09 \t\n\r\x00\x1b\x7f\x85\x9b\u00a0\u200b\u202e\u2028\ufeff&<>\"'`"
                  "\u00e9\u0301\u4e2d\U0001f600\u0905\u093f")


@given(text=st.text(alphabet=_DRAW_ALPHABET, max_size=60), show_ids=st.booleans())
def test_html_tokens_equals_the_escape_every_token_reference(text, show_ids):
    a, b = load_tokenizer("gpt2").pieces(text), load_tokenizer("o200k_base").pieces(text)
    for ps, other in ((a, b), (b, a), (a, None)):
        assert html_tokens(text, ps, show_ids=show_ids, other=other) == \
            _html_tokens_reference(text, ps, show_ids=show_ids, other=other)
