"""The built-in corpora measured under the bundled tokenizers, once per release, as a data file.

Unlike `rows.measure`, which counts whatever it is given, this module answers one fixed question
whose answer changes only with a release: what `measure(load_builtin(), names)` gives for the
tokenizers that ship with tokenprism. The answer is checked in next to the built-in ownbpe model
(`analysis/data/builtin-measured.csv`) and written by `make builtin-table`; a test fails with that
command when it is stale. The dashboard's Explore page draws its first chart from it instead of
counting 400 samples under ten tokenizers while the reader waits.

The file's first line is a key: the sha256 of the built-in corpora's manifest (which pins each
corpus file's sha256) and of each bundled vocabulary's package and version. When the installed
packages or corpora differ from the ones the file was made with, the file is not used and the
numbers are measured live: the file can be old, never wrong.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import pandas as pd

from ..corpora import builtin_dir, load_builtin
from ..tokenizers import CATALOGUE
from ..tokenizers.vocab import package_version
from .rows import CATEGORICAL, measure

FILE = "builtin-measured.csv"
FORMAT = "tokenprism builtin-measured v1"


def bundled_names() -> list[str]:
    """The tokenizers the file covers: every catalogue entry that ships with tokenprism (no fetch)."""
    return [n for n, e in CATALOGUE.items() if not e.fetched]


def table_path() -> Path:
    return Path(str(resources.files("analysis.data").joinpath(FILE)))


def current_key() -> str:
    """What the stored numbers depend on, as installed now (corpora manifest, vocabulary packages)."""
    h = hashlib.sha256(FORMAT.encode())
    h.update((builtin_dir() / "manifest.toml").read_bytes())
    for name in bundled_names():
        e = CATALOGUE[name]
        h.update(f"\n{name} {e.package} {package_version(e.package) or 'this-release'} {e.file}".encode())
    return h.hexdigest()


def build_table() -> str:
    """The file's text: the key line, then `measure(load_builtin(), bundled_names())` as CSV.

    Deterministic: the same corpora and vocabularies give the same bytes (floats written as
    their shortest exact repr, rows in `measure`'s order).
    """
    out = io.StringIO()
    out.write(f"# {FORMAT} key={current_key()}\n")
    measure(load_builtin(), bundled_names()).to_csv(out, index=False, lineterminator="\n")
    return out.getvalue()


def _stored() -> pd.DataFrame | None:
    """The checked-in table when it was made for what is installed now, else None."""
    path = table_path()
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline()
            if first.strip() != f"# {FORMAT} key={current_key()}":
                return None
            return pd.read_csv(f, dtype={c: str for c in ("sample_id", *CATEGORICAL)}, keep_default_na=False)
    except OSError:
        return None


def _typed(frame: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    # categories in order of first appearance, the tokenizer's in the order asked: as `measure`
    cats = {c: pd.CategoricalDtype(pd.unique(frame[c].astype(str))) for c in CATEGORICAL if c != "tokenizer"}
    cats["tokenizer"] = pd.CategoricalDtype(list(names))
    return frame.astype(cats)


def measured_builtin(names: Sequence[str]) -> pd.DataFrame:
    """`measure(load_builtin(), names)`, read from the checked-in table where it covers `names`.

    Tokenizers the table lacks (fetched ones, a stale table) are measured now and merged in,
    rows in `measure`'s order (sample-major, tokenizers as in `names`).
    """
    names = list(dict.fromkeys(names))
    stored = _stored()
    have = [n for n in names if stored is not None and n in set(bundled_names())]
    missing = [n for n in names if n not in have]
    if not have:
        return measure(load_builtin(), names)
    parts = [stored[stored["tokenizer"].isin(have)]]  # type: ignore[index]
    if missing:
        live = measure(load_builtin(), missing)
        # a spec (ownbpe:PATH) is measured under its tokenizer's own name
        renamed = dict(zip(missing, live["tokenizer"].cat.categories))
        names = [renamed.get(n, n) for n in names]
        parts.append(live.astype({c: str for c in CATEGORICAL}))
    frame = pd.concat(parts, ignore_index=True)
    order = {s: i for i, s in enumerate(pd.unique(parts[0]["sample_id"]))}
    rank = {n: i for i, n in enumerate(names)}
    frame = (frame.assign(_s=frame["sample_id"].map(order), _t=frame["tokenizer"].map(rank))
             .sort_values(["_s", "_t"], kind="stable").drop(columns=["_s", "_t"]).reset_index(drop=True))
    return _typed(frame, names)


if __name__ == "__main__":  # python -m analysis.pipeline.builtin_table  (make builtin-table)
    import sys

    from ..atomic import write_text

    target = Path(sys.argv[1]) if len(sys.argv) > 1 else table_path()
    text = build_table()
    write_text(target, text)
    print(f"wrote {target}: {text.count(chr(10)) - 2} rows", file=sys.stderr)
