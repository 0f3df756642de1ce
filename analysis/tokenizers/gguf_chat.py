"""Which chat format a GGUF file's ``tokenizer.chat_template`` is, among those tokenprism renders.

Unlike `analysis.requests.formats` (which renders each family's format, id for id against its
reference), this module only reads the file's Jinja template and names the family whose format
it writes, by the markers and fixed text each family's template holds. A template that matches
none is named as such, with the reason, and a count with it is an estimate of the content only.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

# family -> (the variant its renderer takes, or "" for the family's own; the strings its template must hold)
_FAMILIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("llama3", "", ("<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>")),
    ("llama4", "", ("<|header_start|>", "<|header_end|>", "<|eot|>")),
    ("qwen", "qwen2.5", ("<|im_start|>", "<|im_end|>", "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.")),
)
_KNOWN_MARKERS = {"<|im_start|>": "ChatML", "<start_of_turn>": "Gemma", "[INST]": "Mistral", "<|user|>": "Phi-3",
                  "<|START_OF_TURN_TOKEN|>": "Command-R", "<｜User｜>": "DeepSeek", "<|turn>": "Gemma 4"}


@dataclass(frozen=True)
class TemplateMatch:
    """The family a template writes (None: none tokenprism renders), its variant, and why."""

    family: str | None
    variant: str
    reason: str
    digest: str  # sha256 of the template text, first 12 hex digits ("" without a template)


def match_template(template: str | None) -> TemplateMatch:
    """The family of `template`, by the markers and fixed text of each family tokenprism renders.

    >>> match_template("{{'<|start_header_id|>' + m.role + '<|end_header_id|>'}}{{ m.content + '<|eot_id|>' }}").family
    'llama3'
    >>> match_template("{{'<|im_start|>' + m.role }}").reason.split(':')[0]
    "the file's chat template (ChatML markers) is none of the formats tokenprism renders"
    """
    if not template:
        return TemplateMatch(None, "", "the file holds no chat template (tokenizer.chat_template)", "")
    digest = hashlib.sha256(template.encode("utf-8")).hexdigest()[:12]
    for family, variant, needed in _FAMILIES:
        if all(s in template for s in needed):
            return TemplateMatch(family, variant, f"the file's chat template ({digest}) writes the {family} format "
                                 f"(its markers{' and default system prompt' if variant else ''})", digest)
    seen = [name for marker, name in _KNOWN_MARKERS.items() if marker in template]
    kind = f"{', '.join(dict.fromkeys(seen))} markers" if seen else "no known markers"
    return TemplateMatch(None, "", f"the file's chat template ({kind}) is none of the formats tokenprism renders: "
                         f"{', '.join(f for f, _, _ in _FAMILIES)} (digest {digest})", digest)


def file_rows(specs: list[str]) -> list[dict[str, Any]]:
    """Rows of `tokenprism tokenizers -t` for tokenizers named by a spec: loaded, named by file and digest."""
    from .registry import load_tokenizer

    rows: list[dict[str, Any]] = []
    for spec in specs:
        tok = load_tokenizer(spec)
        template = getattr(tok, "chat_template", None)
        models = "" if not spec.startswith("gguf:") else (
            f"chat template: the {m.family} format" if (m := match_template(template)).family else m.reason)
        rows.append({"name": tok.name, "family": tok.family, "n_vocab": tok.n_vocab, "available": "yes",
                     "models": models, "source": str(tok.source), "licence": tok.source.licence,
                     "chat_template": template})
    return rows
