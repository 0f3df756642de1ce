"""Probe 2: premium on parallel text (any folder, FLORES layout included), bytes/char, reduction."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from analysis.probes.languages import bytes_per_char, language_premium, resolve_pivot, tokenizer_reduction

EN = ["The cat sleeps.", "It is raining today."]
RU = ["Кошка спит.", "Сегодня идёт дождь."]
HI = ["बिल्ली सो रही है।", "आज बारिश हो रही है।"]


def _flores(root: Path, texts: dict[str, list[str]]) -> Path:
    """A FLORES-style tree: dev/ and devtest/ each with <lang>_<Script>.<split> files."""
    for split, part in (("dev", slice(0, 1)), ("devtest", slice(1, 2))):
        (root / split).mkdir(parents=True)
        for name, lines in texts.items():
            (root / split / f"{name}.{split}").write_text("\n".join(lines[part]) + "\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def premium(tmp_path_factory):
    root = _flores(tmp_path_factory.mktemp("flores"), {"eng_Latn": EN, "rus_Cyrl": RU, "hin_Deva": HI})
    return language_premium(root, "cl100k_base,o200k_base", pivot="eng_Latn")


def test_premium_on_a_flores_layout(premium):
    p = premium.astype({"tokenizer": str}).set_index(["tokenizer", "language"])
    assert set(premium["language"]) == {"en", "ru", "hi"}
    assert (premium["pivot"] == "en").all()
    assert p.loc[("cl100k_base", "en"), "premium"] == 1.0
    # dev and devtest lines of a language are joined with one space
    assert p.loc[("cl100k_base", "en"), "n_chars"] == len(" ".join(EN))
    from analysis import load_tokenizer

    cl = load_tokenizer("cl100k_base")
    expected = len(cl.encode(" ".join(HI))) / len(cl.encode(" ".join(EN)))
    assert p.loc[("cl100k_base", "hi"), "premium"] == pytest.approx(expected)
    assert p.loc[("cl100k_base", "hi"), "premium"] > p.loc[("o200k_base", "hi"), "premium"] > 1


def test_bytes_per_char_by_script(premium):
    b = bytes_per_char(premium).set_index("script")
    assert b.loc["Latn", "bytes_per_char"] == 1.0
    assert b.loc["Deva", "bytes_per_char"] > b.loc["Cyrl", "bytes_per_char"] > 1.5
    assert b.index.tolist() == ["Latn", "Cyrl", "Deva"]  # sorted by bytes per char


def test_reduction_o200k_vs_cl100k(premium):
    r = tokenizer_reduction(premium, new="o200k_base", old="cl100k_base").set_index("language")
    row = r.loc["hi"]
    assert row["reduction_pct"] == pytest.approx(100 * (1 - row["tokens_new"] / row["tokens_old"]))
    assert row["reduction_pct"] > 0
    assert r["reduction_pct"].is_monotonic_decreasing
    with pytest.raises(KeyError, match="gpt2"):
        tokenizer_reduction(premium, new="gpt2")


def test_pivot_resolution_and_errors(tmp_path):
    assert resolve_pivot("eng_Latn", ["en", "zh-Hans"]) == "en"
    assert resolve_pivot("zho_Hans", ["en", "zh-Hans"]) == "zh-Hans"
    with pytest.raises(KeyError, match="languages: \\['en', 'fr'\\]"):
        resolve_pivot("de", ["fr", "en"])
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "en.txt").write_text("a\nb\n", encoding="utf-8")
    (plain / "fr.txt").write_text("c\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not aligned"):
        language_premium(plain, "cl100k_base")


def test_builtin_parallel_corpus():
    p = language_premium("builtin", "o200k_base")
    assert (p.loc[p["language"] == "en", "premium"] == 1.0).all()
    assert p["language"].nunique() >= 20
    assert p["premium"].notna().all()


def test_real_flores_sample(shared_dir, tmp_path):
    flores = shared_dir / "corpora" / "flores200"
    if not flores.is_dir():
        pytest.skip(f"{flores} not present")
    # the first 40 lines of three languages, in the same layout (kept in tmp, never in the repo)
    for split in ("dev", "devtest"):
        (tmp_path / split).mkdir()
        for name in ("eng_Latn", "hin_Deva", "zho_Hans"):
            lines = (flores / split / f"{name}.{split}").read_text(encoding="utf-8").splitlines()[:40]
            (tmp_path / split / f"{name}.{split}").write_text("\n".join(lines) + "\n", encoding="utf-8")
    p = language_premium(tmp_path, "cl100k_base,o200k_base", pivot="eng_Latn").astype({"tokenizer": str})
    wide = p.pivot(index="language", columns="tokenizer", values="premium")
    assert set(wide.index) == {"en", "hi", "zh-Hans"}
    assert wide.loc["hi", "cl100k_base"] > 3
    assert wide.loc["hi", "o200k_base"] < wide.loc["hi", "cl100k_base"]


@pytest.mark.slow
def test_full_flores200(shared_dir):
    flores = shared_dir / "corpora" / "flores200"
    if not flores.is_dir():
        pytest.skip(f"{flores} not present")
    p = language_premium(flores, "cl100k_base,o200k_base", pivot="eng_Latn")
    assert p["language"].nunique() == 23
    en = p[p["language"] == "en"]
    assert (en["premium"] == 1.0).all()
    assert isinstance(p, pd.DataFrame)


def test_reduction_says_when_it_compares_another_pair_than_the_default(capsys):
    from analysis.cli import main
    from analysis.probes import ProbeRun

    frame = ProbeRun(tokenizers="gpt2,cl100k_base").reduction_table()
    assert set(frame["new"]) == {"cl100k_base"}
    assert set(frame["old"]) == {"gpt2"}
    assert "default pair o200k_base vs cl100k_base is not among" in frame.attrs["note"]
    assert ProbeRun(tokenizers="cl100k_base,o200k_base").reduction_table().attrs.get("note") is None
    assert main(["probe", "tokenizer-reduction", "-t", "gpt2,cl100k_base", "--format", "csv", "--no-progress"]) == 0
    assert "note: tokenizer-reduction compares cl100k_base with gpt2" in capsys.readouterr().err
