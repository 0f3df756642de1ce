"""tokenprism's Streamlit dashboard: `streamlit_app.py` (the entrypoint) and `app_pages/`.

Unlike `analysis` (all the logic, no streamlit), this package only draws: pages read widgets,
call `analysis`, and show what comes back. `shared` holds the cached wrappers and the CSS the
pages share. Start it with `tokenprism dashboard` or `make run`.
"""
