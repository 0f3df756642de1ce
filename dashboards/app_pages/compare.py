"""Compare: one text under every tokenizer — counts, ratios, cost, and the drawn boundaries.

In Text mode a chosen model also gets the text's count as a request (content plus its chat
format, through `analysis.requests.input_tokens`) and that count's price: the number
`tokenprism count` and `cost` give. Chat mode (`dashboards.chat`) counts a whole chat request.
"""

import json
import time

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from analysis.compare import special_strings_in
from analysis.probes.boundaries import boundary_diff, diff_regions
from analysis.render import highlight_prefix, markdown_text, not_in_every
from analysis.cost import format_usd
from analysis.textio import MAX_INPUT_CHARS, MAX_UPLOAD_BYTES, decode_upload, input_problem
from dashboards import chat, links, look, shared, tokenizer_dir, warm

st.title("Compare")
st.caption("Type or paste a text: it is drawn token by token, and counted under every tokenizer as you type. "
           "*Chat* counts a chat request per model, its format's tokens drawn apart.")

# -- link: ?text=…&tokenizers=…&tokenizers=…&cost_model=… (the text only up to links.LINK_MAX_TEXT characters);
# Chat mode: ?mode=Chat&chat={json}&chat_models=…. A model id is checked by the one resolver on the page
# (a misspelt one is refused with the closest ids), not against a list here.
links.check("compare", [
    links.Param("mode", "Text or Chat", choices=lambda: ["Text", "Chat"]),
    links.Param("text", "a text", max_chars=links.LINK_MAX_TEXT),
    links.Param("tokenizers", "tokenizer names", choices=tokenizer_dir.tokenizer_names, multi=True),
    links.Param("draw", "tokenizer names", choices=tokenizer_dir.tokenizer_names),
    links.Param("cost_model", "a model id"),
    # the side-by-side view: whose tokens are drawn (2-4), which pair's differences are listed, ids listed or not
    links.Param("show", "tokenizer names", choices=tokenizer_dir.tokenizer_names, multi=True),
    links.Param("partner", "tokenizer names", choices=tokenizer_dir.tokenizer_names),
    links.Param("show_ids", "true or false", choices=lambda: ["true", "false"]),
    *chat.LINK_PARAMS,
])
mode = st.segmented_control("Mode", ["Text", "Chat"], default="Text", key="mode", bind="query-params",
                            help="Text: one text under tokenizers. Chat: a chat request (messages, names, tools) "
                                 "counted per model, chat format included.")
if mode == "Chat":
    chat.show()
    st.stop()
links.linked_text("text", "text")
PROGRESS_S = 0.15  # while counting on a cold server, the rows so far are sent at most this often
# In a rerun of the first screen alone (a keystroke, `typed_screen`), a pause that lets what is
# drawn so far leave the server and reach the screen before what comes next: the counts before
# the drawing (a drawing arriving with them holds their paint back by its own rendering), and the
# first screen before the page's rerun that follows it (a new run drops what the server has not
# sent yet; streamlit's own switch_page pauses the same way, two of its 5 ms send cycles).
FOLLOW_S = 0.03


def first_screen_alone() -> bool:
    """Whether this run is a rerun of the first screen alone (its fragment), not of the page."""
    ctx = get_script_run_ctx()
    return ctx is not None and bool(ctx.fragment_ids_this_run)


def draw_counts(text: str, names: list[str]) -> list[dict]:
    """The compact count per tokenizer (class tp-counts, in the container keyed "counts": where the
    browser tests find them); returns the rows.

    One row per tokenizer as it is counted, in the order picked, so that on a cold server the
    first row waits for one tokenizer, not for the others (nor for the server's warm-up of the
    others). While typing, every tokenizer is loaded and the rows come within a blink: they are
    sent at most every PROGRESS_S, not one by one.
    """
    with st.container(key="counts"):
        compact_slot = st.empty()
        progress_slot = st.empty()
    rows: list[dict] = []
    sent = time.perf_counter()
    for rows in shared.count_rows(text, names):
        if len(rows) < len(names) and time.perf_counter() - sent > PROGRESS_S:
            compact_slot.html(look.Html(shared.compact_counts(rows)))
            progress_slot.caption(f"Counting under {names[len(rows)]} ({len(rows) + 1} of {len(names)})…")
            sent = time.perf_counter()
    compact_slot.html(look.Html(shared.compact_counts(rows)))
    progress_slot.empty()
    return rows


def draw_tokens(text: str, names: list[str]) -> None:
    """The text drawn per token under one chosen tokenizer, and its ids to copy."""
    prefix = highlight_prefix(text)
    d1, d2 = st.columns([3, 1], vertical_alignment="bottom")
    if st.session_state.get("draw") not in names:  # a tokenizer unpicked below is not drawn
        st.session_state["draw"] = shared.default_names(names)[0]
    drawn_name = d2.selectbox("Drawn with", names, key="draw", bind="query-params",
                              help="The tokenizer whose tokens are drawn here, one colour per token.")
    drawn_pieces = shared.pieces(prefix, drawn_name)
    d1.markdown(f"**{drawn_name}** · {len(drawn_pieces):,} tokens"
                + (f" (of the first {len(prefix):,} characters)" if len(prefix) < len(text) else ""))
    st.html(look.Html(shared.drawing(prefix, drawn_name)))
    st.html(look.LEGEND)
    with st.popover(f"Token ids ({len(drawn_pieces):,})", icon=":material/content_copy:"):
        st.caption(f"The ids of {drawn_name}, in order: copy them with the button at the code's corner.")
        st.code(", ".join(str(p.id) for p in drawn_pieces), language=None, wrap_lines=True, height=200)


def first_screen(text: str, names: list[str]) -> list[dict] | None:
    """The text drawn per token (one tokenizer), then the count under each tokenizer (name, tokens,
    characters per token); the rows, or None when the text or the pick is refused (said here).

    The counts are drawn below the drawing and computed before it: they are what a keystroke waits for.
    """
    problem = input_problem(text)
    if problem or not names:
        st.warning(problem or "Pick at least one tokenizer.")
        return None
    drawing_box = st.container()
    rows = draw_counts(text, names)
    if first_screen_alone():
        time.sleep(FOLLOW_S)  # the counts reach the screen before the drawing is sent
    with drawing_box:
        draw_tokens(text, names)
    return rows


@st.fragment
def typed_screen(names: list[str]) -> tuple[str, list[dict] | None]:
    """The text box and the first screen, as a fragment: a keystroke (the box sends its value after
    a pause, `look.live_text_area`) reruns only this, so the new counts come first (none of the
    page around it is run or sent again); then the whole page reruns to follow them (the rest of
    the page reads the text, and the link the drawn tokenizer), its counts and drawing cached."""
    with warm.page_run():  # a page at work: the server's warm-up waits (the app's own mark covers full runs only)
        text = st.text_area("Text", value=shared.sample_text(), height=150, key="text",
                            help=f"Up to {MAX_INPUT_CHARS:,} characters. Counted as you type (a pause of "
                                 f"{look.LIVE_DELAY_MS} ms), or at once on Ctrl+Enter. Whitespace counts: trailing "
                                 f"spaces and newlines are kept. Links carry the text up to {links.LINK_MAX_TEXT:,} "
                                 "characters.")
        rows = first_screen(text, names)
    if first_screen_alone():  # a new text, or another drawn tokenizer: the page (and its link) follows
        time.sleep(FOLLOW_S)  # the first screen reaches the browser before the page's rerun starts
        st.rerun(scope="app")
    return text, rows


source = st.segmented_control("Input", ["Paste text", "Upload a file"], default="Paste text", key="source")
uploaded = None
if source == "Upload a file":
    upload = st.file_uploader("A UTF-8 text file", key="upload",
                              help=f"Up to {MAX_UPLOAD_BYTES / 1e6:.0f} MB and {MAX_INPUT_CHARS:,} characters.")
    replace = st.checkbox("Replace invalid UTF-8 bytes with U+FFFD", key="replace")
    if upload is None:
        st.info("Upload a text file to compare it, or switch to *Paste text*.")
        st.stop()
    try:
        uploaded, n_replaced = decode_upload(upload.getvalue(), upload.name, replace_invalid=replace)
    except ValueError as e:
        st.error(str(e))
        st.stop()
    if n_replaced:
        st.warning(f"{n_replaced} invalid UTF-8 sequence(s) replaced by U+FFFD: the counts are for the replaced text.")

all_names = tokenizer_dir.tokenizer_names()  # the catalogue's, then those of `dashboard --tokenizer-dir DIR`
for folder_problem in tokenizer_dir.folder_tokenizers()[1]:  # a file that does not load: named, left out
    st.error(markdown_text(folder_problem), icon=":material/error:")
# The first screen, top to bottom: the text box, the text drawn per token (one tokenizer), the count
# under each tokenizer, and the rest one click away. The tokenizers are picked in the expander below
# it, before the first screen is drawn into its place: the order the script needs their values.
first_box = st.container()
more = st.expander("Every count: vocabulary, bytes, characters, fewest and most · pick the tokenizers")
names = more.multiselect("Tokenizers", all_names, default=all_names, key="tokenizers", bind="query-params")
with first_box:
    if uploaded is None:
        text, rows = typed_screen(names)
        look.focus_text_area()  # outside the fragment: sent once per page run, not on every keystroke
        look.live_text_area("text")
    else:
        text, rows = uploaded, first_screen(uploaded, names)
c1, c2 = st.columns([3, 1])


def choose_model() -> str:
    """The model box (drawn after the counts: it reads the price data)."""
    return c1.selectbox("Count it for", shared.model_choices(), index=0, key="cost_model", bind="query-params",
                        accept_new_options=True,
                        help="The text as one request to this model: its tokens with the model's chat format, and "
                             "their input price (what `tokenprism count` and `cost` give). Type any model id.")


if source == "Upload a file":
    left_out = "An uploaded file is not part of the link: it holds the tokenizers and the model only."
elif links.sync_text("text", text, shared.sample_text()):
    left_out = ""
else:
    left_out = (f"The text is longer than a link carries ({links.LINK_MAX_TEXT:,} characters, "
                f"{links.LINK_MAX_TEXT_BYTES:,} bytes once encoded), so the link holds the tokenizers and "
                "the model only: paste the text again after opening it.")
with c2:
    links.copy_link("", note=left_out)

if rows is None:  # the text or the pick is refused: said in the first screen
    choose_model()  # a widget left out of a run would lose its value
    st.stop()

m1, m2, m3, m4 = more.columns(4)
m1.metric("Characters", f"{len(text):,}")
m2.metric("UTF-8 bytes", f"{len(text.encode('utf-8', errors='surrogatepass')):,}")
fewest = min(rows, key=lambda r: r["n_tokens"])
most = max(rows, key=lambda r: r["n_tokens"])
m3.metric("Fewest tokens", f"{fewest['n_tokens']:,}", fewest["tokenizer"], delta_color="off", delta_arrow="off")
m4.metric("Most tokens", f"{most['n_tokens']:,}", most["tokenizer"], delta_color="off", delta_arrow="off")
more.table(shared.styled(shared.counts_frame(rows).drop(columns=["n_chars", "n_bytes"])), hide_index=True)
prefix = highlight_prefix(text)

model = choose_model()
model_problem = shared.model_problem(model) if model else "Pick a model to count the text as a request to it."
if model_problem:
    st.error(markdown_text(model_problem), icon=":material/error:")  # it quotes the id, which a link can carry
else:
    try:
        counted = shared.request_count(json.dumps(text), model)
    except ValueError as e:  # BadInput: e.g. the model's vocabulary is not fetched (the message says how)
        st.warning(markdown_text(f"{model}: {e}"))
    else:
        usd, price_note = shared.request_price(counted.input_tokens, model)
        st.markdown(f"**As one request to {model}** (the text as one user message)")
        m1, m2, m3, m4 = st.columns(4)
        m1.metric("Input tokens", f"{counted.input_tokens:,}", counted.exactness, delta_color="off", delta_arrow="off")
        m2.metric("Content tokens", f"{counted.content_tokens:,}", shared.tokenizer_label(counted), delta_color="off",
                  delta_arrow="off")
        m3.metric("Chat-format tokens", f"{counted.format_tokens:,}")
        m4.metric("Input cost", format_usd(usd))
        st.caption(f"{counted.exactness}: {counted.reason}. Price: {price_note}.")

specials = special_strings_in(text, shared.tokenizers(names))
if len(specials):
    found = ", ".join(f"`{s}`" for s in specials["special"].unique())
    st.warning(f"The text contains special-token strings ({found}). They are **counted as plain text**, as an "
               "API counts user text, not as the special token's single id:", icon=":material/warning:")
    st.dataframe(specials, hide_index=True, width="stretch")

st.subheader("Side by side: where tokenizers disagree")
show = st.multiselect("Draw side by side", names, default=shared.default_names(names), key="show", bind="query-params",
                      max_selections=4,
                      help="Two to four tokenizers, each in its own column. A token is ringed where its span is not a "
                           "token in every other column.")
show_ids = st.toggle("List every token's id and bytes", key="show_ids", bind="query-params")
if not show:
    st.info("Pick tokenizers to draw their tokens side by side.")
    st.stop()
# Each tokenizer is drawn once, with its differences marked: a drawing is the browser's largest
# piece of work on this page (one st.html block of up to ~170 KB that the browser sanitises,
# parses and lays out).
drawn = {name: shared.pieces(prefix, name) for name in show}
if len(show) > 1:
    counts = {name: len(ps) for name, ps in drawn.items()}
    low, high = min(counts, key=counts.__getitem__), max(counts, key=counts.__getitem__)
    st.html(look.DIFF_LEGEND)
    st.caption(f"Spread: {counts[low]:,} tokens ({low}) to {counts[high]:,} ({high}), "
               f"{counts[high] - counts[low]:,} tokens apart"
               + (f", {counts[high] / counts[low]:.2f}×" if counts[low] else "")
               + (f" · of the first {len(prefix):,} characters" if len(prefix) < len(text) else "") + ".")
for col, name in zip(st.columns(len(show)), show):
    ps = drawn[name]
    others = [drawn[o] for o in show if o != name]
    col.markdown(f"**{name}** · {len(ps):,} tokens")
    if others:
        ringed = sum(not_in_every(ps, others))
        col.caption(f"{ringed:,} ringed: not a token in every other column")
    col.html(look.Html(shared.drawing(prefix, name, tuple(o for o in show if o != name))))
    if show_ids:
        col.dataframe([{"#": i, "id": p.id, "bytes": repr(p.bytes), "chars": f"{p.start}–{p.end}",
                        "partial": p.partial} for i, p in enumerate(ps[:5000])],
                      hide_index=True, width="stretch", height=240)
if len(show) > 1:
    first = show[0]
    partner = show[1]
    if len(show) > 2:
        partner = st.selectbox(f"List where {first} and … cut differently", show[1:], key="partner",
                               bind="query-params", help=f"The tokenizer whose cuts are listed against {first}'s.")
    diff = boundary_diff(drawn[first], drawn[partner])
    regions = diff_regions(prefix, drawn[first], drawn[partner])
    st.markdown(f"**Where {first} and {partner} cut differently** · "
                f"{len(regions):,}{'+' if len(regions) == 200 else ''} stretches · {diff.shared:,} cut positions "
                f"shared, boundary agreement {diff.agreement:.0%}")
    if len(regions):
        a, b = first, partner
        st.caption("Each cell lists a stretch's tokens, one space between them (a space in the text is drawn ·).")
        st.dataframe(regions.rename(columns={"a": a, "b": b, "n_a": f"n_{a}", "n_b": f"n_{b}"}), hide_index=True,
                     width="stretch", height=min(38 + 35 * len(regions), 320))
