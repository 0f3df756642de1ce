"""tokenprism's Streamlit dashboard: `streamlit_app.py` (the entrypoint) and `app_pages/`.

Unlike `analysis` (all the logic, no streamlit), this package only draws: pages read widgets,
call `analysis`, and show what comes back. `shared` holds the cached wrappers a pasted text needs
(tokenizers, counts, prices), `corpus_views` those of the pages that study the built-in corpora,
`look` the CSS and legends. Start it with `tokenprism dashboard` or `make run`.
"""
