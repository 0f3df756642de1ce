"""The fetched vocabularies that the installed reference packages ship, built without a fetch."""

from __future__ import annotations

import importlib.metadata as md
from pathlib import Path

from analysis.tokenizers import Tokenizer
from analysis.tokenizers.base import Source
from analysis.tokenizers.builders import build_from_file
from analysis.tokenizers.fetch import FETCHABLE


def reference_builds() -> list[Tokenizer]:
    """Each fetched name whose pinned package version is installed, built from that package's copy of its file."""
    out = []
    for name, spec in FETCHABLE.items():
        try:
            dist = md.distribution(spec.package)
        except md.PackageNotFoundError:
            continue
        path = Path(str(dist.locate_file(spec.member)))
        if dist.version == spec.version and path.is_file():
            out.append(build_from_file(name, spec.kind, path, Source(spec.package, spec.member, spec.licence, spec.version)))
    return out
