"""Untrusted input echoed back: link values as Markdown-escaped text, invisible characters by code point, every number bounded.

Regression tests for the reliability audit's link findings: Markdown in a link parameter was
rendered (an image the browser fetched, a clickable link); a negative number on a parameter with
only a lower bound crashed the Cost page; nan, inf and 1e23 were dropped with no message.
"""

from __future__ import annotations

import re

import pytest

from analysis.render import markdown_text
from dashboards.links import Param, problems
from tests.dashboards.conftest import open_link

# Markdown that, unescaped, is a link, an image, emphasis or a Streamlit directive
UNESCAPED = re.compile(r"(?<!\\)(\]\(|!\[|\*\*|:red\[|<img)")


def _raw_warnings(at) -> str:
    return "\n".join(w.value for w in at.warning)


@pytest.mark.parametrize("query", [
    {"tokenizers": "![](http://127.0.0.1:9/t.png)"},
    {"[x](http://127.0.0.1:9/)": "1"},
    {"tokenizers": "**bold** :red[alarm] <img src=x>"},
])
def test_a_link_cannot_add_markdown_to_the_page(query):
    at = open_link("app_pages/compare.py", query)
    assert not at.exception
    said = _raw_warnings(at)
    assert said, "the bad parameter is reported"
    assert UNESCAPED.search(said) is None, said


def test_markdown_text_escapes_every_markup_character():
    for hostile in ("![](http://x/y.png)", "[a](b)", "**b**", "_i_", "`c`", "# h", ":red[x]", "$x$", "a\nb\r\nc"):
        escaped = markdown_text(hostile)
        assert "\n" not in escaped
        # removing the escapes gives back the text (line breaks as spaces): nothing is lost
        assert re.sub(r"\\(.)", r"\1", escaped) == " ".join(hostile.splitlines())
        assert UNESCAPED.search(escaped) is None


def test_a_number_below_a_lower_only_bound_is_a_message_not_a_crash():
    at = open_link("app_pages/cost.py", {"cost_rpm": "-1"})
    assert not at.exception
    assert "'cost_rpm' must be a non-negative number, got '-1'" in re.sub(r"\\(.)", r"\1", _raw_warnings(at))


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e23"])
def test_non_finite_and_huge_ratios_are_named(value):
    at = open_link("app_pages/cost.py", {"cost_out_ratio": value})
    assert not at.exception
    said = re.sub(r"\\(.)", r"\1", _raw_warnings(at))
    assert "'cost_out_ratio' must be" in said
    assert value in said


def test_bounds_messages_for_each_kind_of_bound():
    both, low, high = Param("a", "n", number="int", low=1, high=9), Param("b", "n", number="int", low=0), \
        Param("c", "n", number="float", high=1)
    assert problems({"a": ["10"]}, [both]) == ["link parameter 'a' must be between 1 and 9, not 10"]
    assert problems({"b": ["-1"]}, [low]) == ["link parameter 'b' must be at least 0, not -1"]
    assert problems({"c": ["2"]}, [high]) == ["link parameter 'c' must be at most 1, not 2"]
    assert problems({"c": ["nan"]}, [high]) == ["link parameter 'c' must be a finite number, not 'nan'"]
    assert problems({"c": ["0.5"]}, [high]) == []


# -- the audit's finding 21: characters that draw as nothing reach a terminal by code point --------
INVISIBLE = ["\u00ad", "\u200d", "\u200c", "\u115f", "\u1160", "\u3164", "\uffa0", "\u180e", "\u2061"]


@pytest.mark.parametrize("char", INVISIBLE, ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
def test_show_draws_invisible_characters_by_code_point(char, capsys):
    from analysis.cli import main

    assert main(["compare", f"a{char}b", "-t", "o200k_base", "--show"]) in (0, None)
    out = capsys.readouterr().out
    assert char not in out
    # whole in one token it is drawn by code point; split across tokens, by its bytes
    assert f"<U+{ord(char):04X}>" in out or "│<0x" in out, out
