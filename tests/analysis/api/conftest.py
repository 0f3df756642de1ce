"""Fixtures for the service tests: an in-process app (TestClient) and a real server process."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("fastapi", reason="the service needs fastapi (pip install -e '.[dev]')")

from fastapi.testclient import TestClient  # noqa: E402

from analysis.api.app import create_app  # noqa: E402
from analysis.api.settings import Limits, Settings  # noqa: E402

from .server import serve  # noqa: E402

# A few tokenizers of each family: enough to test every path, quick to load.
TOKENIZERS = ("o200k_base", "cl100k_base", "gpt2", "deepseek-v4", "ownbpe")
KEY = "test-key-0123456789abcdef"


def ready_client(settings: Settings) -> TestClient:
    client = TestClient(create_app(settings), raise_server_exceptions=False)
    client.__enter__()
    deadline = time.monotonic() + 60
    while client.get("/readyz").status_code != 200:
        assert time.monotonic() < deadline, "tokenizers did not load in 60 s"
        time.sleep(0.05)
    return client


@pytest.fixture(scope="session")
def client():
    c = ready_client(Settings(tokenizers=TOKENIZERS, limits=Limits(max_body_bytes=200_000, max_texts=5,
                                                                    max_text_chars=50_000, max_tokenizers=3,
                                                                    max_models=3, max_ids=100, max_explain_chars=200,
                                                                    max_messages=5)))
    yield c
    c.__exit__(None, None, None)


@pytest.fixture(scope="session")
def keyed_client():
    c = ready_client(Settings(tokenizers=("o200k_base",), api_keys=(KEY,)))
    yield c
    c.__exit__(None, None, None)


@pytest.fixture(scope="session")
def live_server():
    """A real `tokenprism serve` process (o200k_base and cl100k_base), stopped after the session."""
    with serve("--tokenizers", "o200k_base,cl100k_base") as (url, proc, seconds):
        yield url
