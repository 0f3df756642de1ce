"""How the dashboard looks: the CSS of drawn tokens, their legends, and the focus script.

Unlike `shared` and `corpus_views` (cached computations), this module holds constants and the
two calls that put them on a page. It imports nothing but streamlit, so the app's entrypoint,
which runs before every page, pays for no pandas or tokenizer to set the page up.
"""

from __future__ import annotations

import streamlit as st

# Eight token colours in turn, Paul Tol's "light" scheme (made to stay apart for colour-blind
# readers, and light enough for dark text): neighbours never share one. A token holding part of
# a character is white with a dashed frame and shows its bytes; a token whose span the other
# columns lack is ringed in black (a ring, not a colour, so it reads without colour vision); the
# BPE lab's merge just made is ringed and bold.
CSS = """
<style>
.tp-text { font-family: "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 0.92rem;
  line-height: 2.0; white-space: pre-wrap; overflow-wrap: break-word; color: #1d1d1f; background: #fbfbfd;
  border: 1px solid #e3e5ea; border-radius: 0.5rem; padding: 0.6rem 0.8rem; max-height: 26rem; overflow-y: auto; }
.tp-tok { border-radius: 3px; padding: 2px 0; margin-right: 1px; }
.tp-t0 { background: #77AADD; } .tp-t1 { background: #EEDD88; } .tp-t2 { background: #44BB99; }
.tp-t3 { background: #FFAABB; } .tp-t4 { background: #99DDFF; } .tp-t5 { background: #BBCC33; }
.tp-t6 { background: #EE8866; } .tp-t7 { background: #DDDDDD; }
.tp-partial { background: #ffffff; font-size: 0.8em; box-shadow: inset 0 0 0 1px #6b6b73; border: 1px dashed #6b6b73; }
.tp-diff { box-shadow: inset 0 0 0 2px #111111; border-radius: 4px; }
.tp-mark { box-shadow: inset 0 0 0 2px #111111; font-weight: 700; }
.tp-fmt { background: #ececef; color: #8e8e96; font-size: 0.85em; }
.tp-tool { background: #f6e7c8; color: #8a6d2b; }
.tp-legend span.tp-tok { padding: 1px 6px; margin-right: 6px; }
.tp-counts { column-width: 15rem; column-gap: 1.5rem; font-size: 0.9rem; margin: 0.2rem 0 0.6rem; }
.tp-counts div { display: grid; grid-template-columns: 1fr 4.5rem 3.5rem; border-bottom: 1px solid #eceef2;
  padding: 2px 0; font-variant-numeric: tabular-nums; break-inside: avoid; }
.tp-counts div span:nth-child(n+2) { text-align: right; }
.tp-counts div.tp-head { color: #6b6b73; font-size: 0.8rem; }
/* A segmented control (Explore's sections, the Cost page's sources) wraps its options onto more
   lines where the width is short, rather than scrolling sideways with no cue (a phone). */
[data-testid="stButtonGroup"] > div:has(> button) { flex-wrap: wrap; overflow-x: visible; row-gap: 4px; }
/* A heatmap (cells of a fixed size) or a table wider than its column scrolls inside the column, so
   the page itself never pans sideways (at 390 px) and nothing is cut off (checked at 1400 and 390 px
   by tests/dashboards/test_legibility.py). */
[data-testid="stVegaLiteChart"], [data-testid="stTable"] { max-width: 100%; overflow-x: auto; }
</style>
"""

LEGEND = ('<div class="tp-legend" style="font-size:0.85rem;color:#555">'
          '<span class="tp-tok tp-t0">a</span><span class="tp-tok tp-t1">colour</span><span class="tp-tok tp-t2">per</span>'
          '<span class="tp-tok tp-t3">token</span>'
          '<span class="tp-tok tp-partial">&lt;0xE3&gt; part of a character</span>'
          '· space &nbsp; → tab &nbsp; ↵ newline &nbsp; — hover a token for its id and bytes</div>')
DIFF_LEGEND = ('<div class="tp-legend" style="font-size:0.85rem;color:#555">'
               '<span class="tp-tok tp-t0 tp-diff">ringed</span>a token whose span is not a token in every other '
               'column (where the tokenizers disagree)</div>')
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



# Counts as you type: Streamlit's text area sends its value on Ctrl+Enter or on blur; this sends
# it after a pause in typing, as Ctrl+Enter does (the same commit, so the box keeps focus and what
# is typed meanwhile). One listener per text box, found by its key's class (st-key-KEY).
LIVE_DELAY_MS = 250
_LIVE_JS = """<script>
(function () {
  const delay = %d;
  window.__tpLiveKeys = Array.from(new Set([...(window.__tpLiveKeys || []), ...%s]));
  const attach = () => {
    for (const key of window.__tpLiveKeys) {
      const box = document.querySelector('.st-key-' + key + ' textarea');
      if (!box || box.dataset.tpLive) continue;
      box.dataset.tpLive = '1';
      let timer = null;
      box.addEventListener('input', () => {
        clearTimeout(timer);
        timer = setTimeout(() => box.dispatchEvent(new KeyboardEvent('keydown', {
          key: 'Enter', code: 'Enter', ctrlKey: true, bubbles: true, cancelable: true})), delay);
      });
    }
  };
  attach();
  if (!window.__tpLiveObserver) {
    window.__tpLiveObserver = new MutationObserver(attach);
    window.__tpLiveObserver.observe(document.body, {childList: true, subtree: true});
  }
})();
</script>"""


def live_text_area(*keys: str) -> None:
    """Send the text areas with these keys after each pause in typing (`LIVE_DELAY_MS`)."""
    import json

    st.html(_LIVE_JS % (LIVE_DELAY_MS, json.dumps(list(keys))), unsafe_allow_javascript=True)
