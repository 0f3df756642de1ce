"""The `>>>` examples in ownbpe's docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["ownbpe", "ownbpe._educational", "ownbpe.bpe", "ownbpe.cli", "ownbpe.count", "ownbpe.explain", "ownbpe.io", "ownbpe.patterns", "ownbpe.userpattern",
           "ownbpe.tokenizer", "ownbpe.train", "ownbpe.fast", "ownbpe.fast.batch", "ownbpe.fast.encoder", "ownbpe.fast.longmerge",
           "ownbpe.fast.pretokenize"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
