"""The one door to genai-prices (`analysis.models.genai`): the installed release is one it was
written for, pyproject.toml pins the same range, and another release is refused with the fix."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from analysis.models import genai

REPO = Path(__file__).resolve().parents[3]


def _pin() -> str:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    return next(d for d in deps if re.match(r"genai-prices\b", d))


def test_the_pin_is_the_range_the_door_was_written_for():
    low, high = (".".join(map(str, v)) for v in genai.WRITTEN_FOR)
    assert _pin().replace(" ", "") == f"genai-prices>={low},<{high}", (
        f"pyproject.toml pins {_pin()!r}, but the door (analysis/models/genai.py) was written for "
        f">={low},<{high}: make them the same range")


def test_the_installed_release_is_one_the_door_was_written_for():
    low, high = genai.WRITTEN_FOR
    found = genai._parts(genai.version())
    assert low <= found < high, (
        f"genai-prices {genai.version()} is installed; the door was written for {genai.WRITTEN_FOR}: run "
        "`make install` (pyproject.toml pins the range), or re-test the door on this release and widen "
        "WRITTEN_FOR and the pin together")
    genai.check_version()  # and the door itself lets it through


@pytest.mark.parametrize("release", ["0.3.1", "0.2.4", "0.2.6", "1.0.0"])
def test_another_release_is_refused_naming_the_fix(release):
    problem = genai.version_problem(release)
    assert problem is not None and problem.startswith(f"genai-prices {release} is installed")
    assert "pip install 'genai-prices>=0.2.5,<0.2.6'" in problem and "widen WRITTEN_FOR" in problem
    assert genai.version_problem("0.2.5") is None


def test_the_private_reads_are_what_the_public_api_says():
    # usage_values: the values a Usage reports are the ones its public reported_value gives, and no more
    usage = genai.new_usage(input_tokens=120, cache_read_tokens=20, output_tokens=7)
    assert genai.usage_values(usage) == {"input_tokens": 120, "cache_read_tokens": 20, "output_tokens": 7}
    assert all(usage.reported_value(k) == v for k, v in genai.usage_values(usage).items())
    # price_fields: a ModelPrice's rates, as its own calc_price charges them
    mp = genai.calc(genai.new_usage(), "gpt-4o", provider="openai").model_price
    fields = dict(genai.price_fields(mp))
    assert genai.price_of(mp, input_tokens=1_000_000) == fields["input_mtok"]
    assert genai.price_of(mp, input_tokens=1_000_000, output_tokens=1_000_000) == fields["input_mtok"] + fields["output_mtok"]
