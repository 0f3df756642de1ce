"""The two formats every report is written in: a Markdown table, and a self-contained HTML page.

Unlike `bundle` and `cost` (what each report says), this module only says how a table or a
page is laid out, so that both reports (and any later one) share one table writer and one page
shell instead of each keeping its own.
"""

from __future__ import annotations

import pandas as pd

_BODY_CSS = "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
_MEDIA_CSS = "figure{margin:1em 0}img{max-width:100%}"
TABLE_CSS = ("table.tp{border-collapse:collapse;font-size:0.85em;margin:1em 0}"
             "table.tp td,table.tp th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}")


# What Markdown (CommonMark, GitHub's tables) would read as markup in a value: HTML as entities,
# the rest behind a backslash. A value from a user's file (a model name, a price note) then
# shows as its text, never as a tag, a link or a remote image a viewer fetches.
_MARKDOWN_TABLE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;",
                                 **{c: "\\" + c for c in "\\`*_[]!|~"}, "\n": " ", "\r": " "})


def markdown_text(value: object) -> str:
    """`value` as Markdown that shows its text: the one escape for every value we write to Markdown.

    >>> markdown_text('<script>x</script> ![i](http://h/p) a|b')
    '&lt;script&gt;x&lt;/script&gt; \\\\!\\\\[i\\\\](http://h/p) a\\\\|b'
    """
    return str(value).translate(_MARKDOWN_TABLE)


def _cell(value: object, float_format: str | None, formulas: bool = False) -> str:
    if isinstance(value, float) and float_format is not None:
        return "" if pd.isna(value) else float_format.format(value)
    if formulas:
        value = neutralize_formula(value)
    # a pipe would end the cell, a line break the row, and a tag or a link would be markup
    return markdown_text(value)


def markdown_table(frame: pd.DataFrame, *, index: bool = True, float_format: str | None = "{:,.2f}",
                   formulas: bool = False) -> str:
    """A frame as a GitHub Markdown table; numeric columns are right-aligned.

    Args:
        frame: the table.
        index: write the index as the first column (unnamed when the index has no name).
        float_format: how floats are written; None writes `str(value)`.
        formulas: neutralise text cells a spreadsheet would run as formulas (`neutralize_formula`),
            for tables whose cells come from the user (model names, price-file notes).

    >>> print(markdown_table(pd.DataFrame({"a": [1.5]}, index=["x"])))
    |  | a |
    |---|---:|
    | x | 1.50 |
    >>> print(markdown_table(pd.DataFrame({"a|b": ["x|y"]}), index=False))
    | a\\|b |
    |---|
    | x\\|y |
    """
    df = frame.reset_index() if index else frame
    if index and frame.index.name is None:
        df = df.rename(columns={df.columns[0]: ""})
    numeric = [pd.api.types.is_numeric_dtype(df[c]) for c in df.columns]
    head = "| " + " | ".join(_cell(c, None, formulas) for c in df.columns) + " |"
    rule = "|" + "|".join("---:" if n else "---" for n in numeric) + "|"
    body = ["| " + " | ".join(_cell(v, float_format, formulas) for v in row) + " |"
            for row in df.itertuples(index=False, name=None)]
    return "\n".join([head, rule, *body])


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutralize_formula(v: object) -> object:
    """A text cell that a spreadsheet would run as a formula, made inert with a leading apostrophe.

    Numbers stay numbers (a negative number is data, not a formula).

    >>> print(neutralize_formula('=HYPERLINK("http://x")'), neutralize_formula(-5), neutralize_formula("gpt-5"))
    '=HYPERLINK("http://x") -5 gpt-5
    """
    return "'" + v if isinstance(v, str) and v.startswith(_FORMULA_START) else v


def html_page(title: str, body: list[str], *, css: str = TABLE_CSS) -> str:
    """One self-contained HTML page: `body` parts joined by newlines, styles inline, nothing loaded.

    >>> html_page("t", ["<p>x</p>"]).splitlines()[-2]
    '<p>x</p>'
    """
    import html

    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_BODY_CSS}{css}{_MEDIA_CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
