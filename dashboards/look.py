"""How the dashboard looks: the CSS of drawn tokens, their legends, and the focus script.

Unlike `shared` and `corpus_views` (cached computations), this module holds constants and the
two calls that put them on a page. It imports nothing but streamlit, so the app's entrypoint,
which runs before every page, pays for no pandas or tokenizer to set the page up.
"""

from __future__ import annotations

import streamlit as st

# Two alternating token colours (the terminal renderer's light blue and light orange), a pink
# for tokens holding part of a character, and a red bar under tokens the other side lacks.
CSS = """
<style>
.tp-text { font-family: "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 0.92rem;
  line-height: 2.0; white-space: pre-wrap; overflow-wrap: break-word; color: #1d1d1f; background: #fbfbfd;
  border: 1px solid #e3e5ea; border-radius: 0.5rem; padding: 0.6rem 0.8rem; max-height: 26rem; overflow-y: auto; }
.tp-tok { border-radius: 3px; padding: 2px 0; margin-right: 1px; }
.tp-t0 { background: #cfe2ff; }
.tp-t1 { background: #ffe0bd; }
.tp-partial { background: #ffc2d1; font-size: 0.8em; }
.tp-diff { box-shadow: inset 0 -3px 0 #d62728; }
.tp-fmt { background: #ececef; color: #8e8e96; font-size: 0.85em; }
.tp-tool { background: #f6e7c8; color: #8a6d2b; }
.tp-legend span.tp-tok { padding: 1px 6px; margin-right: 6px; }
/* A heatmap (cells of a fixed size) or a table wider than its column scrolls inside the column, so
   the page itself never pans sideways (at 390 px) and nothing is cut off (checked at 1400 and 390 px
   by tests/dashboards/test_layout.py). */
[data-testid="stVegaLiteChart"], [data-testid="stTable"] { max-width: 100%; overflow-x: auto; }
</style>
"""

LEGEND = ('<div class="tp-legend" style="font-size:0.85rem;color:#555">'
          '<span class="tp-tok tp-t0">token</span><span class="tp-tok tp-t1">next token</span>'
          '<span class="tp-tok tp-partial">&lt;0xE3&gt; part of a character</span>'
          '· space &nbsp; → tab &nbsp; ↵ newline &nbsp; — hover a token for its id and bytes</div>')
CHAT_LEGEND = ('<div class="tp-legend" style="font-size:0.85rem;color:#555">'
               '<span class="tp-tok tp-fmt">format</span>the chat format\'s own tokens (roles, markers, separators) '
               '&nbsp; <span class="tp-tok tp-fmt tp-tool">tools</span>the tool definitions as the format writes them '
               '&nbsp; <span class="tp-tok tp-t0">content</span><span class="tp-tok tp-t1">next</span>your text '
               '&nbsp; — hover a token for its id and bytes</div>')


class Html(str):
    """HTML for `st.html` to take as it is.

    Given a plain string, Streamlit dedents and strips it (`textwrap.dedent`: regular
    expressions over the whole of a 170 KB drawing, with the GIL held: a fifth of the server's
    time on the drawing line with five sessions at once); an object with `_repr_html_` is used
    unchanged. The drawings start with their `<div>`, so there is nothing to dedent or strip.
    """

    def _repr_html_(self) -> str:
        return str(self)


def inject_css() -> None:
    st.html(CSS)


# Focus the first text box of the page once it is drawn, unless the reader is already somewhere
# else (a rerun must never steal focus). Streamlit has no autofocus option.
_FOCUS_JS = """<script>
(function () {
  let tries = 0;
  const focus = () => {
    const box = document.querySelector('[data-testid="stTextArea"] textarea');
    if (!box) { if (tries++ < 100) setTimeout(focus, 50); return; }
    const active = document.activeElement;
    if (!active || active === document.body) box.focus();
  };
  focus();
})();
</script>"""


def focus_text_area() -> None:
    st.html(_FOCUS_JS, unsafe_allow_javascript=True)

