"""tokenprism dashboard: `tokenprism dashboard`, `make run`, or `streamlit run dashboards/streamlit_app.py`.

The entrypoint only sets the page up and routes: each page is a script in `app_pages/`. It
imports nothing heavy itself (`look` is CSS; the pages import what they draw with), and it marks
every run as a page at work, so the server's warm-up (`dashboards.warm`) waits meanwhile.
"""

import streamlit as st

from analysis.tokenizers.fetch import vocabulary_problems
from dashboards import warm
from dashboards.look import inject_css

with warm.page_run():
    st.set_page_config(page_title="tokenprism", page_icon="🔷", layout="wide")
    inject_css()

    pages = [
        st.Page("app_pages/compare.py", title="Compare", icon=":material/compare_arrows:", default=True),
        st.Page("app_pages/explore.py", title="Explore", icon=":material/bar_chart:"),
        st.Page("app_pages/why.py", title="Why", icon=":material/help:"),
        st.Page("app_pages/cost.py", title="Cost", icon=":material/payments:"),
        st.Page("app_pages/bpe_lab.py", title="BPE lab", icon=":material/science:"),
    ]
    page = st.navigation(pages)
    # A corrupt or changed fetched vocabulary is named on every page, with the command that fixes it.
    for problem in vocabulary_problems().values():
        st.error(problem, icon=":material/error:")
    st.sidebar.caption("tokenprism — how LLM tokenizers cut your text, what it costs, and why. "
                       "Everything runs offline on this machine.")
    page.run()
