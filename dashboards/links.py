"""Links that reopen a view: each page's state lives in the URL's query parameters.

Widgets keep their value in the URL through Streamlit's own `bind="query-params"` (the widget's
key is the parameter's name). Streamlit silently drops a value a widget cannot take; this module
adds what binding leaves out:

- `check`: the URL a page was opened with is read once, and an unknown parameter, a value too
  long, or a value no widget accepts gets one message naming the problem and the fix (never an
  exception). Unknown parameters are dropped from the URL; a bad value of a bound widget is
  dropped by the widget itself, except a free text, which the page's own input limits then
  catch (Streamlit seeds widgets from the URL as first opened, before any page code runs).
- `linked_text`: a free text (Compare's) that goes into the URL only up to `LINK_MAX_TEXT`
  characters, so a pasted book does not become a megabyte URL.
- `copy_link`: a "Copy link" control showing the page's current URL, with a copy button.

Each page declares its parameters as a list of `Param` next to the widgets they feed.
"""

from __future__ import annotations

import argparse
import difflib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from urllib.parse import quote, urlencode

import streamlit as st
from streamlit.errors import StreamlitAPIException

from analysis.render import markdown_text

# Compare's text is carried in links up to this many characters (a URL of a few kB opens
# everywhere); a longer text is counted as usual but left out of the link.
LINK_MAX_TEXT = 2_000
# ... and up to this many bytes once percent-encoded (an emoji takes 12): the dashboard's server
# (uvicorn's h11) refuses a request whose line and headers pass 16 KiB with a bare
# "400 Bad Request", so the links built here stay under `LINK_MAX_BYTES`, with room for headers.
LINK_MAX_TEXT_BYTES = 6_000
LINK_MAX_BYTES = 10_000
# A number above 0 in a link is at least this (1e-320 would reach a widget as a denormal).
MIN_POSITIVE = 1e-9
# Any other parameter value: names, numbers and short words.
MAX_VALUE_CHARS = 200
# Parameters Streamlit itself reads (embedding options): always accepted.
_STREAMLIT_PARAMS = frozenset({"embed", "embed_options"})


@dataclass(frozen=True)
class Param:
    """One query parameter of a page.

    Args:
        name: the parameter's name, which is also the key of the widget it sets.
        what: what it holds, for messages ("tokenizer names").
        choices: the values it accepts (a callable, evaluated only when the parameter is given).
        number: "int" or "float" when the value must be a number, with `low`/`high` bounds (a slider's).
        read: the reader of the field's text (`dashboards.fields`): the value is what it accepts, and
            its refusal is the message.
        multi: the parameter may repeat (`?tokenizers=a&tokenizers=b`).
        max_chars: the longest value accepted.
    """

    name: str
    what: str
    choices: Callable[[], Sequence[str]] | None = None
    number: str | None = None
    low: float | None = None
    high: float | None = None
    multi: bool = False
    max_chars: int = MAX_VALUE_CHARS
    read: Callable[[str], object] | None = None


def problems(query: dict[str, list[str]], params: Sequence[Param]) -> list[str]:
    """What is wrong with `query` (name -> values) for a page taking `params`, one line each.

    >>> problems({"colour": ["red"]}, [Param("color", "a colour")])
    ["unknown link parameter 'colour' (did you mean 'color'?): this page takes color"]
    """
    known = {p.name: p for p in params}
    found = []
    for name, values in query.items():
        param = known.get(name)
        if name in _STREAMLIT_PARAMS:
            continue
        if param is None:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            found.append(f"unknown link parameter {name[:40]!r}{hint}: this page takes "
                         + (", ".join(known) or "no parameters"))
            continue
        if len(values) > 1 and not param.multi:
            found.append(f"link parameter {name!r} is given {len(values)} times: give it once")
        for value in values:
            problem = _value_problem(param, value)
            if problem:
                found.append(problem)
    return found


def _value_problem(param: Param, value: str) -> str | None:
    if len(value) > param.max_chars:
        return (f"link parameter {param.name!r} is {len(value):,} characters long; links carry up to "
                f"{param.max_chars:,}: type or paste it instead")
    if param.read is not None:
        try:
            param.read(value)
        except (ValueError, argparse.ArgumentTypeError) as e:  # "LABEL must be ..." or "must be ..."
            said = str(e)
            return f"link parameter {param.name!r} {said[len(param.what):].lstrip() if said.startswith(param.what) else said}"
    if param.number:
        try:
            number = int(value) if param.number == "int" else float(value)
        except ValueError:
            return f"link parameter {param.name!r} must be {param.what}, not {value[:40]!r}"
        if not math.isfinite(number):  # nan passes every comparison below; inf no widget takes
            return f"link parameter {param.name!r} must be a finite number, not {value[:40]!r}"
        if 0 < abs(number) < MIN_POSITIVE or (number == 0 and _tiny(value)):  # 1e-999999999 is 0.0 as a float
            return f"link parameter {param.name!r} must be 0 or at least {MIN_POSITIVE:g}, not {value[:40]}"
        too_low = param.low is not None and number < param.low
        too_high = param.high is not None and number > param.high
        if too_low or too_high:
            if param.low is not None and param.high is not None:
                bounds = f"between {param.low:g} and {param.high:g}"
            else:
                bounds = f"at least {param.low:g}" if too_low else f"at most {param.high:g}"
            return f"link parameter {param.name!r} must be {bounds}, not {value[:40]}"
    if param.choices is not None:
        choices = [str(c) for c in param.choices()]
        if value not in choices:
            close = difflib.get_close_matches(value, choices, n=1)
            if param.what == " or ".join(choices):  # the choices are the words: "must be Text or Chat"
                return (f"link parameter {param.name!r}: {value[:40]!r} must be {param.what}"
                        + (f"; did you mean {close[0]!r}?" if close else ""))
            hint = f"did you mean {close[0]!r}? " if close else ""
            return (f"link parameter {param.name!r}: {value[:40]!r} is not one of the {param.what}; {hint}"
                    f"valid: {', '.join(choices[:12])}{', …' if len(choices) > 12 else ''}")
    return None


def _tiny(value: str) -> bool:
    """True for a number too small for a float that is not zero ("1e-999999999")."""
    try:
        return Decimal(value.strip()) != 0
    except InvalidOperation:
        return False


def _query() -> dict[str, list[str]]:
    return {name: st.query_params.get_all(name) for name in st.query_params}


def check(page: str, params: Sequence[Param]) -> None:
    """Tell the reader what is wrong with the link this page was opened with, then drop the bad parts.

    Runs on the page's first run in a session (when the link is opened), before its widgets,
    so a bad value never reaches a widget. Call it at the top of the page.
    """
    seen = st.session_state.setdefault("_links_checked", {})
    query = _query()
    # Once per page and session: later changes to the URL come from the page's own fields (a value
    # typed in the form), which are not a link, and say what is wrong beside the field.
    if page in seen:
        return
    seen[page] = query
    found = problems(query, params)
    if not found:
        return
    # The messages quote the link's own names and values: escaped, so a link cannot add Markdown
    # (an image the browser would fetch, a clickable link) to the page.
    st.warning("Some of this link's parameters could not be used as given (fix or remove them and open the "
               "link again):\n\n" + "\n".join(f"- {markdown_text(p)}" for p in found), icon=":material/link_off:")
    known = {p.name: p for p in params}
    for name, values in query.items():
        param = known.get(name)
        good = [v for v in values if param is not None and not _value_problem(param, v)]
        if param is not None and (good == values) and (len(values) == 1 or param.multi):
            continue
        try:
            if param is not None and param.multi and good:
                st.query_params[name] = good  # keep the names that are fine
            else:
                del st.query_params[name]
        except StreamlitAPIException:  # already bound to its widget, which drops what it cannot take
            pass
    seen[page] = _query()


def carries(text: str) -> bool:
    """Whether a link carries this text: at most `LINK_MAX_TEXT` characters and `LINK_MAX_TEXT_BYTES`
    bytes once percent-encoded.

    >>> carries("hello"), carries("\U0001f642" * 1_000)
    (True, False)
    """
    return len(text) <= LINK_MAX_TEXT and len(quote(text, safe="")) <= LINK_MAX_TEXT_BYTES


def linked_text(name: str, key: str) -> None:
    """Put the link's text (parameter `name`) into the widget `key` when the link is opened.

    Call before the widget is drawn; call `sync_text` after it.
    """
    value = st.query_params.get(name)
    if value is None or not carries(value) or value == st.session_state.get(f"_link_{name}"):
        return
    st.session_state[key] = value
    st.session_state[f"_link_{name}"] = value


def sync_text(name: str, text: str, default: str) -> bool:
    """Write `text` into the URL as parameter `name` (dropped when default or too long).

    Returns:
        Whether the link carries the text.
    """
    carried = carries(text)
    if carried and text != default:
        if st.query_params.get(name) != text:
            st.query_params[name] = text
    elif name in st.query_params:
        del st.query_params[name]
    st.session_state[f"_link_{name}"] = st.query_params.get(name)
    return carried


def page_url(path: str) -> str:
    """This page's URL in the reader's browser with the current query parameters.

    `path` is the page's URL path ("" for the default page), used when the browser's URL is
    unknown (as under AppTest): the link is then relative to the dashboard's address.
    """
    base = st.context.url or f"/{path}"
    query = urlencode([(k, v) for k in st.query_params for v in st.query_params.get_all(k)])
    return base + (f"?{query}" if query else "")


def copy_link(path: str, *, note: str = "") -> None:
    """A "Copy link" control: the URL that reopens this view, with a copy button."""
    with st.popover("Copy link", icon=":material/link:"):
        st.caption("Opening this link shows this view with the same inputs and numbers. " + note)
        st.code(page_url(path), language=None, wrap_lines=True)
