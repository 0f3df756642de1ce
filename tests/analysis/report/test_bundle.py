"""The report bundle: its files, self-containment, and determinism (same inputs, same bytes)."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from analysis.cli.measure import FIGURE_NAMES
from analysis.probes import PROBE_TABLES
from analysis.probes.questions import QUESTIONS
from analysis.report import FIGURES, build_report, markdown_table
from analysis.report.page import markdown_text

TOKS = "gpt2,cl100k_base,o200k_base"
REPORT = ["report", "--out", "{out}", "-t", TOKS, "--no-progress"]  # test_json_contract checks its tables too


@pytest.fixture
def bundle(written_by_cli):
    """One report written through the CLI (the path users take), once for the session; read only."""
    return written_by_cli(REPORT)


def test_bundle_has_every_file(bundle):
    assert (bundle / "report.md").is_file()
    assert (bundle / "report.html").is_file()
    for name in FIGURES:
        assert (bundle / "figures" / f"{name}.png").stat().st_size > 10_000
        assert (bundle / "figures" / f"{name}.svg").read_text().lstrip().startswith("<?xml")
    for name in [*PROBE_TABLES, "measurements", "summary-by-category", "tokenizers"]:
        assert (bundle / "tables" / f"{name}.csv").is_file(), name
        assert (bundle / "tables" / f"{name}.parquet").is_file(), name


def test_tables_are_tidy_and_match_their_parquet(bundle):
    csv = pd.read_csv(bundle / "tables" / "measurements.csv")
    parquet = pd.read_parquet(bundle / "tables" / "measurements.parquet")
    assert len(csv) == len(parquet)
    assert not csv.duplicated(["sample_id", "tokenizer"]).any()
    assert set(csv["tokenizer"]) == set(TOKS.split(","))
    pd.testing.assert_series_equal(csv["n_tokens"], parquet["n_tokens"], check_dtype=False)


def test_markdown_links_figures_and_states_findings_with_numbers(bundle):
    md = (bundle / "report.md").read_text(encoding="utf-8")
    for name in FIGURES:
        assert f"](figures/{name}.png)" in md
    for section in ("## 1. Code vs prose", "## 2. Languages", "## 3. Numbers", "## 4. Trailing", "## 5. Same string",
                    "## 6. The questions"):
        assert section in md
    for key in QUESTIONS:  # one figure and one headline per question
        assert f"](figures/why_{key.replace('-', '_')}.png)" in md
        assert f"- {markdown_text(QUESTIONS[key].ask)}" in md
    assert '" 2024" is one token, " 2023" is several' in md  # gpt2's vocabulary
    assert "| cl100k_base | 123\\|456\\|7 |" in md
    assert re.search(r"o200k_base needs \d+% fewer tokens than cl100k_base", md)


def test_html_is_self_contained(bundle):
    page = (bundle / "report.html").read_text(encoding="utf-8")
    images = re.findall(r'<img [^>]*src="([^"]+)"', page)
    assert len(images) == len(FIGURES) + len(QUESTIONS)  # the probes' figures and one per question
    assert all(src.startswith("data:image/png;base64,") for src in images)
    assert "http://" not in page
    assert "https://" not in page


def test_same_inputs_give_identical_files(bundle, tmp_path):
    again = build_report(tmp_path / "again", tokenizers=TOKS)
    for path in sorted(bundle.rglob("*")):
        if path.is_dir():
            continue
        rel = path.relative_to(bundle)
        other = again.out_dir / rel
        if path.suffix == ".parquet":  # compare frames: Parquet metadata may carry writer details
            pd.testing.assert_frame_equal(pd.read_parquet(path), pd.read_parquet(other))
        else:
            assert path.read_bytes() == other.read_bytes(), rel


def test_cli_figure_names_match_the_report():
    assert [n.replace("-", "_") for n in FIGURE_NAMES] == list(FIGURES)


def test_markdown_table_escapes_pipes():
    md = markdown_table(pd.DataFrame({"pieces": ["1|2"], "n": [3]}), index=False)
    assert md.splitlines() == ["| pieces | n |", "|---|---:|", "| 1\\|2 | 3 |"]


def test_report_text_is_unchanged_since_the_restructuring(bundle):
    """The restructuring moved code, not numbers: every table and the markdown match the stored
    checksums of a report written before it (same tokenizers, same built-in corpora)."""
    import hashlib
    import json
    from pathlib import Path

    stored = json.loads((Path(__file__).with_name("report_checksums.json")).read_text())["files"]
    got = {rel: hashlib.sha256((bundle / rel).read_bytes()).hexdigest() for rel in stored}
    assert {rel for rel, h in got.items() if h != stored[rel]} == set()
