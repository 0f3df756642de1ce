"""`cost.workloads.workload`: every workload number is checked, and a bad one names its field."""

from __future__ import annotations

from decimal import Decimal

import pytest

from analysis.cost import Workload, to_decimal


@pytest.mark.parametrize(("kwargs", "field"), [
    pytest.param({"requests_per_month": -5, "output_tokens": 1}, "requests_per_month must be a non-negative", id="negative"),
    pytest.param({"requests_per_month": "lots", "output_tokens": 1}, "requests_per_month must be a number", id="text"),
    pytest.param({"requests_per_month": True, "output_tokens": 1}, "requests_per_month must be a number", id="bool"),
    pytest.param({"requests_per_month": 1, "output_tokens": float("nan")}, "output_tokens must be a finite", id="nan"),
    pytest.param({"requests_per_month": 1, "output_tokens": 1, "cached_share": "1.5"}, "cached_share must be at most 1", id="share"),
    pytest.param({"requests_per_month": 1, "output_tokens": 1, "messages_per_request": 1.5}, "messages_per_request must be a whole", id="messages"),
    pytest.param({"requests_per_month": 1}, "exactly one of output_tokens", id="no-output"),
    pytest.param({"requests_per_month": 1, "output_tokens": 1, "output_ratio": 1}, "exactly one of output_tokens", id="both"),
    pytest.param({"requests_per_month": 1, "output_tokens": 1, "chars_per_request": 0}, "chars_per_request must be positive", id="chars"),
])
def test_bad_workload_values_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        Workload(**kwargs)


def test_to_decimal_reads_floats_by_their_shortest_repr():
    assert to_decimal("x", 0.1) == Decimal("0.1")
