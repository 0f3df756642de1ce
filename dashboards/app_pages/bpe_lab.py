"""BPE lab: step through byte-level BPE training, then train ownbpe and Hugging Face side by side."""

import streamlit as st

from analysis.lab import bpe as lab
from analysis.textio import decode_upload
from analysis.textio.numbers import bounded
from analysis.render import html_tokens
from dashboards import corpus_views, fields, links, look, shared

SENNRICH = ("low low low low low lower lower newest newest newest newest newest newest "
            "widest widest widest\nthe lowest of the new, the widest of the low")

st.title("BPE lab")
st.caption("Byte-level BPE starts from the 256 bytes and, again and again, merges the most frequent adjacent "
           "pair of tokens into a new one. Watch it learn, merge by merge.")

TABS = ["Step through training", "ownbpe vs Hugging Face"]
VOCAB_LABEL = "Vocabulary size (256 bytes + merges)"
# `train --vocab-size`'s reader, with the lab's own top
read_vocab = bounded(257, lab.TRAIN_MAX_VOCAB, integer=True, unit="tokens")

# -- link: ?lab_tab=…&lab_corpus=…&lab_merges=… and the other inputs (each widget's key is its parameter)
links.check("bpe_lab", [
    links.Param("lab_tab", "tabs", choices=lambda: TABS),
    links.Param("lab_source", "corpus sources", choices=lambda: ["Type a corpus", "Built-in sample"]),
    links.Param("lab_sample", "built-in sample ids", choices=lambda: corpus_views.builtin_samples()["id"].tolist()),
    links.Param("lab_corpus", "a corpus", max_chars=lab.LAB_MAX_CHARS),
    links.Param("lab_merges", "a number of merges", number="int", low=1, high=lab.LAB_MAX_MERGES),
    links.Param("lab_step", "a step", number="int", low=0, high=lab.LAB_MAX_MERGES),
    links.Param("train_builtin", "built-in corpora", choices=lambda: ["prose", "code", "multilingual"]),
    links.Param("train_vocab", "a vocabulary size", read=read_vocab),
    links.Param("train_probe", "a short text"),
])
links.copy_link("bpe_lab")
step_tab, train_tab = st.tabs(TABS, key="lab_tab", bind="query-params")


# Each tab is a function so that a message in one (e.g. an empty corpus) can end it with
# `return` without stopping the other, as st.stop() would.
def step_through() -> None:
    source = st.segmented_control("Corpus", ["Type a corpus", "Built-in sample"], default="Type a corpus",
                                  key="lab_source", bind="query-params")
    if source == "Built-in sample":
        samples = corpus_views.builtin_samples()
        sample_id = st.selectbox("Sample", samples["id"], key="lab_sample", bind="query-params")
        corpus = samples.loc[samples["id"] == sample_id, "text"].iloc[0]
        if len(corpus) > lab.LAB_MAX_CHARS:
            corpus = corpus[: lab.LAB_MAX_CHARS]
            st.caption(f"Using the first {lab.LAB_MAX_CHARS:,} characters.")
    else:
        corpus = st.text_area("Corpus", SENNRICH, height=110, key="lab_corpus", bind="query-params",
                              help=f"Up to {lab.LAB_MAX_CHARS:,} characters; pre-tokenized with GPT-2's pattern.")
    n_merges = st.slider("Number of merges", 1, lab.LAB_MAX_MERGES, 15, key="lab_merges", bind="query-params")
    try:
        steps = corpus_views.lab_steps(corpus, n_merges)
    except ValueError as e:
        st.warning(str(e))
        return
    rules = steps.rules
    learned = len(rules)
    if learned < n_merges:
        st.info(f"The corpus ran out of pairs after {learned} merges: every pre-token is a single token.")
    if learned == 0:
        return
    # A new corpus or number of merges is a new training: show its end, not the step the last one
    # was left at (the first run keeps a link's step, clamped to the steps learned, and says so).
    trained = (corpus, n_merges)
    if st.session_state.get("_lab_trained", trained) != trained:
        st.session_state["lab_step"] = learned
    st.session_state["_lab_trained"] = trained
    if "lab_step" not in st.session_state:  # a value set here must not also be the slider's default
        linked = st.query_params.get("lab_step", "")
        st.session_state["lab_step"] = int(linked) if linked.isdigit() else learned  # links.check read it
    if st.session_state["lab_step"] > learned:
        st.info(f"Step {st.session_state['lab_step']} is past the last merge learned here ({learned}): showing "
                f"step {learned}, the last.")
        st.session_state["lab_step"] = learned

    def move(by: int) -> None:
        st.session_state["lab_step"] = min(max(st.session_state["lab_step"] + by, 0), learned)

    b1, b2, b3 = st.columns([1, 1, 6], vertical_alignment="bottom")
    b1.button("Prev", icon=":material/chevron_left:", key="lab_prev", on_click=move, args=(-1,),
              disabled=st.session_state["lab_step"] <= 0, width="stretch")
    b2.button("Next", icon=":material/chevron_right:", key="lab_next", on_click=move, args=(1,),
              disabled=st.session_state["lab_step"] >= learned, width="stretch")
    step = b3.slider("Show the corpus after step", 0, learned, key="lab_step", bind="query-params")

    n_bytes = len(corpus.encode("utf-8"))
    n_tokens = n_bytes if step == 0 else int(rules["n_tokens"].iloc[step - 1])
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Merges learned", learned)
    c2.metric("Tokens after this step", f"{n_tokens:,}", f"{n_tokens - n_bytes:,} vs bytes", delta_color="off",
              delta_arrow="off")
    c3.metric("Bytes per token", f"{n_bytes / n_tokens:.2f}")
    c4.metric("Round-trips", f"{int(rules['round_trip'].sum())} / {learned}")
    if rules["round_trip"].all():
        st.success(f"Round-trip checked at every step: decoding the encoded corpus gives it back exactly, "
                   f"for each of the {learned} tokenizers along the way.", icon=":material/check_circle:")
    else:
        bad = rules.loc[~rules["round_trip"], "step"].tolist()
        st.error(f"Round-trip failed at steps {bad}.")

    merged = steps.merges[step - 1] if step else None
    st.markdown(f"**The corpus after step {step}** · {n_tokens:,} tokens"
                + (f" · the merge just made, ringed where it occurs: `{rules['left'].iloc[step - 1]}` + "
                   f"`{rules['right'].iloc[step - 1]}` → `{rules['merged'].iloc[step - 1]}`" if step else " · raw bytes"))
    st.html(look.Html(html_tokens(corpus, corpus_views.lab_pieces(corpus, n_merges, step),
                                  mark=None if merged is None else merged[0] + merged[1])))

    left, right = st.columns([3, 2])
    with left:
        if step:
            candidates = corpus_views.lab_candidates(corpus, n_merges, step)
            st.markdown(f"**Step {step}: every pair counted** ({len(candidates):,}) — the most frequent wins "
                        "(highlighted); counts are over the pre-tokens, each weighted by how often it occurs")
            tie = steps.tie_break(step)
            if tie:
                st.caption(f"Tie-break: {tie}.")
            st.dataframe(candidates.style.apply(
                lambda row: ["background-color: #fde68a; font-weight: 700" if row["winner"] else ""] * len(row), axis=1),
                hide_index=True, height=320, width="stretch", key="lab_candidates")
        else:
            st.markdown("**Step 0: the raw bytes.** Press *Next* to count every pair and make the first merge.")
    with right:
        st.markdown("**Rules in the order learned** — *count*: the winning pair's count when it won")
        st.dataframe(rules, hide_index=True, height=320, width="stretch",
                     column_config={"bytes_per_token": st.column_config.NumberColumn(format="%.2f")})
    st.markdown("**Diminishing returns** — the winning pair's count, step by step")
    st.line_chart(rules, x="step", y="count", height=220, x_label="merge step", y_label="pair count")


def train_and_compare() -> None:
    st.markdown("Train tokenprism's `ownbpe` and Hugging Face's `BpeTrainer` (ByteLevel, GPT-2 split pattern) on "
                "the same corpus to the same vocabulary size. Both count pairs the same way; where counts tie, "
                "ownbpe takes the lexicographically greatest pair and Hugging Face the smallest.")
    source = st.segmented_control("Training corpus", ["Built-in corpus", "Upload a file"], default="Built-in corpus",
                                  key="train_source")
    if source == "Upload a file":
        upload = st.file_uploader("A UTF-8 text file", key="train_upload",
                                  help=f"Up to {lab.TRAIN_MAX_BYTES / 1e6:.0f} MB.")
        if upload is None:
            st.info("Upload a text corpus, or pick a built-in one.")
            return
        try:
            corpus, _ = decode_upload(upload.getvalue(), upload.name, max_bytes=lab.TRAIN_MAX_BYTES)
        except ValueError as e:
            st.error(str(e))
            return
    else:
        category = st.selectbox("Built-in corpus", ["prose", "code", "multilingual"], key="train_builtin", bind="query-params")
        corpus = corpus_views.builtin_corpus(category)
    train_fields = fields.Fields()
    vocab_size = train_fields.number(st, VOCAB_LABEL, key="train_vocab", default="1000", read=read_vocab)
    if train_fields.problems:
        return
    try:
        result = corpus_views.train_both(corpus, int(vocab_size))
    except ValueError as e:
        st.warning(str(e))
        return

    summary = result.summary.assign(corpus_mb_per_s=len(corpus.encode("utf-8")) / 1e6 / result.summary["seconds"])
    st.table(shared.styled(summary, digits=3), hide_index=True)
    own_s, hf_s = result.summary["seconds"]
    st.caption(f"{len(corpus):,} characters. ownbpe (pure Python) took {own_s / hf_s:.1f}× Hugging Face's time (Rust).")
    if result.first_difference is None:
        st.success("Both trainers learned exactly the same merges in the same order.", icon=":material/check_circle:")
    else:
        st.info(f"The merges agree up to step {result.first_difference - 1} and first differ at step "
                f"{result.first_difference} (a tie in pair counts, broken differently).")
    vocab = result.vocab
    c1, c2, c3 = st.columns(3)
    c1.metric("Learned tokens in both", int(vocab["in_both"].sum()))
    c2.metric("Only in ownbpe", int(vocab["hf_id"].isna().sum()))
    c3.metric("Only in Hugging Face", int(vocab["ownbpe_id"].isna().sum()))
    left, right = st.columns(2)
    with left:
        st.markdown("**Merges, step by step**")
        st.dataframe(result.merges, hide_index=True, height=300, width="stretch")
    with right:
        st.markdown("**Learned tokens** (longest first)")
        st.dataframe(vocab, hide_index=True, height=300, width="stretch")
    probe = st.text_input("Split a text with both", "The lowest newest tokenizer splits unseen words.", key="train_probe", bind="query-params")
    if probe:
        st.table(result.split(probe), hide_index=True)


with step_tab:
    step_through()
with train_tab:
    train_and_compare()
