"""Probes 1 (code vs prose) and 5 (boundary agreement), and the probe registry."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis import load_tokenizer

from analysis.corpora import load_builtin
from analysis.pipeline import measure
from analysis.probes import PROBE_TABLES, ProbeRun, run_probe
from analysis.probes.boundaries import agreement_matrix, boundaries, boundary_agreement
from analysis.probes.code import PROSE_LABEL, code_languages, code_variants, whitespace_tokens

TOKS = "gpt2,cl100k_base"


@pytest.fixture(scope="module")
def measured():
    return measure(load_builtin(["prose", "code", "whitespace"]), TOKS)


# --- code --------------------------------------------------------------------------------------
def test_code_languages_vs_prose(measured):
    cl = code_languages(TOKS, measured=measured).astype({"tokenizer": str})
    assert {PROSE_LABEL, "python", "json", "css"} <= set(cl["language"])
    prose = cl[cl["language"] == PROSE_LABEL]
    assert (prose["token_premium_vs_prose"] == 1.0).all()
    py = cl[(cl["language"] == "python") & (cl["tokenizer"] == "cl100k_base")].iloc[0]
    sub = measured[(measured["kind"] == "python") & (measured["tokenizer"] == "cl100k_base")]
    assert py["chars_per_token_of_sums"] == pytest.approx(sub["n_chars"].sum() / sub["n_tokens"].sum())
    assert (cl.loc[cl["language"] != PROSE_LABEL, "token_premium_vs_prose"] > 1).all()  # code costs more


def test_code_variants_baselines_and_properties(measured):
    v = code_variants(TOKS, measured=measured).astype({"tokenizer": str})
    assert set(v["property"]) == {"indentation", "layout", "naming"}
    assert {"python-inventory-indentation", "json-catalogue-layout", "c-ring-buffer-indentation"} <= set(v["group"])
    base = v[v["variant"] == v["baseline"]]
    assert (base["extra_tokens"] == 0).all()
    assert set(v.loc[v["group"] == "json-catalogue-layout", "baseline"]) == {"minified"}
    # gpt2 has no multi-space tokens: 4-space indentation costs it more than 2-space
    gpt2 = v[(v["tokenizer"] == "gpt2") & (v["group"] == "python-inventory-indentation")].set_index("variant")
    assert gpt2.loc["spaces-2", "token_change_pct"] < 0


def test_whitespace_tokens_hand_checked():
    s = pd.DataFrame({"id": ["x"], "category": ["code"], "kind": ["python"], "text": ["if x:\n    y = 1\n"]})
    w = whitespace_tokens("cl100k_base", s).iloc[0]
    # if | x | :\n | ··· | ·y | ·= | · | 1 | \n  -> "···", "·" and "\n" are pure whitespace
    assert (w["n_tokens"], w["n_whitespace_tokens"]) == (9, 3)
    assert w["whitespace_token_share"] == pytest.approx(3 / 9)
    assert w["whitespace_char_share"] == pytest.approx(9 / 16)  # 9 of the 16 characters are whitespace


# --- boundaries --------------------------------------------------------------------------------
def test_boundaries_are_inner_character_offsets():
    from analysis import load_tokenizer

    assert boundaries(load_tokenizer("cl100k_base"), "1234567").tolist() == [3, 6]
    # gpt2 splits 語 into byte tokens: the cut inside the character moves to its end
    assert boundaries(load_tokenizer("gpt2"), "語a").tolist() == [1]


def test_boundary_agreement_hand_checked():
    b = boundary_agreement("cl100k_base,qwen2.5,o200k_base", {"n": "1234567"}).astype({"tokenizer_a": str, "tokenizer_b": str})
    pair = b[(b["tokenizer_a"] == "cl100k_base") & (b["tokenizer_b"] == "qwen2.5")].iloc[0]
    # {3, 6} vs {1, 2, 3, 4, 5, 6}
    assert (pair["n_shared"], pair["n_union"]) == (2, 6)
    assert pair["jaccard"] == pytest.approx(2 / 6)
    assert pair["f1"] == pytest.approx(2 * 2 / 8)
    same = b[(b["tokenizer_a"] == "cl100k_base") & (b["tokenizer_b"] == "o200k_base")].iloc[0]
    assert same["jaccard"] == 1.0
    assert len(b) == 3  # unordered pairs


def test_agreement_matrix_is_symmetric_with_unit_diagonal():
    b = boundary_agreement("gpt2,cl100k_base,qwen2.5", ["Hello world, 12345!", "naïve café"])
    m = agreement_matrix(b).astype({"tokenizer_a": str, "tokenizer_b": str})
    wide = m.pivot(index="tokenizer_a", columns="tokenizer_b", values="value")
    assert (wide.to_numpy().diagonal() == 1.0).all()
    pd.testing.assert_frame_equal(wide, wide.T, check_names=False)
    pooled = b[(b["tokenizer_a"] == "gpt2") & (b["tokenizer_b"] == "qwen2.5")]
    assert wide.loc["gpt2", "qwen2.5"] == pytest.approx(pooled["n_shared"].sum() / pooled["n_union"].sum())


def test_boundary_agreement_needs_two_tokenizers():
    with pytest.raises(ValueError, match="at least two"):
        boundary_agreement("gpt2", ["x"])


# --- registry ----------------------------------------------------------------------------------
def test_run_probe_by_name_and_unknown_name():
    run = ProbeRun(tokenizers="cl100k_base,qwen2.5", texts={"t": "Hello world"})
    assert run_probe("digit-grouping", run)["pieces"].tolist()[0] == "123|456|7"
    assert set(run_probe("trailing-whitespace", run)["text"]) == {"Hello world"}
    with pytest.raises(KeyError, match="digit-grouping"):
        run_probe("no-such-table", run)
    assert {k for k, *_ in PROBE_TABLES.values()} == {1, 2, 3, 4, 5}


def _diff_regions_reference(text, pieces_a, pieces_b, limit=200):
    """Regions found a piece at a time, as `diff_regions` was first written: its reference."""
    from bisect import bisect_left

    from analysis.render import piece_label, visible

    shared = sorted(set(p.end for p in pieces_a) & set(p.end for p in pieces_b) | {0})

    def groups(pieces):
        out = {}
        for p in pieces:
            out.setdefault(shared[bisect_left(shared, p.end)], []).append(p)
        return out

    ga, gb = groups(pieces_a), groups(pieces_b)
    rows = []
    for start, end in zip(shared, shared[1:]):
        a, b = ga.get(end, []), gb.get(end, [])
        if len(a) == 1 and len(b) == 1:
            continue
        rows.append({"start": start, "end": end, "text": visible(text[start:end]),
                     "a": " ".join(piece_label(text, p) for p in a), "b": " ".join(piece_label(text, p) for p in b),
                     "n_a": len(a), "n_b": len(b)})
        if len(rows) >= limit:
            break
    return rows


@given(text=st.text(alphabet="ab 12\n\t.é日本😀\u0301", max_size=50), limit=st.integers(1, 5))
def test_diff_regions_equals_the_piece_at_a_time_reference(text, limit):
    from analysis.probes.boundaries import diff_regions

    a, b = load_tokenizer("gpt2").pieces(text), load_tokenizer("o200k_base").pieces(text)
    for x, y in ((a, b), (b, a), (a, a)):
        assert diff_regions(text, x, y, limit=limit).to_dict("records") == _diff_regions_reference(text, x, y, limit)
