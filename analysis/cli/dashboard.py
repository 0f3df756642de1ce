"""`tokenprism dashboard [STREAMLIT OPTIONS]`: serve the Streamlit app from the installed package.

Unlike the other `cli_*` modules, which compute and print, this one hands over to
`python -m streamlit run <installed dashboards/streamlit_app.py>` with the same interpreter, so
it works from a wheel as well as from a checkout. Every argument after `dashboard` goes to
`streamlit run` untouched (e.g. `--server.port 8600 --server.address 0.0.0.0`), which is why the
subcommand's own parser takes no `-` options.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

USAGE = """usage: tokenprism dashboard [STREAMLIT OPTIONS]

Serve the tokenprism dashboard (default http://localhost:8501). Options go to `streamlit run`:
  --server.port 8600            another port
  --server.address 127.0.0.1    listen on this machine only
  --server.headless true        do not open a browser (the default here)
See every option with: python -m streamlit run --help
"""


def app_path() -> Path:
    """The entrypoint of the installed (or checked-out) dashboard.

    >>> app_path().name
    'streamlit_app.py'
    """
    spec = importlib.util.find_spec("dashboards")
    if spec is None or not spec.submodule_search_locations:
        raise ValueError("the `dashboards` package is not installed: reinstall tokenprism (pip install tokenprism)")
    path = Path(list(spec.submodule_search_locations)[0]) / "streamlit_app.py"
    if not path.is_file():
        raise ValueError(f"{path} is missing: reinstall tokenprism (pip install --force-reinstall tokenprism)")
    return path


def streamlit_command(options: list[str]) -> list[str]:
    """The command that serves the dashboard with this Python and `options`.

    >>> streamlit_command(["--server.port", "8600"])[1:4]
    ['-m', 'streamlit', 'run']
    """
    return [sys.executable, "-m", "streamlit", "run", str(app_path()), *options]


def cmd_dashboard(args: argparse.Namespace) -> int:
    if any(o in ("-h", "--help") for o in args.streamlit_options):
        print(USAGE, end="")
        return 0
    if importlib.util.find_spec("streamlit") is None:
        raise ValueError("streamlit is not installed in this Python: pip install 'streamlit>=1.40'")
    cmd = streamlit_command(args.streamlit_options)
    print("tokenprism dashboard: " + " ".join(cmd), file=sys.stderr, flush=True)
    if os.name == "posix":
        # Become the server: Ctrl-C, `kill` and exit codes reach streamlit with no process in between.
        os.execv(cmd[0], cmd)
    return subprocess.call(cmd)


def register(sub: argparse._SubParsersAction) -> None:
    # prefix_chars="+": `--server.port` and friends are not ours to parse; they all go to streamlit.
    p = sub.add_parser("dashboard", help="serve the Streamlit dashboard (options go to `streamlit run`)",
                       prefix_chars="+", add_help=False, usage="tokenprism dashboard [STREAMLIT OPTIONS]")
    p.add_argument("streamlit_options", nargs=argparse.REMAINDER, metavar="STREAMLIT OPTIONS",
                   help="passed to `streamlit run`, e.g. --server.port 8600")
    p.set_defaults(func=cmd_dashboard)
