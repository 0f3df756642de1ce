"""`cost --image-size WxH`: the images a request body or a log row gives by URL, priced at that size
by each model's rule, through the plan every engine carries (plan -> price_chunk -> count_request)."""

from __future__ import annotations

import json
import pickle
from datetime import date

import pytest

from analysis.cli import main
from analysis.cost import plan_traffic, price_records, read_log_records, summarise
from analysis.engine import price_logs
from analysis.errors import BadInput
from analysis.requests import input_tokens, parse

MODELS = ["gpt-4o", "claude-sonnet-4-5", "gemini-2.5-flash"]


def _body(url: str = "https://example.com/a.png") -> dict:
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "What is in this picture?"},
        {"type": "image_url", "image_url": {"url": url, "detail": "high"}}]}]}


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "urls.jsonl"
    rows = [{"request": _body(), "response": "A cat."}, {"request": _body("https://example.com/b.jpg"), "response": "A dog."}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _input(summary, model: str) -> int:
    return int(summary.models.set_index("model").loc[model, "input_tokens"])


def test_the_plan_prices_url_images_at_the_size_it_carries(log):
    records, report = read_log_records(log)
    sized = plan_traffic(MODELS, on=date(2026, 1, 15), image_size="1000x1000")
    assert pickle.loads(pickle.dumps(sized)).image_size == (1000, 1000)  # it travels to an engine's workers
    bare = plan_traffic(MODELS, on=date(2026, 1, 15))
    with_size = summarise(price_records(records, sized), sized, report)
    without = summarise(price_records(records, bare), bare, report)
    # the rules' own figures for 1000x1000: OpenAI high 765 (4 tiles), Claude ceil(1e6/750), Gemini 2.x 4 x 258
    for model, per_image in zip(MODELS, (765, 1334, 1032)):
        assert _input(with_size, model) - _input(without, model) == 2 * per_image
        assert _input(with_size, model) == sum(input_tokens(r.request, model, image_size=(1000, 1000)).input_tokens
                                              for r in records)
    assert "1000x1000 (--image-size)" in " ".join(with_size.notes)
    # the in-process engine runs the same task a worker runs, from the same plan
    on_engine = summarise(price_logs(records, sized, engine="inprocess"), sized, report)
    assert [_input(on_engine, m) for m in MODELS] == [_input(with_size, m) for m in MODELS]


def test_a_bad_image_size_in_the_plan_is_refused_by_name():
    with pytest.raises(BadInput, match="WIDTHxHEIGHT"):
        plan_traffic(["gpt-4o"], image_size="wide")
    with pytest.raises(BadInput, match="WIDTHxHEIGHT"):
        plan_traffic(["gpt-4o"], image_size=(0, 10))


def test_cost_takes_image_size_for_bodies_and_logs_and_refuses_it_for_texts(tmp_path, log, capsys):
    body = tmp_path / "body.json"
    body.write_text(json.dumps(_body()), encoding="utf-8")
    assert main(["cost", "--messages", str(body), "-m", "gpt-4o", "--image-size", "1024x1024", "--format", "json",
                 "--on", "2026-01-15"]) == 0
    row = json.loads(capsys.readouterr().out)["models"][0]
    assert row["input_tokens"] == input_tokens(parse(_body()), "gpt-4o", image_size=(1024, 1024)).input_tokens
    assert "765 tokens" in row["exactness_reason"]
    assert main(["cost", "--logs", str(log), "-m", "gpt-4o", "--image-size", "512x512", "--format", "json",
                 "--on", "2026-01-15"]) == 0
    assert "1 media part counted by the provider's documented rule (255 tokens)" in \
        json.loads(capsys.readouterr().out)["models"][0]["exactness_reason"]  # 512x512 high: 85 + 170
    assert main(["cost", "hello", "-m", "gpt-4o", "--image-size", "512x512"]) == 2
    assert "a text request has none" in capsys.readouterr().err
    assert main(["cost", "--messages", str(body), "-m", "gpt-4o", "--image-size", "512"]) == 2
    assert "--image-size" in capsys.readouterr().err
