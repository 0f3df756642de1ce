"""The export readers (issue 58) on generated exports: CPU of reading and pricing each shape against
counting the same texts, in one run.

A tool's export is priced from the usage it logged, so nothing is tokenized; the floor a user
knows is what counting the same texts would cost (the request log road). Each shape's file is
generated with the same texts (a system prompt, a user message of 8-60 words, a response of 10-120
words: `bench_traffic`'s words) and read by `iter_export_rows` + `bill_of_rows` in this process
(`time.process_time()`); the reference counts every text once with o200k_base in this process. The
rounds interleave the reference and the readers (the machine is shared), and each ratio is taken
within its round; the medians are reported.

    python -m tests.benchmarks exports                       # 100,000 rows a shape
    TOKENPRISM_BENCH_ROWS=20000 TOKENPRISM_BENCH_ROUNDS=1 python -m tests.benchmarks exports
"""

from __future__ import annotations

import gzip
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from tests.benchmarks.bench_traffic import SYSTEM, WORDS

ROWS = int(os.environ.get("TOKENPRISM_BENCH_ROWS", "100000"))
ROUNDS = int(os.environ.get("TOKENPRISM_BENCH_ROUNDS", "3"))
SHAPES = ("otel", "langfuse", "helicone", "litellm", "anthropic-usage")


def _texts(rng: random.Random) -> tuple[str, str, str]:
    return (rng.choice(SYSTEM), " ".join(rng.choices(WORDS, k=rng.randint(8, 60))),
            " ".join(rng.choices(WORDS, k=rng.randint(10, 120))))


def _attr(key: str, value: object) -> dict:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _row(shape: str, i: int, system: str, user: str, answer: str) -> dict:
    prompt, completion = 20 + len(user) // 5, len(answer) // 5
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    at = 1795219200 + i
    if shape == "otel":
        parts = json.dumps([{"role": "user", "parts": [{"type": "text", "content": user}]}])
        out = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}]}])
        return {"name": "chat gpt-4o-mini", "startTimeUnixNano": str(at * 10**9), "attributes": [
            _attr("gen_ai.request.model", "gpt-4o-mini"), _attr("gen_ai.usage.input_tokens", prompt),
            _attr("gen_ai.usage.output_tokens", completion), _attr("gen_ai.system_instructions", system),
            _attr("gen_ai.input.messages", parts), _attr("gen_ai.output.messages", out)]}
    if shape == "langfuse":
        return {"type": "GENERATION", "start_time": "2026-11-20 10:30:00.000000", "provided_model_name": "gpt-4o-mini",
                "usage_details": {"input": prompt, "output": completion, "total": prompt + completion},
                "cost_details": {"total": 0.0001}, "input": messages, "output": {"role": "assistant", "content": answer}}
    if shape == "helicone":
        return {"response_id": f"r{i}", "request_created_at": at, "provider": "OPENAI", "model": "gpt-4o-mini",
                "prompt_tokens": prompt, "completion_tokens": completion, "cost": 0.0001,
                "request_body": {"model": "gpt-4o-mini", "messages": messages},
                "response_body": {"choices": [{"message": {"role": "assistant", "content": answer}}]}}
    if shape == "litellm":
        return {"request_id": f"c{i}", "spend": 0.0001, "startTime": at, "model": "openai/gpt-4o-mini",
                "prompt_tokens": prompt, "completion_tokens": completion,
                "metadata": {"usage_object": {"prompt_tokens": prompt, "completion_tokens": completion}},
                "messages": messages, "response": {"choices": [{"message": {"role": "assistant", "content": answer}}]}}
    return {"starting_at": "2026-11-20T00:00:00Z", "results": [{
        "uncached_input_tokens": prompt, "cache_read_input_tokens": 0, "output_tokens": completion,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "model": "claude-haiku-4-5", "service_tier": "standard", "context_window": "0-200k"}]}


def generate(folder: Path, rows: int) -> dict[str, Path]:
    """One gzip JSON Lines file a shape (OTel: a document of 100 spans a line), the same texts in each."""
    paths = {}
    for shape in SHAPES:
        rng = random.Random(11)
        path = paths[shape] = folder / f"{shape}.jsonl.gz"
        with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as fh:
            spans: list[dict] = []
            for i in range(rows):
                row = _row(shape, i, *_texts(rng))
                if shape == "otel":
                    spans.append(row)
                    if len(spans) == 100 or i == rows - 1:
                        fh.write(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}) + "\n")
                        spans = []
                else:
                    fh.write(json.dumps(row) + "\n")
    return paths


def text_blocks(rows: int, block: int = 10_000) -> Iterator[list[str]]:
    rng = random.Random(11)
    texts: list[str] = []
    for i in range(rows):
        texts += _texts(rng)
        if len(texts) >= 3 * block:
            yield texts
            texts = []
    if texts:
        yield texts


def count_reference(rows: int) -> float:
    """CPU seconds of counting every text once with o200k_base, a block at a time (texts made outside the timing)."""
    from analysis import load_tokenizer

    tok = load_tokenizer("o200k_base")
    tok.count("warm up")
    cpu = 0.0
    for texts in text_blocks(rows):
        c0 = time.process_time()
        for text in texts:
            tok.count(text)
        cpu += time.process_time() - c0
    return cpu


def read_and_price(path: Path, shape: str) -> tuple[float, int, str]:
    from analysis.cost.logs.export_bill import bill_of_rows
    from analysis.cost.logs.exports import iter_export_rows

    c0 = time.process_time()
    bill = bill_of_rows(iter_export_rows(path, shape=shape))
    return time.process_time() - c0, bill.requests, str(bill.total)


def main(out_dir: Path) -> dict:
    result: dict = {"rows": ROWS, "rounds": ROUNDS, "shapes": {}}
    with tempfile.TemporaryDirectory() as tmp:
        paths = generate(Path(tmp), ROWS)
        read_and_price(paths["langfuse"], "langfuse")  # imports and genai-prices' data loaded before timing
        ratios: dict[str, list[float]] = {s: [] for s in SHAPES}
        cpu: dict[str, list[float]] = {s: [] for s in SHAPES}
        refs = []
        for r in range(ROUNDS):
            ref = count_reference(ROWS)
            refs.append(ref)
            for shape in SHAPES if r % 2 == 0 else reversed(SHAPES):
                seconds, requests, total = read_and_price(paths[shape], shape)
                assert requests == ROWS, (shape, requests)
                cpu[shape].append(seconds)
                ratios[shape].append(seconds / ref)
            print(f"round {r + 1}: count {ref:.2f} CPU s; " + ", ".join(
                f"{s} {cpu[s][-1]:.2f} s ({ratios[s][-1]:.2f}x)" for s in SHAPES), flush=True)
    result["count_cpu_s"] = round(statistics.median(refs), 2)
    for shape in SHAPES:
        result["shapes"][shape] = {"cpu_s": round(statistics.median(cpu[shape]), 2),
                                   "vs_count": round(statistics.median(ratios[shape]), 2)}
    print(f"{'shape':<16} {'CPU s':>8} {'x count':>8}   ({ROWS:,} rows; count: {result['count_cpu_s']} CPU s, o200k_base)")
    for shape, row in result["shapes"].items():
        print(f"{shape:<16} {row['cpu_s']:>8} {row['vs_count']:>8}")
    (out_dir / "exports.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result
