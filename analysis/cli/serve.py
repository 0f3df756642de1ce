"""`tokenprism serve`: run the HTTP service with uvicorn.

Unlike the service itself (`analysis/api`, a face this module never imports), this reads the
flags, checks them before anything starts (unknown tokenizers, an unreadable key file: exit 2),
warns loudly when a non-loopback address is bound without a key, hands the settings to the
worker processes through the environment, and starts uvicorn with the app factory as an import
string, so each worker builds and preloads its own app.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

from . import help_line
from ..textio.numbers import bounded
from ..atomic import temporary_name
from ..errors import BadInput, UnknownName, closest, shown
from ..tokenizers.folder import checked_folder

APP = "analysis.api.app:create_app"
PROTOCOL = "analysis.api.connections:HeadDeadlineProtocol"  # uvicorn's h11, with a deadline on each request head
CONFIG_ENV = "TOKENPRISM_SERVE_CONFIG"  # read by analysis.api.settings.Settings.from_env in each worker
WORKERS_MAX = 256  # worker processes: each loads every tokenizer, so more than this is a typo
SUPERVISOR_ENV = "TOKENPRISM_SERVE_SUPERVISOR"  # the pid the workers die with (analysis.api.lifeline)
# flag -> (Limits field, default, meaning). The defaults repeat the service's own (`Limits`), which
# this face cannot import; a test checks that they agree.
LIMITS = {
    "--max-body-bytes": ("max_body_bytes", 4_000_000, "request body size in bytes (413 above it)"),
    "--max-texts": ("max_texts", 1_000, "texts in one /v1/count or /v1/cost request"),
    "--max-text-chars": ("max_text_chars", 1_000_000, "characters of one text, prompt or message"),
    "--max-tokenizers": ("max_tokenizers", 32, "tokenizers named in one request"),
    "--max-models": ("max_models", 32, "models named in one /v1/cost request"),
    "--max-ids": ("max_ids", 1_000_000, "token ids in one detokenize request"),
    "--max-explain-chars": ("max_explain_chars", 5_000, "characters one /v1/explain traces"),
    "--max-messages": ("max_messages", 1_000, "messages in one count_tokens request"),
}


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: assume it is reachable from elsewhere


def _tokenizer_names(spec: str | None) -> tuple[str, ...]:
    from ..tokenizers import CATALOGUE, available_tokenizers
    from ..tokenizers.registry import is_available

    if not spec:
        return ()
    names = tuple(dict.fromkeys(n.strip() for n in spec.split(",") if n.strip()))
    if not names:
        raise BadInput("--tokenizers is empty; name some (see `tokenprism tokenizers`) or leave it out for all")
    for n in names:
        if n not in CATALOGUE and ":" not in n:
            close = closest(n, CATALOGUE)
            raise UnknownName("tokenizer", n, CATALOGUE, message=(
                f"unknown tokenizer {shown(n)} in --tokenizers." + (f" Did you mean {', '.join(close)}?" if close else "")
                + f" Valid: {', '.join(available_tokenizers())}"))
        if n in CATALOGUE and not is_available(n):
            raise BadInput(f"tokenizer {n!r} is not on this machine yet; fetch it first: tokenprism vocab fetch {n}")
    return names


def _check_key_file(path: str) -> None:
    from ..textio import MAX_KEY_FILE_BYTES, read_text_file

    try:
        lines = read_text_file(path, max_bytes=MAX_KEY_FILE_BYTES)[0].splitlines()
    except (OSError, ValueError) as e:  # BadInput (a FIFO, too large, not UTF-8) is a ValueError
        raise BadInput(f"cannot read --api-key-file {path!r}: {e}") from None
    if not any(line.strip() and not line.lstrip().startswith("#") for line in lines):
        raise BadInput(f"--api-key-file {path!r} holds no key; write one key per line "
                       "(python -c 'import secrets; print(secrets.token_urlsafe(32))' > FILE)")


def open_warning(host: str, has_key: bool) -> str | None:
    """The loud warning for a non-loopback address served without a key, or None."""
    if has_key or _is_loopback(host):
        return None
    bar = "!" * 78
    return (f"{bar}\nWARNING: serving on {host}, which is not a loopback address, WITHOUT an API key.\n"
            "Anyone who can reach this machine can use the service. Give --api-key-file FILE (or set\n"
            f"TOKENPRISM_API_KEY), or bind to 127.0.0.1 behind a reverse proxy.\n{bar}")


def cmd_serve(args: argparse.Namespace) -> int:
    import json

    import uvicorn

    # --port, --workers, the limits and the deadlines are read by the bounded readers of
    # textio.numbers: a value out of range exits 2 naming the range, a huge one cut in the message.
    limits = {name: getattr(args, name) for name, _, _ in LIMITS.values()}
    tokenizers = _tokenizer_names(args.tokenizers)
    if args.api_key_file:
        _check_key_file(args.api_key_file)
    has_key = bool(args.api_key_file or os.environ.get("TOKENPRISM_API_KEY", "").strip())
    warning = open_warning(args.host, has_key)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    config = {"limits": limits, "tokenizers": list(tokenizers), "head_timeout": args.head_timeout,
              "body_timeout": args.body_timeout, "cors_origins": list(args.cors_origin or ()),
              "key_file": os.path.abspath(args.api_key_file) if args.api_key_file else None,
              "tokenizer_dir": checked_folder(args.tokenizer_dir)}
    os.environ[CONFIG_ENV] = json.dumps(config)  # the workers inherit it
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    metrics_dir = None
    if args.workers > 1:
        # the workers end with this process, even when it is SIGKILLed (analysis.api.app reads this)
        os.environ[SUPERVISOR_ENV] = str(os.getpid())
    if args.workers > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # one /metrics for all workers: prometheus-client's multiprocess mode adds their files up.
        # The folder's name is a temporary name of analysis.atomic, carrying this process's id:
        # one left by a SIGKILLed server is removed by the next start, and nothing else is.
        metrics_dir = temporary_name(Path(tempfile.gettempdir()) / "metrics")
        metrics_dir.mkdir(mode=0o700)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)
    print(f"tokenprism serve: http://{args.host}:{args.port} (workers={args.workers}, "
          f"tokenizers={','.join(tokenizers) or 'all available'}, keys={'required' if has_key else 'none'}, "
          f"docs at /docs)", file=sys.stderr, flush=True)
    try:
        # HTTP/1.1 with a deadline on each request head (analysis.api.connections), a bound on
        # connections and tasks (a 503 past it) and on silent kept-alive connections.
        uvicorn.run(APP, factory=True, host=args.host, port=args.port, workers=args.workers,
                    log_level=args.log_level, access_log=False, root_path=args.root_path,
                    proxy_headers=True, server_header=False, http=PROTOCOL,
                    limit_concurrency=args.limit_concurrency, timeout_keep_alive=args.keep_alive_timeout)
    finally:
        if metrics_dir:
            shutil.rmtree(metrics_dir, ignore_errors=True)  # we made it
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `serve` to the `tokenprism` parser."""
    p = sub.add_parser("serve", help=help_line("serve"),
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter,
                       description="Serves /v1/count, /v1/tokenize, /v1/cost, ... with an OpenAPI schema at "
                                   "/openapi.json and an offline docs page at /docs. Binds to loopback by default.")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (a non-loopback address without a key warns)")
    p.add_argument("--port", type=bounded(1, 65535, integer=True), default=8000)
    p.add_argument("--workers", type=bounded(1, WORKERS_MAX, integer=True, unit="processes"), default=1,
                   help="worker processes, each with its own tokenizers loaded")
    p.add_argument("--tokenizers", "-t", metavar="A,B", help="tokenizers to load and serve (default: all available offline)")
    p.add_argument("--api-key-file", metavar="FILE",
                   help="require a key from this file (one per line) on every route but /healthz and /readyz; "
                        "keys may also come from the TOKENPRISM_API_KEY variable (comma-separated)")
    p.add_argument("--cors-origin", action="append", metavar="URL", help="allow browser calls from this origin (repeatable; default: no CORS)")
    p.add_argument("--tokenizer-dir", metavar="DIR", help="serve the GGUF (.gguf) and SentencePiece (.model) files of this "
                   "folder at POST /tokenize and /detokenize in llama.cpp's shapes; a client names a file inside it")
    p.add_argument("--root-path", default="", help="path prefix when served behind a reverse proxy (e.g. /tokenprism)")
    p.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info",
                   help="info logs one line per request: method, route, status, size and time (never the text)")
    lim = p.add_argument_group("limits (each request over one gets 413 or 422 naming it)")
    for flag, (name, default, meaning) in LIMITS.items():
        lim.add_argument(flag, dest=name, type=bounded(1, 10**12, integer=True), default=default, metavar="N", help=meaning)
    conn = p.add_argument_group("connections (for internet exposure, put a reverse proxy in front as well)")
    conn.add_argument("--head-timeout", type=bounded(0.1, 3600, unit="seconds"), default=10.0, metavar="S",
                      help="close a connection whose request line and headers take longer than this to arrive")
    conn.add_argument("--body-timeout", type=bounded(0.1, 3600, unit="seconds"), default=60.0, metavar="S",
                      help="close a connection whose request body takes longer than this to arrive after its head")
    conn.add_argument("--keep-alive-timeout", type=bounded(1, 3600, integer=True, unit="seconds"), default=5,
                      metavar="S", help="close a kept-alive connection silent for this long")
    conn.add_argument("--limit-concurrency", type=bounded(1, 1_000_000, integer=True), default=1000, metavar="N",
                      help="connections and requests in progress per worker; past it, 503")
    p.set_defaults(func=cmd_serve)
