"""The BPE lab page under AppTest: stepping and the two trainers side by side."""

from __future__ import annotations

from collections import Counter

import pandas as pd
import regex

import ownbpe
from analysis.lab import bpe as lab
from analysis.lab.trace import show_token
from analysis.render import visible
from tests.dashboards.conftest import open_link, open_page

PAGE = "app_pages/bpe_lab.py"
CORPUS = "the cat sat on the mat; the cat ate the rat.\nthat hat is that hat"


def _rules(at) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "round_trip" in d.value.columns)


def _candidates(at) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "winner" in d.value.columns)


def _drawn(at) -> list[str]:
    return [h.proto.body for h in at.html if h.proto.body.startswith('<div class="tp-text">')]


def test_default_corpus_steps_and_round_trips():
    at = open_page(PAGE)
    rules = _rules(at)
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
    pd.testing.assert_frame_equal(_rules(at).reset_index(drop=True), expected.rules)
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
    assert _rules(at)["round_trip"].all()


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
        assert split.loc[trainer, "split"].replace(" ", "").replace("·", " ") == "def main(): return 0"


def test_training_upload_of_a_binary_file_is_refused():
    at = open_page(PAGE)
    at.segmented_control(key="train_source").set_value("Upload a file").run()
    at.file_uploader(key="train_upload").set_value(("model.bin", b"\x7fELF\x02\x01", "application/octet-stream")).run()
    assert not at.exception
    assert any("executable" in e.value for e in at.error)


def _pairs_by_encoding(corpus: str, steps: lab.BpeSteps, step: int) -> Counter:
    """The pairs before merge `step`, counted another way than the lab: every pre-token of the
    corpus (GPT-2's pattern, in order, repeats included) encoded by the tokenizer that knows the
    first `step - 1` merges, and each adjacent pair of its tokens counted once."""
    tok = steps.tokenizer_at(step - 1)
    pairs: Counter = Counter()
    for piece in regex.findall(ownbpe.GPT2_PATTERN, corpus):
        tokens = [tok.vocab[i] for i in tok.encode_ordinary(piece)]
        pairs.update(zip(tokens, tokens[1:]))
    return pairs


def test_the_pair_count_table_equals_an_independent_count_at_three_steps():
    at = open_page(PAGE)  # the lab's own corpus and merges
    steps = lab.bpe_steps(lab_corpus := at.text_area(key="lab_corpus").value, at.slider(key="lab_merges").value)
    for step in (1, 7, 15):
        at.slider(key="lab_step").set_value(step).run()
        assert not at.exception
        shown = _candidates(at)
        expected = _pairs_by_encoding(lab_corpus, steps, step)
        as_shown = {(visible(show_token(a)), visible(show_token(b))): n for (a, b), n in expected.items()}
        assert dict(zip(zip(shown["left"], shown["right"]), shown["count"])) == as_shown
        assert len(shown) == len(expected)
        # the winner is highlighted, first, and is the pair the rule table says was merged
        winner = shown[shown["winner"]]
        assert len(winner) == 1 and winner.index[0] == shown.index[0]
        assert winner["merged"].iloc[0] == _rules(at)["merged"].iloc[step - 1]
        assert winner["count"].iloc[0] == max(expected.values()) == _rules(at)["count"].iloc[step - 1]
        # the merge just made is ringed where it occurs in the corpus
        merged = steps.merges[step - 1][0] + steps.merges[step - 1][1]
        n_made = sum(1 for p in steps.pieces_at(step) if p.bytes == merged)
        assert _drawn(at)[0].count("tp-mark") == n_made > 0


def test_a_tie_is_said_with_its_rule():
    at = open_page(PAGE)
    at.text_area(key="lab_corpus").set_value("ab ab cd cd")
    at.slider(key="lab_merges").set_value(2).run()
    at.slider(key="lab_step").set_value(1).run()
    assert not at.exception
    assert any("3 pairs tied at 2 occurrences" in c.value and "greatest pair" in c.value for c in at.caption)
    assert _candidates(at)["merged"].iloc[0] == "cd"


def test_prev_and_next_step_through_and_stop_at_the_ends():
    at = open_page(PAGE)
    last = at.slider(key="lab_step").value
    assert last == len(_rules(at))  # a fresh lab shows the last step
    assert at.button(key="lab_next").proto.disabled
    at.button(key="lab_prev").click().run()
    assert at.slider(key="lab_step").value == last - 1
    at.button(key="lab_next").click().run()
    assert at.slider(key="lab_step").value == last
    at.slider(key="lab_step").set_value(0).run()
    assert at.button(key="lab_prev").proto.disabled
    at.button(key="lab_next").click().run()
    assert at.slider(key="lab_step").value == 1


def test_a_new_corpus_resets_to_its_last_step():
    at = open_page(PAGE)
    at.slider(key="lab_step").set_value(3).run()
    at.text_area(key="lab_corpus").set_value(CORPUS).run()
    assert not at.exception
    assert at.slider(key="lab_step").value == len(_rules(at)) == 15


def test_a_linked_step_keeps_and_a_step_past_the_end_is_clamped_and_said():
    at = open_link(PAGE, {"lab_merges": "10", "lab_step": "4"})
    assert at.slider(key="lab_step").value == 4
    assert not any("past the last merge" in i.value for i in at.info)
    at = open_link(PAGE, {"lab_corpus": "ab ab", "lab_merges": "20", "lab_step": "15"})
    assert not at.exception
    learned = len(_rules(at))
    assert at.slider(key="lab_step").value == learned < 15
    assert any(f"Step 15 is past the last merge learned here ({learned})" in i.value for i in at.info)


def test_a_corpus_too_long_names_the_real_tab():
    at = open_page(PAGE)
    at.text_area(key="lab_corpus").set_value("x " * lab.LAB_MAX_CHARS).run()
    assert not at.exception
    message = next(w.value for w in at.warning if "limited to" in w.value)
    tabs = [t.label for t in at.tabs]
    assert "'ownbpe vs Hugging Face'" in message and "ownbpe vs Hugging Face" in tabs
