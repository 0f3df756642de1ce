"""The HTTP service behind `tokenprism serve`: every tokenizer and every price as a JSON API.

A face, like the CLI and the dashboard: it calls `analysis` and nothing imports it. `app`
builds the FastAPI application (`create_app`); `settings` holds every limit in one object;
`schemas` holds the pydantic models, which are the OpenAPI schema; `problems` turns every error
into RFC 9457 problem details; `runtime` owns the loaded tokenizers and the encoding thread
pool; `routers/` has one router per domain (count, tokenize, cost, compat, ops).
"""
