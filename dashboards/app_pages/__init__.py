"""The dashboard's pages, run as scripts by `st.navigation` (see `dashboards/streamlit_app.py`)."""
