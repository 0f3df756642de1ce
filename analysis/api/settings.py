"""Every limit and switch of the service in one frozen object, read from the environment.

Unlike the CLI's flags (`analysis/cli/serve.py`), which a person types, this is what each worker
process reads when it starts: `tokenprism serve` writes the settings into the environment, and
uvicorn's worker processes (one per `--workers`) inherit them, so every worker enforces the
same limits. API keys never travel in the settings: each worker reads them from the key file
or the key variable itself.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Mapping

from ..errors import BadInput
from ..textio import MAX_INPUT_CHARS, MAX_KEY_FILE_BYTES, read_text_file

CONFIG_ENV = "TOKENPRISM_SERVE_CONFIG"  # JSON of `Settings` without keys, written by `tokenprism serve`
KEY_ENV = "TOKENPRISM_API_KEY"  # one key, or several separated by commas
KEY_FILE_ENV = "TOKENPRISM_API_KEY_FILE"  # a file with one key per line


@dataclass(frozen=True)
class Limits:
    """The largest input each endpoint accepts; a request over a limit gets 413 or 422 naming it.

    Attributes:
        max_body_bytes: request body size (413 above it).
        max_texts: texts in one /v1/count or /v1/cost request.
        max_text_chars: characters of one text (a prompt, a message, a batch item).
        max_tokenizers: tokenizers named in one request.
        max_models: models named in one /v1/cost request.
        max_ids: token ids in one detokenize request.
        max_explain_chars: characters of the text /v1/explain traces (the trace is pure Python).
        max_messages: messages in one count_tokens request.
    """

    max_body_bytes: int = 4_000_000
    max_texts: int = 1_000
    max_text_chars: int = MAX_INPUT_CHARS
    max_tokenizers: int = 32
    max_models: int = 32
    max_ids: int = 1_000_000
    max_explain_chars: int = 5_000
    max_messages: int = 1_000

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise BadInput(f"limit {f.name} must be a positive whole number, got {value!r}")


@dataclass(frozen=True)
class Settings:
    """How one service process runs.

    Attributes:
        limits: see `Limits`.
        tokenizers: registry names to load at startup and serve; empty means every tokenizer
            available offline.
        cors_origins: origins allowed to call from a browser; empty means no CORS headers at all.
        key_file: a file of API keys, one per line (read by each worker).
        api_keys: the keys themselves (from `key_file` and TOKENPRISM_API_KEY); empty = no auth.
        encode_threads: threads that run encoding off the event loop (default: one per core).
        tokenizer_dir: a folder whose .gguf and .model files clients may name (llama.cpp's /tokenize).
    """

    limits: Limits = field(default_factory=Limits)
    tokenizers: tuple[str, ...] = ()
    cors_origins: tuple[str, ...] = ()
    key_file: str | None = None
    api_keys: tuple[str, ...] = ()
    encode_threads: int = field(default_factory=lambda: os.cpu_count() or 1)
    tokenizer_dir: str | None = None

    def to_env(self) -> dict[str, str]:
        """The environment that makes `from_env` rebuild these settings (keys excluded)."""
        data = asdict(self)
        data.pop("api_keys")
        return {CONFIG_ENV: json.dumps(data)}

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "Settings":
        """Settings from TOKENPRISM_SERVE_CONFIG (defaults when unset), keys from the key
        file and TOKENPRISM_API_KEY.

        Raises:
            ValueError: a malformed config, a bad limit, an unreadable or empty key file.
        """
        env = os.environ if environ is None else environ
        raw = env.get(CONFIG_ENV)
        data = json.loads(raw) if raw else {}
        limits = Limits(**data.pop("limits", {}))
        data.pop("head_timeout", None)  # the connection layer's, read by analysis.api.connections
        data.pop("body_timeout", None)
        key_file = data.pop("key_file", None) or env.get(KEY_FILE_ENV) or None
        keys = list(read_keys(key_file)) if key_file else []
        keys += [k.strip() for k in env.get(KEY_ENV, "").split(",") if k.strip()]
        return cls(limits=limits, tokenizers=tuple(data.pop("tokenizers", ())),
                   cors_origins=tuple(data.pop("cors_origins", ())), key_file=key_file,
                   api_keys=tuple(dict.fromkeys(keys)), **data)


def read_keys(path: str | Path) -> tuple[str, ...]:
    """API keys from a file: one per line; blank lines and lines starting with # are skipped.

    Raises:
        ValueError: the file cannot be read, holds no key, or a key is shorter than 16 characters.
    """
    p = Path(path)
    try:
        lines = read_text_file(p, max_bytes=MAX_KEY_FILE_BYTES)[0].splitlines()
    except (OSError, ValueError) as e:  # textio's refusals (missing, a FIFO, too large, not UTF-8) are ValueErrors
        raise BadInput(f"cannot read the API key file {str(p)!r}: {e}. Fix: give a readable UTF-8 file "
                       "with one key per line") from None
    keys = tuple(k.strip() for k in lines if k.strip() and not k.lstrip().startswith("#"))
    if not keys:
        raise BadInput(f"the API key file {str(p)!r} holds no key; write one key per line "
                       "(e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))' > FILE)")
    short = [i for i, k in enumerate(keys, 1) if len(k) < 16]
    if short:
        raise BadInput(f"API key(s) number {short} in {str(p)!r} are shorter than 16 characters; "
                       "use long random keys (secrets.token_urlsafe(32))")
    return keys
