"""The BPE lab page under AppTest: stepping and the two trainers side by side."""

from __future__ import annotations

import pandas as pd

from analysis.lab import bpe as lab
from tests.dashboards.conftest import open_page

PAGE = "app_pages/bpe_lab.py"
CORPUS = "the cat sat on the mat; the cat ate the rat.\nthat hat is that hat"


def _drawn(at) -> list[str]:
    return [h.proto.body for h in at.html if h.proto.body.startswith('<div class="tp-text">')]


def test_default_corpus_steps_and_round_trips():
    at = open_page(PAGE)
    rules = at.dataframe[0].value
    assert len(rules) == at.slider(key="lab_merges").value == 15
    assert rules["round_trip"].all()
    assert any("Round-trip checked at every step" in s.value for s in at.success)
    assert rules["count"].is_monotonic_decreasing or rules["count"].iloc[0] == rules["count"].max()


def test_corpus_and_sliders_drive_the_rule_table_and_the_drawing():
    at = open_page(PAGE)
    at.text_area(key="lab_corpus").set_value(CORPUS)
    at.slider(key="lab_merges").set_value(12).run()
    assert not at.exception
    expected = lab.bpe_steps(CORPUS, 12)
    pd.testing.assert_frame_equal(at.dataframe[0].value.reset_index(drop=True), expected.rules)
    at.slider(key="lab_step").set_value(4).run()
    assert not at.exception
    assert _drawn(at)[0].count('class="tp-tok') == len(expected.pieces_at(4)) == expected.rules["n_tokens"].iloc[3]
    assert at.metric[1].value == f"{expected.rules['n_tokens'].iloc[3]:,}"
    at.slider(key="lab_step").set_value(0).run()
    assert _drawn(at)[0].count('class="tp-tok') == len(CORPUS.encode())  # before any merge: bytes


def test_empty_corpus_is_a_message_and_the_other_tab_still_works():
    at = open_page(PAGE)
    at.text_area(key="lab_corpus").set_value("").run()
    assert not at.exception
    assert any("empty" in w.value for w in at.warning)
    assert at.text_input(key="train_vocab").value == "1000"  # the training tab was drawn


def test_builtin_sample_is_truncated_to_the_limit():
    at = open_page(PAGE)
    at.segmented_control(key="lab_source").set_value("Built-in sample").run()
    assert not at.exception
    assert at.dataframe[0].value["round_trip"].all()


def test_training_comparison_follows_the_vocabulary_size():
    at = open_page(PAGE)
    at.selectbox(key="train_builtin").set_value("code")
    at.text_input(key="train_vocab").set_value("600").run()
    assert not at.exception
    summary = at.table[0].value
    assert summary["n_merges"].tolist() == [344, 344]
    assert summary["vocab_size"].tolist() == [600, 600]
    at.text_input(key="train_probe").set_value("def main(): return 0").run()
    split = at.table[-1].value.set_index("trainer")
    for trainer in ("ownbpe", "hf"):
        assert split.loc[trainer, "split"].replace("|", "").replace("·", " ") == "def main(): return 0"


def test_training_upload_of_a_binary_file_is_refused():
    at = open_page(PAGE)
    at.segmented_control(key="train_source").set_value("Upload a file").run()
    at.file_uploader(key="train_upload").set_value(("model.bin", b"\x7fELF\x02\x01", "application/octet-stream")).run()
    assert not at.exception
    assert any("executable" in e.value for e in at.error)
