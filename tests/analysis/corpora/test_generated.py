"""Generated built-in categories: deterministic, and shaped as the issue specifies."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from analysis.corpora import get_sample, load_builtin
from analysis.corpora.generated import generate_numbers, whitespace_variants
from analysis.corpora.sample import Sample

REPO = Path(__file__).resolve().parents[3]


def _digest(frame) -> str:
    return hashlib.sha256("\x1e".join(frame["id"] + "\x1f" + frame["text"]).encode()).hexdigest()


@pytest.fixture(scope="module")
def numbers() -> dict[str, str]:
    return {x.sample.id: x.sample.text for x in generate_numbers()}


@pytest.fixture(scope="module")
def spaces() -> dict[str, str]:
    frame = load_builtin("whitespace")
    return dict(zip(frame["id"], frame["text"]))


def test_generated_samples_are_deterministic_within_a_process():
    a, b = load_builtin(["numbers", "whitespace"]), load_builtin(["numbers", "whitespace"])
    assert a.equals(b)


def test_generated_samples_are_deterministic_across_processes_and_hash_seeds():
    code = ("import hashlib; from analysis.corpora import load_builtin; f = load_builtin(['numbers', 'whitespace']); "
            "print(hashlib.sha256('\\x1e'.join(f['id'] + '\\x1f' + f['text']).encode()).hexdigest())")
    here = _digest(load_builtin(["numbers", "whitespace"]))
    for seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == here


def test_integers_have_exact_digit_counts(numbers):
    for d in range(1, 21):
        values = numbers[f"numbers/integer-d{d:02d}"].split()
        assert len(values) == 40
        assert all(len(v) == d and v.isdigit() and (d == 1 or v[0] != "0") for v in values), d


def test_years_cover_1000_to_2100(numbers):
    assert numbers["numbers/year"].split() == [str(y) for y in range(1000, 2101)]


def test_thousands_separators_format_the_same_numbers(numbers):
    plain = numbers["numbers/thousands-none"].splitlines()
    for variant, sep in (("comma", ","), ("dot", "."), ("space", " "), ("narrow-nbsp", "\u202f")):
        formatted = numbers[f"numbers/thousands-{variant}"].splitlines()
        assert [f.replace(sep, "") for f in formatted] == plain
        assert all(re.fullmatch(r"\d{1,3}(%s\d{3})+" % re.escape(sep), f) for f in formatted), variant
    assert "1,234,567" == f"{1234567:,}"  # the comma variant is Python's own grouping
    assert numbers["numbers/thousands-comma"].splitlines() == [f"{int(v):,}" for v in plain]


def test_dates_are_the_same_days_in_every_format(numbers):
    iso = [date.fromisoformat(d) for d in numbers["numbers/date-iso"].splitlines()]
    us = numbers["numbers/date-us"].splitlines()
    eu = numbers["numbers/date-eu-dot"].splitlines()
    assert us == [d.strftime("%m/%d/%Y") for d in iso]
    assert eu == [d.strftime("%d.%m.%Y") for d in iso]
    assert numbers["numbers/date-eu-slash"].splitlines() == [d.strftime("%d/%m/%Y") for d in iso]


def test_every_numbers_kind_in_the_spec_is_generated(numbers):
    kinds = {x.sample.kind for x in generate_numbers()}
    assert kinds == {"integer", "year", "decimal", "percentage", "price", "thousands-separator", "phone", "date",
                     "time", "version", "ip-address", "scientific", "hex", "in-sentence"}
    assert all(p.endswith("%") for p in numbers["numbers/percentage"].splitlines())
    assert {"$", "€", "£", "¥", "₹"} <= set("".join(numbers[k] for k in numbers if k.startswith("numbers/price-")))
    assert re.search(r"^\d+\.\d+\.\d+\.\d+$", numbers["numbers/ip"], re.M)
    assert re.search(r"^[0-9a-f:]+::[0-9a-f]+$", numbers["numbers/ip"], re.M)  # IPv6 too
    assert re.search(r"^-?\d\.\d+e-?\d+$", numbers["numbers/scientific"], re.M)
    assert re.search(r"^0x[0-9A-F]+$", numbers["numbers/hex"], re.M)
    assert re.search(r"^v\d+\.\d+\.\d+$", numbers["numbers/version"], re.M)
    assert re.search(r"^\d{1,2}:\d{2} (AM|PM)$", numbers["numbers/time"], re.M)
    assert re.search(r"^\+44 20 \d{4} \d{4}$", numbers["numbers/phone"], re.M)
    assert all(re.search(r"[A-Za-z].*\d", s) for s in numbers["numbers/in-sentence"].splitlines())


def test_trailing_spaces_variants_add_exactly_k_spaces_per_line(spaces):
    base = get_sample("prose/email-01").text
    assert spaces["whitespace/trailing-spaces-0"] == base
    for k in range(9):
        text = spaces[f"whitespace/trailing-spaces-{k}"]
        assert text.count("\n") == base.count("\n")
        assert all(line.endswith(" " * k) and not line.endswith(" " * (k + 1)) for line in text.split("\n")[:-1])
        assert text.replace(" " * k + "\n", "\n") == base if k else True


def test_other_whitespace_variants(spaces):
    base = get_sample("prose/email-01").text
    assert spaces["whitespace/trailing-newlines-3"] == base.rstrip("\n") + "\n\n\n"
    assert spaces["whitespace/trailing-newlines-0"] == base.rstrip("\n")
    assert spaces["whitespace/trailing-tabs-2"].split("\n")[0].endswith("workshop\t\t")
    assert spaces["whitespace/leading-space-text-start"] == " " + base
    assert spaces["whitespace/doubled-spaces-everywhere"] == base.replace(" ", "  ")
    assert spaces["whitespace/line-endings-prose-crlf"].replace("\r\n", "\n") == base
    assert spaces["whitespace/line-endings-prose-crlf"].count("\r\n") == base.count("\n")
    code = get_sample("code/c/ring_buffer").text
    assert spaces["whitespace/indentation-spaces-4"] == code
    tabs = spaces["whitespace/indentation-tabs"]
    assert "\n\tif (capacity == 0) {\n\t\treturn -1;" in tabs
    assert tabs.replace("\t", "    ") == code
    assert spaces["whitespace/line-endings-code-crlf"] == code.replace("\n", "\r\n")


def test_whitespace_variants_keep_continuation_alignment():
    code = Sample("c", "code", "en", "Latn", "c", "f(a,\n      b);\n    x;\n", "t")
    by_id = {x.sample.id: x.sample.text for x in whitespace_variants(code, code)}
    # 6 spaces = one level + 2 alignment spaces: the level changes, the alignment stays
    assert by_id["whitespace/indentation-tabs"] == "f(a,\n\t  b);\n\tx;\n"


def test_generated_rows_carry_group_and_variant():
    frame = load_builtin(["numbers", "whitespace"])
    assert frame["group"].ne("").sum() > 60
    thousands = frame[frame["group"] == "thousands-separator"]
    assert sorted(thousands["variant"]) == ["comma", "dot", "narrow-nbsp", "none", "space"]
    assert (frame.loc[frame["kind"] == "integer", "language"] == "zxx").all()
    assert (frame.loc[frame["kind"] == "integer", "script"] == "Zyyy").all()
