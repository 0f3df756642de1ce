"""Number fields read by the CLI's own readers: a value out of range is a message beside its field.

Unlike `st.number_input`, whose browser side parses what is typed by itself (a typed `1e30` in a
whole-number box becomes 1, and a 20-digit number stays in the box while the page goes on with the
previous value) and whose seeding from a link raises `OverflowError` on `1e999` (a traceback on the
page), a field here is a text box whose text goes to the reader of the same CLI flag
(`cost.workload_value`, `textio.numbers.bounded`). What it cannot read is said beside the field, and
the page stops before it uses any value: no silent substitute, no result left over from the
previous value.

A page makes one `Fields` per form, draws its numbers with `Fields.number`, and calls
`Fields.stop_if_unread()` once the form is drawn.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import streamlit as st

from analysis.cost import workload_value
from analysis.render import markdown_text


def workload(field: str, label: str) -> Callable[[str], Decimal]:
    """The reader of workload field `field` (`cost --requests-per-month` and the others), naming `label`.

    >>> workload("requests_per_month", "Requests per month")("1e30")
    Traceback (most recent call last):
    ...
    analysis.errors.BadInput: Requests per month must be at most 1,000,000,000,000, got '1e30'
    """
    return lambda text: workload_value(field, plain_number(text), label=label)


_GROUPED = re.compile(r"\s*[+-]?\d{1,3}(?:[,_ ]\d{3})+(?:\.\d*)?\s*")


def plain_number(text: str) -> str:
    """A number typed with thousands separators, as the page prints them (100,000) or as Python
    writes them (100_000), without them; any other text as it is, for the reader to judge.

    >>> plain_number("2,000"), plain_number("1_000_000.5"), plain_number("1,5"), plain_number("1e3")
    ('2000', '1000000.5', '1,5', '1e3')
    """
    return re.sub(r"[,_ ]", "", text.strip()) if _GROUPED.fullmatch(text) else text


class Fields:
    """The number fields of one form. `problems` holds one line per field that could not be read."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def number(self, where: Any, label: str, *, key: str, default: str, read: Callable[[str], Any],
               bind: bool = True, optional: bool = False, help: str | None = None,
               placeholder: str | None = None) -> Any:
        """A text box in `where` (a column, or `st`) for a number; its value as `read` reads it.

        Returns None for an empty `optional` field, and None (with a message beside the field, and
        the field counted in `problems`) for a text `read` refuses.
        """
        text = where.text_input(label, value=default, key=key, help=help, placeholder=placeholder,
                                bind="query-params" if bind else None)
        if optional and not text.strip():
            return None
        try:
            return read(plain_number(text))
        except (ValueError, argparse.ArgumentTypeError) as e:  # BadInput is a ValueError
            message = str(e)
            if not message.startswith(label):
                message = f"{label} {message}"  # textio.numbers' refusals begin "must be ..."
            where.error(markdown_text(message), icon=":material/error:")  # it quotes the typed text
            self.problems.append(message)
            return None

    def stop_if_unread(self) -> None:
        """End the page's run here when a field could not be read (each message is beside its field)."""
        if self.problems:
            st.stop()
