"""Text renderings of token boundaries: whitespace made visible, tokens coloured or separated.

Unlike `plots` (figures from tidy frames), this module draws one text as its tokens, for the
terminal (`tokenprism compare --show`) and as HTML for the dashboard. Both share the same
visible-whitespace alphabet: · for a space, → for a tab, ↵ for a newline (the line break is kept
after it), ␍ for a carriage return; other control characters as symbols or bytes, and
bidirectional controls and zero-width spaces by code point.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Sequence

from .textio.numbers import compact_number as compact_number  # the one short form of a number, kept here for callers
from .tokenizers.base import Piece, clean_text

VISIBLE = {" ": "·", "\t": "→", "\n": "↵\n", "\r": "␍"}
# Other control characters never reach a terminal raw (an ESC could recolour or retitle it, a BEL
# ring it): C0 controls as their Control Pictures (␛ for ESC), DEL as ␡, C1 controls as <0x9B>.
_CONTROLS = {**{c: chr(0x2400 + c) for c in range(0x20)}, 0x7F: "\u2421",
             **{c: f"<0x{c:02X}>" for c in range(0x80, 0xA0)}}
# Characters that reorder or break the text drawn after them, or take no room at all, are shown
# by code point: the bidirectional controls (an U+202E can make a terminal line read backwards),
# the line and paragraph separators (some terminals start a line there), and the zero-width
# space, word joiner and BOM, and the characters that draw as nothing or as a blank: the soft
# hyphen, the zero-width joiners, the invisible operators, the Mongolian vowel separator and the
# Hangul fillers (a token of any of them would look empty). The joiners shape emoji and some
# scripts, but a boundary view draws each token on its own, where a joiner shapes nothing.
_HIDDEN = [0x00AD, 0x061C, 0x115F, 0x1160, 0x180E, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F,
           *range(0x202A, 0x202F), 0x2028, 0x2029, *range(0x2060, 0x2065), *range(0x2066, 0x206A), 0x3164,
           0xFEFF, 0xFFA0]
_VISIBLE_TABLE = str.maketrans({**_CONTROLS, **{c: f"<U+{c:04X}>" for c in _HIDDEN},
                                **{ord(k): v for k, v in VISIBLE.items()}})
_ANSI_BG = ("\x1b[48;5;153m\x1b[38;5;16m", "\x1b[48;5;223m\x1b[38;5;16m")  # light blue / light orange
_ANSI_PARTIAL = "\x1b[48;5;217m\x1b[38;5;16m"
_ANSI_RESET = "\x1b[0m"
_ANSI_APART = "\x1b[1m\x1b[4m"  # bold, underlined: a token whose span the other tokenizers do not all have
# Drawing every token of a megabyte would freeze a browser: boundaries are drawn for a prefix.
# The browser's work for the drawing (about 2,000 spans per 10k characters, one block per drawn
# tokenizer, two by default on the Compare page) is in proportion to the drawn length, and a
# browser's CPU per paste grows with it (measured: docs/performance.md).
HIGHLIGHT_CHARS = 10_000


def visible(text: str) -> str:
    """Make whitespace visible.

    >>> visible("a b\\tc\\n")
    'a·b→c↵\\n'
    >>> visible("\\x1b[31mred\\x07")
    '␛[31mred␇'
    >>> visible("abc\\u202edef\\u2028")
    'abc<U+202E>def<U+2028>'
    """
    return text.translate(_VISIBLE_TABLE)


# Text the CLI echoes (names and notes from the user's files, messages quoting input) keeps its
# tabs, line ends and joiners (emoji and some scripts need them) and loses everything a terminal
# would obey: controls as pictures, reordering and line-breaking characters by code point.
_TERMINAL_TABLE = str.maketrans({**{c: v for c, v in _CONTROLS.items() if c not in (0x09, 0x0A, 0x0D)},
                                 **{c: f"<U+{c:04X}>" for c in _HIDDEN if c not in (0x200C, 0x200D)}})
_LONE_CR = re.compile(r"\r(?!\n)")


def terminal_text(text: str) -> str:
    r"""Untrusted text made safe to print on a terminal: no escape sequence, bell or reordering.

    ESC, BEL and the other controls (C0 but tab and line ends, DEL, C1) become their pictures,
    a carriage return that does not end a line becomes ␍ (it would overwrite the line), and
    bidirectional controls and line separators are shown by code point.

    >>> terminal_text("gpt\x1b]0;owned\x07-4o\tok\r\n")
    'gpt␛]0;owned␇-4o\tok\r\n'
    >>> terminal_text("a\rb\u202ec")
    'a␍b<U+202E>c'
    """
    return _LONE_CR.sub("\u240d", text).translate(_TERMINAL_TABLE)


_MARKDOWN_PUNCTUATION = str.maketrans({c: "\\" + c for c in "\\`*_{}[]()<>#+-.!|~:$&=^\"'%/@?;,"})


def markdown_text(text: str) -> str:
    r"""Text that Markdown shows as it is: no link, image, emphasis, directive or line break.

    Every ASCII punctuation character is backslash-escaped (CommonMark lets any of them be), and
    line breaks become spaces, so an untrusted string echoed in a message cannot add a link or
    an image (which a browser would fetch) or break out of its list item.

    >>> markdown_text("![](http://127.0.0.1:9/t.png)")
    '\\!\\[\\]\\(http\\:\\/\\/127\\.0\\.0\\.1\\:9\\/t\\.png\\)'
    >>> markdown_text("a\nb")
    'a b'
    """
    return " ".join(text.splitlines()).translate(_MARKDOWN_PUNCTUATION)


def _utf8_length(lead: int) -> int:
    """Bytes of the UTF-8 sequence that `lead` starts; 0 for a byte no sequence starts with."""
    return 1 if lead < 0x80 else 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 4 if 0xF0 <= lead <= 0xF4 else 0


def bytes_label(data: bytes) -> str:
    """A partial token's bytes as drawn: each character whole in it as text (whitespace visible),
    each byte of a character split over several tokens as <0xNN>. So every character is drawn
    once, as text, when one token holds it, and as bytes in every token when several do.

    >>> bytes_label(" 日".encode()[:2]), bytes_label("日本".encode()[2:])
    ('·<0xE6>', '<0xA5>本')
    """
    out: list[str] = []
    text: list[str] = []
    i = 0
    while i < len(data):
        n = _utf8_length(data[i])
        if n and i + n <= len(data):
            try:
                text.append(data[i : i + n].decode("utf-8"))
                i += n
                continue
            except UnicodeDecodeError:
                pass
        if text:
            out.append(visible("".join(text)))
            text = []
        out.append(f"<0x{data[i]:02X}>")
        i += 1
    if text:
        out.append(visible("".join(text)))
    return "".join(out)


def piece_label(text: str, piece: Piece) -> str:
    """What to draw for a piece: its text with visible whitespace, or, when partial, its bytes
    (`bytes_label`: whole characters as text, the bytes of split ones as <0xNN>)."""
    if piece.partial:
        return bytes_label(piece.bytes)
    return visible(text[piece.start : piece.end])


def terminal(text: str, pieces: Sequence[Piece], *, color: bool = True, apart: Sequence[bool] | None = None) -> str:
    """Render `pieces` of `text` for a terminal.

    With `color`, tokens alternate two background colours (partial tokens a third); without,
    tokens are separated by '│'. The tokens `apart` flags (`not_in_every`: where tokenizers
    disagree) are underlined and bold in colour, and put between ‹ › without.

    >>> from analysis.tokenizers.base import Piece
    >>> terminal("ab c", [Piece(1, b"ab", 0, 2), Piece(2, b" c", 2, 4)], color=False)
    'ab│·c'
    >>> terminal("ab c", [Piece(1, b"ab", 0, 2), Piece(2, b" c", 2, 4)], color=False, apart=[True, False])
    '‹ab›│·c'
    """
    # A lone surrogate (from an argument the shell could not decode) has no UTF-8 form, and
    # writing it would fail; the tokenizers counted it as U+FFFD, so it is drawn as one.
    text = clean_text(text)
    out = []
    for i, p in enumerate(pieces):
        label = piece_label(text, p)
        marked = apart is not None and apart[i]
        if marked and not color:
            label = f"‹{label}›"
        if color:
            style = (_ANSI_PARTIAL if p.partial else _ANSI_BG[i % 2]) + (_ANSI_APART if marked else "")
            # keep the colour off the line break itself so the background does not fill the line
            out.append("\n".join(f"{style}{part}{_ANSI_RESET}" if part else "" for part in label.split("\n")))
        else:
            out.append(label)
    return "".join(out) if color else "│".join(out)


def html_tokens(text: str, pieces: Sequence[Piece], *, show_ids: bool = True,
                other: Sequence[Piece] | None = None, others: Sequence[Sequence[Piece]] = (),
                mark: bytes | None = None) -> str:
    """Render `pieces` as HTML spans, a colour per token, with a tooltip of id and bytes.

    The colours (classes `tp-t0`..`tp-t7`) cycle, so two neighbours never share one. With `other`
    (another tokenizer's pieces of the same text) or `others` (several), a token whose span is
    not a token in every one of them also gets class `tp-diff` (drawn ringed). Identical means
    the same character span (a partial piece also needs the same bytes), so a token the other
    side cuts in two is marked even though its own two ends are cuts there too. Tokens whose
    bytes are `mark` get class `tp-mark` (the BPE lab's merge just made).

    >>> a = [Piece(1, b"ab", 0, 2)]
    >>> html_tokens("ab", a, other=[Piece(7, b"a", 0, 1), Piece(8, b"b", 1, 2)]).count("tp-diff")
    1
    >>> html_tokens("ab", a, others=[a, [Piece(7, b"a", 0, 1), Piece(8, b"b", 1, 2)]]).count("tp-diff")
    1
    """
    sides = [*([other] if other is not None else []), *others]
    apart = not_in_every(pieces, sides) if sides else None
    out = []
    for i, p in enumerate(pieces):
        if p.partial:
            cls, label = "tp-partial", html.escape(piece_label(text, p)).replace("\n", "<br>")
        else:  # a whole token's drawing depends on its text alone: worked out once per process
            cls, label = _PARITY[i % len(_PARITY)], _label_html(text[p.start : p.end])
        if apart is not None and apart[i]:
            cls += " tp-diff"
        if mark is not None and p.bytes == mark:
            cls += " tp-mark"
        title = f"id {p.id} · bytes {_bytes_html(p.bytes)}" if show_ids else ""
        # Spaces are drawn as "·", so a line could break nowhere: a zero-width space ends each
        # token. In the text, not as CSS generated content (`::after`), which costs the browser a
        # layout box per token, a large share of a long drawing's layout time.
        out.append(f'<span class="tp-tok {cls}" title="{title}">{label}\u200b</span>')
    return '<div class="tp-text">' + "".join(out) + "</div>"


def not_in_every(pieces: Sequence[Piece], others: Sequence[Sequence[Piece]]) -> list[bool]:
    """For each of `pieces`: True when its span (a partial piece: its span and bytes) is not a
    piece in every one of `others` (the tokenizers disagree there).

    >>> not_in_every([Piece(1, b"ab", 0, 2)], [[Piece(1, b"ab", 0, 2)], [Piece(7, b"a", 0, 1), Piece(8, b"b", 1, 2)]])
    [True]
    """
    spans = [{(p.start, p.end, p.bytes if p.partial else b"") for p in side} for side in others]
    return [not all((p.start, p.end, p.bytes if p.partial else b"") in s for s in spans) for p in pieces]


# Eight token colours in turn (dashboards.look gives them Paul Tol's colour-blind-safe "light"
# scheme): neighbours always differ, and a run of tokens reads apart as well as two shades allow.
_PARITY = tuple(f"tp-t{k}" for k in range(8))


def html_prompt(tokens: Sequence[tuple[int, bytes, str]], *, show_ids: bool = True) -> str:
    """Render a chat prompt's tokens as HTML: the format's tokens (class `tp-fmt`) apart from the content's.

    `tokens` are (id, bytes, "format" | "tool" | "content"), as `analysis.requests.prompt_tokens`
    gives them (a caller may mark the format tokens that render tool definitions "tool"). Content
    tokens alternate the two colours of `html_tokens`; format tokens (markers, roles, separators
    the chat format adds) are greyed, tool tokens greyed on amber (class `tp-tool`). A token whose bytes are not whole UTF-8
    is drawn as its bytes (`tp-partial`), as in `html_tokens`.

    >>> out = html_prompt([(1, b"<|im_start|>", "format"), (2, b"hi there", "content")])
    >>> out.count("tp-fmt"), out.count("tp-t0"), "hi·there" in out
    (1, 1, True)
    """
    out = []
    n_content = 0
    for tid, data, kind in tokens:
        try:
            label = _label_html(data.decode("utf-8"))
            partial = False
        except UnicodeDecodeError:
            label, partial = html.escape(bytes_label(data)).replace("\n", "<br>"), True
        if kind in ("format", "tool"):
            cls = "tp-fmt" if kind == "format" else "tp-fmt tp-tool"
        else:
            cls = "tp-partial" if partial else _PARITY[n_content % len(_PARITY)]
            n_content += 1
        title = f"{kind} · id {tid} · bytes {_bytes_html(data)}" if show_ids else kind
        out.append(f'<span class="tp-tok {cls}" title="{title}">{label}\u200b</span>')
    return '<div class="tp-text tp-prompt">' + "".join(out) + "</div>"


# Cached: the same tokens come back in every drawing, and the dashboard draws with the GIL held
# (escaping and making whitespace visible cost most of a drawing's time, measured).
@lru_cache(maxsize=1 << 16)
def _label_html(token_text: str) -> str:
    return html.escape(visible(token_text)).replace("\n", "<br>")


@lru_cache(maxsize=1 << 16)
def _bytes_html(data: bytes) -> str:
    return html.escape(repr(data))


def highlight_prefix(text: str, *, limit: int = HIGHLIGHT_CHARS) -> str:
    """The part of `text` whose tokens are drawn: all of it, or up to a line break near `limit`.

    Cutting at a line break keeps the drawn tokens equal to those of the full text, for
    pre-tokenizers that never join a line break with what follows a non-space character.

    >>> highlight_prefix("ab\\ncd", limit=4)
    'ab\\n'
    """
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", limit // 2, limit)
    return text[: cut + 1] if cut >= 0 else text[:limit]
