"""Server time of the dashboard's Compare page for 10 KB and 1 MB of text (targets: 0.3 s and 2 s).

Measures the page's compute path, i.e. the `analysis` calls the page makes for a new input
(what `st.cache_data` computes once per text): the counts table (`compare`) over every bundled
tokenizer available offline, the special-token scan, the two default drawings (pieces + HTML of
the first HIGHLIGHT_CHARS characters) and the side-by-side diff. Tokenizers are loaded and
warmed first, as `st.cache_resource` keeps them for the life of the server. Figures are also
given as ratios to the raw `encode` time of the same tokenizers and to tiktoken's o200k_base
alone, measured in the same run.
"""

from __future__ import annotations

import json
from pathlib import Path

from analysis.compare import compare, special_strings_in
from analysis.probes.boundaries import boundary_diff, diff_regions
from analysis.render import highlight_prefix, html_tokens
from analysis.tokenizers import CATALOGUE, available_tokenizers, load_tokenizer
from tests.benchmarks.timing import median_time

TARGETS = {"10KB": (10_000, 0.3), "1MB": (1_000_000, 2.0)}
DRAWN = ("o200k_base", "cl100k_base")  # the page's default drawings and side-by-side pair


def corpus(n_chars: int, offset: int) -> str:
    from analysis.corpora import load_builtin

    base = "\n\n".join(load_builtin(["prose", "code", "multilingual"])["text"])
    text = base[offset % len(base):] + "\n\n" + base
    while len(text) < n_chars:
        text += "\n\n" + base
    return text[:n_chars]


def page_compute(text: str, toks: list) -> None:
    """What the Compare page computes for a new text (see the page script)."""
    compare(text, toks)
    special_strings_in(text, toks)
    prefix = highlight_prefix(text)
    drawn = {t.name: t.pieces(prefix) for t in toks if t.name in DRAWN}
    for name, pieces in drawn.items():
        html_tokens(prefix, pieces)
    a, b = drawn.values()
    boundary_diff(a, b)
    html_tokens(prefix, a, other=b)
    html_tokens(prefix, b, other=a)
    diff_regions(prefix, a, b)


def main(out_dir: Path) -> dict:
    names = [n for n in available_tokenizers() if not CATALOGUE[n].fetched]  # bundled only
    toks = [load_tokenizer(n) for n in names]
    for t in toks:
        t.encode(corpus(20_000, 7))  # warm: loaded once per server process
    o200k = load_tokenizer("o200k_base")
    rows = []
    for label, (n_chars, target) in TARGETS.items():
        repeat = 5 if n_chars <= 100_000 else 3
        texts = [corpus(n_chars, 1000 * (i + 1)) for i in range(repeat)]  # a new input each time
        page = median_time(lambda i: page_compute(texts[i], toks), repeat)
        raw = median_time(lambda i: [t.encode(texts[i]) for t in toks], repeat)
        ref = median_time(lambda i: o200k.encode(texts[i]), repeat)
        rows.append({"input": label, "n_chars": n_chars, "n_tokenizers": len(toks), "page_s": round(page, 4),
                     "target_s": target, "within_target": page <= target, "raw_encode_all_s": round(raw, 4),
                     "page_vs_raw_encode": round(page / raw, 2), "page_vs_o200k_encode": round(page / ref, 1)})
    print(f"tokenizers: {', '.join(names)}")
    print(f"{'input':6} {'page s':>8} {'target':>7} {'ok':>4} {'raw encode s':>13} {'page/raw':>9} {'page/o200k':>11}")
    for r in rows:
        print(f"{r['input']:6} {r['page_s']:8.3f} {r['target_s']:7.1f} {'yes' if r['within_target'] else 'NO':>4} "
              f"{r['raw_encode_all_s']:13.3f} {r['page_vs_raw_encode']:9.2f} {r['page_vs_o200k_encode']:11.1f}")
    (out_dir / "dashboard.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return {"rows": rows}
