"""The interactive API page at /docs, served entirely from this machine.

FastAPI's own /docs page pulls Swagger UI from a CDN, which an offline machine cannot reach.
Here the Swagger UI files come from the `swagger-ui-py` wheel (located through its installed
metadata, never imported), the page that starts it is ours, and its links are relative, so it
works behind a reverse proxy that serves the API under a path prefix. Swagger UI's online
validator badge is switched off: it would send the schema to a third-party server.
"""

from __future__ import annotations

import importlib.metadata as md
from functools import lru_cache
from pathlib import Path

_DIST = "swagger-ui-py"
ASSETS = {  # the files the page needs, and their media types; nothing else is served
    "swagger-ui.css": "text/css; charset=utf-8",
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "favicon-32x32.png": "image/png",
}


@lru_cache(maxsize=None)
def asset_path(name: str) -> Path:
    """The file of a Swagger UI asset inside the installed wheel.

    Raises:
        KeyError: not one of ASSETS.
        FileNotFoundError: the wheel is not installed (the message says what to install).
    """
    if name not in ASSETS:
        raise KeyError(name)
    try:
        path = Path(str(md.distribution(_DIST).locate_file(f"swagger_ui/static/{name}")))
    except md.PackageNotFoundError:
        raise FileNotFoundError(f"{_DIST} is not installed; pip install {_DIST} to serve /docs") from None
    if not path.is_file():
        raise FileNotFoundError(f"{name} is missing from the installed {_DIST}; reinstall it")
    return path


def page(title: str) -> str:
    """The /docs page: Swagger UI pointed at ./openapi.json, every URL relative to the page."""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({{
  url: "openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  tryItOutEnabled: true,
  displayRequestDuration: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout"
}});
</script>
</body>
</html>
"""
