"""The HTTP service under load, against a bare reference app driven by the same load generator.

The references are a bare Starlette app and a bare FastAPI app (the issue allows either),
each one uvicorn worker counting with a tiktoken o200k_base Encoding built from the same ranks. Both are real processes on free 127.0.0.1
ports; the load generator (a small asyncio HTTP/1.1 keep-alive client, below) is bounded in
requests and time and connects only to 127.0.0.1. Figures (issue #11):

- POST /v1/count of a 1 KB text with o200k_base: throughput ratio to the reference, p99 ratio
  at 32 connections, errors over N requests;
- all bundled tokenizers in one request: median request time minus the sum of the in-process
  encode times, and minus the reference's own round trip as well;
- RSS growth of the server over the long run (after a warm-up);
- seconds from process start until /readyz is 200 (all tokenizers).

Sizes come from the environment so a quick run is possible: TOKENPRISM_BENCH_API_REQUESTS
(default 10,000), TOKENPRISM_BENCH_API_RSS_REQUESTS (default 100,000).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.analysis.api.server import REPO, free_port, serve, wait_engines
from tests.benchmarks.timing import median_time

HOST = "127.0.0.1"  # the only address this load generator will ever connect to
CONNECTIONS = 32
TIME_LIMIT_S = 300.0


# -- the reference apps (run as `uvicorn --factory tests.benchmarks.bench_api:<name>`) -------------
def _o200k():
    import tiktoken

    from analysis.tokenizers import tiktoken_params

    ranks, pattern, specials = tiktoken_params("o200k_base")
    return tiktoken.Encoding("o200k_base", pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)


def reference_starlette():
    """Bare Starlette: one route that counts with tiktoken o200k_base."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    enc = _o200k()

    async def count(request: Request) -> JSONResponse:
        body = await request.json()
        return JSONResponse({"n_tokens": len(enc.encode_ordinary(body["text"]))})

    return Starlette(routes=[Route("/v1/count", count, methods=["POST"])])


def reference_fastapi():
    """Bare FastAPI: the same route with a FastAPI body (no model, no limits, no keys, no metrics)."""
    from fastapi import Body, FastAPI

    enc = _o200k()
    app = FastAPI()

    @app.post("/v1/count")
    async def count(body: dict = Body(...)) -> dict:
        return {"n_tokens": len(enc.encode_ordinary(body["text"]))}

    return app


reference_app = reference_starlette


# -- the load generator --------------------------------------------------------------------------
async def _load(port: int, path: str, body: bytes, n_requests: int, connections: int, time_limit: float) -> dict:
    request = (f"POST {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    latencies: list[float] = []
    errors = 0
    issued = 0
    deadline = time.monotonic() + time_limit

    async def worker() -> None:
        nonlocal issued, errors
        reader = writer = None
        while issued < n_requests and time.monotonic() < deadline:
            issued += 1
            try:
                if writer is None:
                    reader, writer = await asyncio.open_connection(HOST, port)
                t0 = time.perf_counter()
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                status = int(head[9:12])
                length = 0
                for line in head.split(b"\r\n"):
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                await reader.readexactly(length)
                latencies.append(time.perf_counter() - t0)
                if status != 200:
                    errors += 1
            except (OSError, asyncio.IncompleteReadError, ValueError):
                errors += 1
                if writer is not None:
                    writer.close()
                reader = writer = None
        if writer is not None:
            writer.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(connections)))
    elapsed = time.perf_counter() - t0
    return summarize(latencies, errors, elapsed)


def summarize(latencies: list[float], errors: int, elapsed: float) -> dict:
    lat = sorted(latencies)
    return {"requests": len(lat) + errors, "errors": errors, "seconds": elapsed, "rps": len(lat) / elapsed,
            "p50_ms": 1000 * lat[len(lat) // 2], "p99_ms": 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))],
            "latencies": latencies}


def alternate(targets: dict[str, tuple[str, dict]], n: int, rounds: int = 10, connections: int = CONNECTIONS) -> dict[str, dict]:
    """Every target in turn, in rounds of n/rounds requests: a shared, noisy machine slows all of
    them alike instead of whichever happened to run during a busy spell."""
    parts: dict[str, list[dict]] = {k: [] for k in targets}
    for _ in range(rounds):
        for key, (url, body) in targets.items():
            parts[key].append(load(url, "/v1/count", body, n // rounds, connections))
    return {key: summarize([x for p in ps for x in p["latencies"]], sum(p["errors"] for p in ps),
                           sum(p["seconds"] for p in ps)) for key, ps in parts.items()}


def load(url: str, path: str, payload: dict, n: int, connections: int = CONNECTIONS) -> dict:
    port = int(url.rsplit(":", 1)[1])
    return asyncio.run(_load(port, path, json.dumps(payload).encode(), n, connections, TIME_LIMIT_S))


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


class Reference:
    """A reference app in its own uvicorn process, stopped by pid."""

    def __init__(self, factory: str) -> None:
        self.factory = factory

    def __enter__(self):
        self.port = free_port()
        self.proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "--factory", f"tests.benchmarks.bench_api:{self.factory}",
                                      "--host", HOST, "--port", str(self.port), "--log-level", "warning", "--no-access-log"],
                                     cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        url = f"http://{HOST}:{self.port}"
        t0 = time.monotonic()
        while True:
            try:
                load(url, "/v1/count", {"text": "warm"}, 1, 1)
                break
            except Exception:
                if time.monotonic() - t0 > 60 or self.proc.poll() is not None:
                    raise RuntimeError("the reference app did not start")
                time.sleep(0.1)
        return url

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def text_1kb() -> str:
    from analysis.corpora import sample_text

    text = sample_text()
    while len(text.encode("utf-8")) < 1024:
        text += text
    out = text[:1024]
    while len(out.encode("utf-8")) > 1024:
        out = out[:-1]
    return out


def main(out_dir: Path) -> dict:
    from analysis import available_tokenizers, load_tokenizer

    n = int(os.environ.get("TOKENPRISM_BENCH_API_REQUESTS", "10000"))
    n_rss = int(os.environ.get("TOKENPRISM_BENCH_API_RSS_REQUESTS", "100000"))
    text = text_1kb()
    ours_body = {"text": text, "tokenizers": ["o200k_base"]}
    result: dict = {"cpu_count": os.cpu_count(), "text_bytes": len(text.encode()), "connections": CONNECTIONS}

    # 1. throughput, p99 and errors: both references and ours, same generator, same run, alternating
    names = available_tokenizers()
    with Reference("reference_starlette") as star_url, Reference("reference_fastapi") as fast_url:
        with serve("--tokenizers", "o200k_base") as (url, proc, _):
            wait_engines(url)  # the engine a long run uses, built after ready in the background
            targets = {"starlette": (star_url, {"text": text}), "fastapi": (fast_url, {"text": text}), "ours": (url, ours_body)}
            alternate(targets, 300 * 3, rounds=3)  # warm-up
            runs = alternate(targets, n)
            ours = runs["ours"]
            result.update(runs=runs, errors=ours["errors"], requests=ours["requests"])
            for key in ("starlette", "fastapi"):
                result[f"throughput_ratio_vs_{key}"] = ours["rps"] / runs[key]["rps"]
                result[f"p99_ratio_vs_{key}"] = ours["p99_ms"] / runs[key]["p99_ms"]
            # 3. RSS over the long run (after the warm-up and the runs above)
            before = rss_kb(proc.pid)
            long = load(url, "/v1/count", ours_body, n_rss)
            after = rss_kb(proc.pid)
            result.update(rss_requests=long["requests"], rss_errors=long["errors"], rss_before_kb=before,
                          rss_after_kb=after, rss_growth=(after - before) / before)

        # 2 and 4. every bundled tokenizer in one request, one connection, alternating with the
        # reference's own round trip; time to ready with all of them
        with serve() as (url, proc, seconds_to_ready):
            result["readyz_seconds_all_tokenizers"] = seconds_to_ready
            seqs = alternate({"reference": (star_url, {"text": text}), "all": (url, {"text": text})}, 600, connections=1)
    ref_seq, seq = seqs["reference"], seqs["all"]
    toks = [load_tokenizer(nm) for nm in names]
    encode_ms = {t.name: 1000 * median_time(lambda _: t.count_batch([text]), repeat=301) for t in toks}
    o200k = encode_ms["o200k_base"]
    total = sum(encode_ms.values())
    result.update(all_tokenizers=names, encode_ms=encode_ms, sum_encode_ms=total, all_request_p50_ms=seq["p50_ms"],
                  overhead_ms=seq["p50_ms"] - total, reference_round_trip_ms=ref_seq["p50_ms"],
                  overhead_beyond_reference_ms=seq["p50_ms"] - total - (ref_seq["p50_ms"] - o200k))

    print(f"POST /v1/count, {result['text_bytes']} B text, o200k_base, {CONNECTIONS} connections, {n:,} requests each "
          f"(os.cpu_count()={os.cpu_count()}, load generator on the same machine)")
    for key, label in (("starlette", "bare Starlette"), ("fastapi", "bare FastAPI"), ("ours", "tokenprism")):
        r = runs[key]
        print(f"  {label:15s} {r['rps']:7,.0f} req/s  p50 {r['p50_ms']:6.2f} ms  p99 {r['p99_ms']:6.2f} ms  errors {r['errors']}/{r['requests']:,}")
    for key in ("starlette", "fastapi"):
        print(f"  vs bare {key}: throughput ratio {result[f'throughput_ratio_vs_{key}']:.2f} (target >= 0.8), "
              f"p99 ratio {result[f'p99_ratio_vs_{key}']:.2f} (target <= 2)")
    print(f"all {len(names)} tokenizers per request: p50 {seq['p50_ms']:.2f} ms; sum of encodes {total:.2f} ms; "
          f"overhead {result['overhead_ms']:.2f} ms; beyond the reference's own round trip "
          f"({ref_seq['p50_ms']:.2f} ms): {result['overhead_beyond_reference_ms']:.2f} ms (target <= 1 ms)")
    print(f"RSS over {long['requests']:,} requests: {before / 1024:.1f} -> {after / 1024:.1f} MB "
          f"({100 * result['rss_growth']:+.1f}%, target < 5%), errors {long['errors']}")
    print(f"/readyz 200 after {seconds_to_ready:.2f} s from process start, all tokenizers (target <= 5 s)")
    for r in (*runs.values(), ref_seq, seq):
        r.pop("latencies")
    (out_dir / "api.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return {k: result[k] for k in ("throughput_ratio_vs_starlette", "p99_ratio_vs_starlette", "throughput_ratio_vs_fastapi",
                                   "p99_ratio_vs_fastapi", "errors", "overhead_ms",
                                   "overhead_beyond_reference_ms", "rss_growth", "readyz_seconds_all_tokenizers")}
