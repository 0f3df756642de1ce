"""The split rules behind each ``tokenizer.ggml.pre`` name of a GGUF file, as llama.cpp applies them.

Unlike `gguf_build` (which assembles the tokenizer), this module is a table: for each
pre-tokenizer name llama.cpp knows (its ``llama_vocab::impl::load`` maps names to a type, its
``llm_tokenizer_bpe`` maps each type to a list of split regexes), the regexes and the flags that
change encoding (``ignore_merges``: a word that is itself a token is taken whole). The regexes
are applied one after the other; each splits every piece the previous one left, keeping both the
matches and the text between them (Hugging Face's ``Split`` with ``isolated`` behaviour).

Sources (facts, not code): llama.cpp ``src/llama-vocab.cpp`` (the name-to-type table and the
regex lists); the names a GGUF converter writes come from ``convert_hf_to_gguf.py``.

Names whose split llama.cpp does by hand-written code rather than a regex (``kimi-k2``,
``afmoe``, ``superbpe``) and names outside this table are refused, never approximated.
"""

from __future__ import annotations

from dataclasses import dataclass

# The contraction alternatives, written case by case as llama.cpp writes them (equivalent to
# the original ``(?i:'s|'t|...)`` for ASCII letters).
_CONTRACTIONS = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
_GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"
_LLAMA3 = _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
_QWEN2 = _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
_QWEN35 = (_CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+"
           r"|\s+(?!\S)|\s+")
_UPPER_LOWER = (r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+{c}"
                r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*{c}")
_GPT4O = (_UPPER_LOWER.replace("{c}", _CONTRACTIONS + "?")
          + r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_TEKKEN = _UPPER_LOWER.replace("{c}", "") + r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
_DEEPSEEK3 = (r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"
              r"| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_CJK = "[一-龥぀-ゟ゠-ヿ]+"
# DeepSeek LLM's letters: the ranges llama.cpp lists (the original tokenizer.json's class), as code
# points, since several of them (U+1FBE, U+2126, U+212A, ...) would change under Unicode normalisation
_DEEPSEEK_LLM_RANGES = (
    "41-5A 61-7A B5 C0-D6 D8-F6 F8-1BA 1BC-1BF 1C4-293 295-2AF 370-373 376 377 37B-37D 37F 386 388-38A 38C 38E-3A1 3A3-3F5 3F7-481 48A-52F 531-556 10A0-10C5 13A0-13F5 13F8-13FD 1C90-1CBA 1CBD-1CBF 1D00-1D2B 1D6B-1D77 1D79-1D9A 1E00-1F15 1F18-1F1D 1F20-1F45 1F48-1F4D 1F50-1F57 1F59 1F5B 1F5D 1F5F-1F7D 1F80-1FB4 1FB6-1FBC 1FBE 1FC2-1FC4 1FC6-1FCC 1FD0-1FD3 1FD6-1FDB 1FE0-1FEC 1FF2-1FF4 1FF6-1FFC 2102 2107 210A-2113 2115 2119-211D 2124 2126 2128 212A-212D 212F-2134 2139 213C-213F 2145-2149 214E 2183 2184 2C00-2C7B 2C7E-2CE4 2CEB-2CEE 2CF2 2CF3 A640-A66D A680-A69B A722-A76F A771-A787 A78B-A78E AB70-ABBF FB00-FB06 FB13-FB17 FF21-FF3A FF41-FF5A 10400-1044F 104B0-104D3 104D8-104FB 10C80-10CB2 10CC0-10CF2 118A0-118DF 1E900-1E943")
_DEEPSEEK_LLM_LETTERS = "".join(
    "-".join(chr(int(x, 16)) for x in r.split("-")) for r in _DEEPSEEK_LLM_RANGES.split())
_CASCADE = "".join(rf"|\s{{{n}}}(?!\S)" for n in (512, 256, 128, 64, 32, 16, 8, 4)) + r"|\s{1,2}(?!\S)|\s{1}"


@dataclass(frozen=True)
class PreRule:
    """One llama.cpp pre-tokenizer type: its split regexes and encoding flags."""

    kind: str  # llama.cpp's type, for messages and docs
    regexes: tuple[str, ...]
    ignore_merges: bool = False
    what: str = ""  # one line for docs/tokenizers.md and the `tokenizers` listing


_RULES: dict[str, PreRule] = {
    "llama3": PreRule("LLAMA3", (_LLAMA3,), ignore_merges=True,
                      what="Llama 3 (tiktoken cl100k-style): letters with one leading non-letter, digits in threes"),
    "jais2": PreRule("JAIS2", (_LLAMA3.replace(r"|\s+(?!\S)|\s+", _CASCADE),),
                     what="Llama 3's split with runs of spaces cut in powers of two"),
    "dbrx": PreRule("DBRX", (_LLAMA3,), what="Llama 3's split, merges always applied"),
    "deepseek-llm": PreRule("DEEPSEEK_LLM", (
        "[\r\n]", rf"\s?[{_DEEPSEEK_LLM_LETTERS}]+", "\\s?[!-/:-~！-／：-～‘-‟　-。]+", r"\s+$",
        "[一-龥ࠀ-一가-퟿]+", r"\p{N}+"), what="DeepSeek LLM: newlines alone, Latin/Greek/Cyrillic words, CJK runs, digit runs"),
    "deepseek-coder": PreRule("DEEPSEEK_CODER", (
        "[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", "[一-龥ࠀ-一가-퟿]+", r"\p{N}"),
        what="DeepSeek Coder: newlines alone, words, punctuation runs, CJK runs, single digits"),
    "deepseek-v3": PreRule("DEEPSEEK3_LLM", (r"\p{N}{1,3}", _CJK, _DEEPSEEK3),
                           what="DeepSeek V3: digits in threes, CJK/kana runs, then a word/punctuation split"),
    "falcon": PreRule("FALCON", (r"[\p{P}\$\+<=>\^~\|]+", _GPT2, "[0-9][0-9][0-9]"),
                      what="Falcon: punctuation runs first, then GPT-2's split, digits in threes"),
    "starcoder": PreRule("STARCODER", (r"\p{N}", _GPT2), what="StarCoder: every digit alone, then GPT-2's split"),
    "gpt2": PreRule("GPT2", (_GPT2,), what="GPT-2: contractions, words with one leading space, digit runs"),
    "qwen2": PreRule("QWEN2", (_QWEN2,), what="Qwen 2: Llama 3's split with single digits"),
    "qwen35": PreRule("QWEN35", (_QWEN35,), what="Qwen 3.5: Qwen 2's split with combining marks kept in words"),
    "poro": PreRule("PORO", (r" ?[^(\s|.,!?…。，、।۔،)]+",), what="Poro/BLOOM: runs up to whitespace or punctuation"),
    "chatglm4": PreRule("CHATGLM4", (_LLAMA3,), what="GLM-4: Llama 3's split, merges always applied"),
    "tekken": PreRule("TEKKEN", (_TEKKEN,), ignore_merges=True, what="Mistral Tekken: case-aware words, single digits"),
    "gpt4o": PreRule("GPT4O", (_GPT4O,), what="o200k-style: case-aware words with contractions, digits in threes"),
    "seed-coder": PreRule("SEED_CODER", (_CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+"
                                         r"|\s*[\r\n]+|\s+(?!\S)|\s+",), what="Seed-Coder: Qwen 2-like, symbols never take newlines"),
    "ufakzeka": PreRule("UFAKZEKA", (_QWEN2[len(_CONTRACTIONS) + 1:],), what="Qwen 2's split without contractions"),
    "default": PreRule("DEFAULT", (r"[\p{P}\$\+<=>\^~\|]+", _GPT2, r"\p{N}+", "[0-9][0-9][0-9]"),
                       what="llama.cpp's default BPE split (punctuation runs, GPT-2's split, digits)"),
}

# every name llama.cpp accepts for a BPE vocabulary that this table covers -> its rule
PRE_NAMES: dict[str, str] = {
    **dict.fromkeys(("llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2",
                     "jina-v5-nano"), "llama3"),
    "jais-2": "jais2",
    **dict.fromkeys(("dbrx", "smaug-bpe"), "dbrx"),
    "deepseek-llm": "deepseek-llm",
    "deepseek-coder": "deepseek-coder",
    **dict.fromkeys(("deepseek-v3", "hunyuan-dense", "joyai-llm", "hy_v4"), "deepseek-v3"),
    "falcon": "falcon",
    **dict.fromkeys(("starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b", "mellum2"),
                    "starcoder"),
    **dict.fromkeys(("gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0",
                     "mellum", "modern-bert", "mpt", "olmo", "jais", "trillion", "granite-docling", "exaone4",
                     "jina-v1-en", "jina-v2-code", "roberta-bpe"), "gpt2"),
    **dict.fromkeys(("qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "stablelm2", "hunyuan", "solar-open", "megrez"),
                    "qwen2"),
    "qwen35": "qwen35",
    **dict.fromkeys(("poro-chat", "bloom", "gpt3-finnish"), "poro"),
    **dict.fromkeys(("glm4", "chatglm-bpe"), "chatglm4"),
    "tekken": "tekken",
    **dict.fromkeys(("gpt-4o", "llama4", "kanana2", "talkie", "minimax-m2"), "gpt4o"),
    "seed-coder": "seed-coder",
    "ufakzeka": "ufakzeka",
    "default": "default",
}

# names llama.cpp splits by hand-written code: refused with this reason
HAND_WRITTEN = {"kimi-k2": "split by custom code for Han characters", "afmoe": "digits grouped by custom code",
                "superbpe": "an empty-match lookahead split", "whitespace": "a whitespace-only session",
                "sarvam-moe": "an SPM-style BPE not checked here", "viking": "not checked here",
                "chameleon": "sentinel and image-token splits not checked here",
                "granite-embed-multi-97m": "not checked here", "tiny_aya": "not checked here",
                "cohere2moe": "not checked here", "bailingmoe": "not checked here", "bailingmoe2": "not checked here",
                "llada-moe": "not checked here", "exaone-moe": "not checked here", "grok-2": "not checked here",
                "laguna": "not checked here", "minicpm5": "not checked here", "spark2_5": "not checked here",
                "youtu": "not checked here"}


def rule_for(pre: str | None) -> PreRule:
    """The rule for a ``tokenizer.ggml.pre`` name; a missing name is llama.cpp's ``default``.

    Raises:
        KeyError: the name is unknown or not supported (the message lists the known names).
    """
    name = "default" if not pre else pre
    if name in PRE_NAMES:
        return _RULES[PRE_NAMES[name]]
    why = f" ({HAND_WRITTEN[name]})" if name in HAND_WRITTEN else ""
    raise KeyError(f"the pre-tokenizer {name!r}{why} is not supported; known: {', '.join(sorted(PRE_NAMES))}")


def known_names() -> list[str]:
    return sorted(PRE_NAMES)


def describe() -> list[tuple[str, str, str]]:
    """(rule, names, what it does) per rule, for the docs."""
    out = []
    for rule, r in _RULES.items():
        names = sorted(n for n, v in PRE_NAMES.items() if v == rule)
        out.append((rule, ", ".join(names), r.what))
    return out
