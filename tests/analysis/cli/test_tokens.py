"""`tokenprism encode`, `decode` and `truncate`: ids as tiktoken gives them, text back exactly, refusals."""

from __future__ import annotations

import io
import json
import sys

import pytest
import tiktoken
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.cli import main
from analysis.tokenizers import load_tokenizer, tiktoken_params

TEXTS = st.text(alphabet=st.one_of(st.sampled_from(list("aé中👍🏽e\u0301 \n\t<|>")),
                                   st.characters(blacklist_categories=("Cs",))), min_size=1, max_size=40)


def reference(name: str) -> tiktoken.Encoding:
    """tiktoken's own engine on the same ranks, pattern and special tokens."""
    ranks, pattern, specials = tiktoken_params(name)
    return tiktoken.Encoding(f"{name}-reference", pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)


REFERENCES = {name: reference(name) for name in ("o200k_base", "cl100k_base")}


def run(argv, capsys, stdin: bytes | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


# -- encode / decode ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(REFERENCES))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXTS)
def test_encode_gives_tiktokens_ids_and_decode_gives_the_text_back(capsys, name, text):
    rc, out, _ = run(["encode", "-t", name, "--", text], capsys)  # "--": a text may start with "-"
    assert rc == 0
    ids = [int(i) for i in out.split()]
    # special-token strings in the text are text: tiktoken's encode_ordinary
    assert ids == REFERENCES[name].encode_ordinary(text)
    rc, out, _ = run(["decode", "-n", *map(str, ids), "-t", name], capsys)  # -n: the bytes alone
    assert rc == 0
    assert out == text
    rc, out, _ = run(["decode", *map(str, ids), "-t", name], capsys)  # a line, as echo writes one
    assert out == (text if text.endswith("\n") else text + "\n")


@pytest.mark.parametrize("name", list(REFERENCES))
def test_encode_json_and_decode_from_stdin_with_commas_and_newlines(capsys, monkeypatch, name):
    text = "Héllo 👍🏽 <|endoftext|>\n"
    rc, out, _ = run(["encode", "-t", name, "--format", "json"], capsys, stdin=text.encode(), monkeypatch=monkeypatch)
    assert rc == 0
    body = json.loads(out)
    assert body["ids"] == REFERENCES[name].encode_ordinary(text)  # the final newline is read, and counted
    assert (body["tokenizer"], body["n_tokens"], body["exactness"]) == (name, len(body["ids"]), "exact")
    listed = ",\n".join(map(str, body["ids"])).encode()
    rc, out, _ = run(["decode", "-t", name, "--format", "json"], capsys, stdin=listed, monkeypatch=monkeypatch)
    assert rc == 0
    assert json.loads(out) == {"tokenizer": name, "n_tokens": len(body["ids"]), "text": text, "complete": True}


def test_special_token_ids_decode_to_their_strings(capsys):
    rc, out, _ = run(["decode", "199999", "200018", "-t", "o200k_base"], capsys)
    assert rc == 0
    assert out == "<|endoftext|><|endofprompt|>\n"  # issue 56: decode ends its line


def test_ids_that_end_inside_a_character_are_flagged(capsys):
    ids = load_tokenizer("cl100k_base").encode("👍")
    assert len(ids) > 1
    rc, out, err = run(["decode", str(ids[0]), "-t", "cl100k_base", "--format", "json"], capsys)
    assert rc == 0
    body = json.loads(out)
    assert body["complete"] is False
    assert bytes.fromhex(body["hex"]) == "👍".encode()[: len(bytes.fromhex(body["hex"]))]
    assert "inside a character" in err


@pytest.mark.parametrize(("ids", "message"), [
    (["200019"], "token id 200019 (item 1) is out of range: o200k_base's ids are 0..200018"),
    (["5", "-1"], "token id -1 (item 2) is out of range: o200k_base's ids are 0..200018"),
    (["199998"], "token id 199998 is not a token of o200k_base: its ids run 0..200018, but 19 of them are unused, "
                 "no token has them: 199998, 200000..200017"),
    (["200003", "200001"], "token ids 200001, 200003 are not a token of o200k_base"),
    (["12", "x1"], "'x1' (item 2) is not a token id"),
    (["1.5"], "'1.5' (item 1) is not a token id"),
])
def test_ids_without_a_token_are_refused_with_the_valid_range(capsys, ids, message):
    rc, out, err = run(["decode", *ids, "-t", "o200k_base"], capsys)
    assert rc == 2
    assert out == ""
    assert message in err


def test_cl100k_range_and_an_empty_list(capsys, monkeypatch):
    rc, _, err = run(["decode", "100277", "-t", "cl100k_base"], capsys)
    assert rc == 2
    assert "cl100k_base's ids are 0..100276" in err
    rc, _, err = run(["decode", "-t", "cl100k_base"], capsys, stdin=b" ,\n", monkeypatch=monkeypatch)
    assert rc == 2
    assert "no token ids given" in err


def test_a_model_names_its_text_tokenizer_and_says_when_it_is_a_proxy(capsys):
    rc, out, err = run(["encode", "hello world", "-m", "claude-sonnet-4-5"], capsys)
    assert rc == 0
    assert out == " ".join(map(str, REFERENCES["o200k_base"].encode_ordinary("hello world"))) + "\n"
    assert "claude-sonnet-4-5: the text's tokens under o200k_base (an estimate" in err
    assert "chat format's tokens are not counted" in err
    rc, out, _ = run(["encode", "hello world", "-m", "claude-sonnet-4-5", "--format", "json"], capsys)
    assert json.loads(out)["exactness"] == "estimate"
    assert "no public tokenizer" in json.loads(out)["exactness_reason"]


@pytest.mark.parametrize("argv", [["encode", "hi"], ["encode", "hi", "-t", "o200k_base", "-m", "gpt-4o"]])
def test_one_tokenizer_or_one_model_is_required(capsys, argv):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2


def test_an_unknown_tokenizer_exits_2_with_the_closest_name(capsys):
    rc, _, err = run(["encode", "hi", "-t", "o200k"], capsys)
    assert rc == 2
    assert "o200k_base" in err


# -- truncate ------------------------------------------------------------------------------------------
TEXT = "Tokens 中文字 and 👍🏽👍🏽 emoji, e\u0301 combining.\n"


def test_truncate_writes_the_first_n_tokens_of_a_file(tmp_path, capsys):
    path = tmp_path / "long.txt"
    path.write_text(TEXT, encoding="utf-8")
    tok = load_tokenizer("o200k_base")
    ids = tok.encode(TEXT)
    for n in range(1, len(ids) + 2):
        rc, out, err = run(["truncate", "-f", str(path), "-t", "o200k_base", "--max-tokens", str(n)], capsys)
        assert rc == 0
        assert TEXT.startswith(out)
        assert tok.count(out) <= n
        assert out.encode() == tok.decode_bytes(ids[:n]) or "inside a character" in err
        assert ("kept" in err) is (n < len(ids))


def test_truncate_drops_a_split_character_and_says_so(capsys):
    tok = load_tokenizer("cl100k_base")
    ids = tok.encode("👍🏽")
    rc, out, err = run(["truncate", "👍🏽", "-t", "cl100k_base", "--max-tokens", "2"], capsys)
    assert rc == 0
    assert out in ("", "👍")
    assert tok.decode_bytes(ids[:2]).startswith(out.encode())
    assert f"kept {tok.count(out)} of {len(ids)} cl100k_base tokens" in err
    assert "token 2 ends inside a character, so the cut dropped back to the last whole character" in err


def test_truncate_with_a_model_budgets_the_text_tokens_only(tmp_path, capsys, monkeypatch):
    rc, out, err = run(["truncate", "-m", "gpt-4o", "--max-tokens", "3"], capsys,
                       stdin="one two three four five".encode(), monkeypatch=monkeypatch)
    assert rc == 0
    assert out == "one two three"
    assert "gpt-4o: the text's tokens under o200k_base (exact); the chat format's tokens are not counted" in err


def test_truncate_out_writes_the_file_atomically(tmp_path, capsys):
    out_path = tmp_path / "kept.txt"
    out_path.write_text("old", encoding="utf-8")
    rc, out, _ = run(["truncate", TEXT, "-t", "o200k_base", "--max-tokens", "2", "--out", str(out_path)], capsys)
    assert rc == 0
    assert out == ""
    tok = load_tokenizer("o200k_base")
    assert out_path.read_text(encoding="utf-8") == tok.decode(tok.encode(TEXT)[:2]) == "Tokens 中文"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt"]  # no temporary file left beside it


def test_truncate_refuses_two_inputs_and_a_missing_file(tmp_path, capsys):
    rc, _, err = run(["truncate", "x", "-f", str(tmp_path / "a.txt"), "-t", "o200k_base", "--max-tokens", "2"], capsys)
    assert rc == 2
    assert "give one input, not TEXT and -f" in err
    rc, _, err = run(["truncate", "-f", str(tmp_path / "none.txt"), "-t", "o200k_base", "--max-tokens", "2"], capsys)
    assert rc == 2
    assert "no such file" in err
