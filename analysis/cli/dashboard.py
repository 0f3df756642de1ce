"""`tokenprism dashboard [STREAMLIT OPTIONS]`: serve the Streamlit app from the installed package.

Unlike the other `cli_*` modules, which compute and print, this one hands over to
`python -m dashboards.serve run <installed dashboards/streamlit_app.py>` (streamlit's own `run`,
with the tokenizers loading in the background from the start) with the same interpreter, so it
works from a wheel as well as from a checkout. Every argument after `dashboard` goes to
`streamlit run` (e.g. `--server.port 8600 --server.address 0.0.0.0`), which is why the
subcommand's own parser takes no `-` options, with one exception: `--tokenizer-dir DIR` is ours.
It is checked as `serve` checks it (not a folder: exit 2) and handed to the app in the
environment (`DASHBOARD_ENV`): Compare then offers that folder's .gguf and .model files.

Defaults that keep the dashboard on this machine, each overridden by passing the option:
it listens on 127.0.0.1 only, sends no usage statistics, and never looks up the machine's
external IP address (streamlit does that, over the internet, when it listens on every
interface without a `browser.serverAddress`). It also serves rather than develops: no file
watcher and no full garbage collection after every script run (`serving_defaults`).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from . import help_line
from ..errors import BadInput
from ..tokenizers.folder import DASHBOARD_ENV, checked_folder

USAGE = """usage: tokenprism dashboard [--tokenizer-dir DIR] [STREAMLIT OPTIONS]

Serve the tokenprism dashboard (default http://127.0.0.1:8501, this machine only).
  --tokenizer-dir DIR           offer the .gguf and .model files of DIR in Compare's tokenizers
                                (readers pick a file of DIR by name, never a path)
Other options go to `streamlit run`:
  --server.port 8600            another port
  --server.address 0.0.0.0      listen on every interface (default: 127.0.0.1 only)
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
        raise BadInput("the `dashboards` package is not installed: reinstall tokenprism (pip install tokenprism)")
    path = Path(list(spec.submodule_search_locations)[0]) / "streamlit_app.py"
    if not path.is_file():
        raise BadInput(f"{path} is missing: reinstall tokenprism (pip install --force-reinstall tokenprism)")
    return path


def _given(options: list[str], name: str) -> str | None:
    """The value of `--name` in streamlit-style options (`--name value` or `--name=value`), or None."""
    for i, opt in enumerate(options):
        if opt == f"--{name}":
            return options[i + 1] if i + 1 < len(options) else ""
        if opt.startswith(f"--{name}="):
            return opt.split("=", 1)[1]
    return None


def private_defaults(options: list[str]) -> list[str]:
    """Options that keep the server on this machine, for each one the user did not set.

    >>> private_defaults([])
    ['--server.address', '127.0.0.1', '--browser.gatherUsageStats', 'false']
    >>> private_defaults(["--server.address=0.0.0.0"])[-2:]
    ['--browser.serverAddress', 'localhost']
    """
    extra: list[str] = []
    address = _given(options, "server.address")
    if address is None:
        extra += ["--server.address", "127.0.0.1"]
    if _given(options, "browser.gatherUsageStats") is None:
        extra += ["--browser.gatherUsageStats", "false"]
    if address in ("0.0.0.0", "::", "") and _given(options, "browser.serverAddress") is None:
        # a wildcard bind without a display address makes streamlit look up the external IP online
        extra += ["--browser.serverAddress", "localhost"]
    return extra


def serving_defaults(options: list[str]) -> list[str]:
    """Options for serving the installed app rather than developing it, for each one the user did not set.

    After each script run Streamlit does two things that hold the GIL, so that every other
    session's thread stops meanwhile (with five sessions pasting at once, sampled with `py-spy
    record --gil`):

    * its file watcher re-resolves the path of every imported module (about a tenth of the
      server's GIL time), to rerun pages whose source changes: the source of an installed tool
      does not change while it serves;
    * a full garbage collection, `gc.collect(2)`, which walks every tracked object of the
      process (a third of the GIL time; docs/performance.md). Python's own
      collector still runs as objects are made; what the warm-up left alive is frozen out of it
      (`dashboards.warm`).

    Nor does it rewrite each page's syntax tree for "magic" (bare expressions written to the
    page) before its first run: the pages use none (a test checks), and on a fresh server the
    rewrite of the Compare page came before its first counts.

    >>> serving_defaults([])
    ['--server.fileWatcherType', 'none', '--runner.postScriptGC', 'false', '--runner.magicEnabled', 'false']
    >>> serving_defaults(["--server.fileWatcherType=auto"])
    ['--runner.postScriptGC', 'false', '--runner.magicEnabled', 'false']
    """
    extra: list[str] = []
    for name, value in (("server.fileWatcherType", "none"), ("runner.postScriptGC", "false"),
                        ("runner.magicEnabled", "false")):
        if _given(options, name) is None:
            extra += [f"--{name}", value]
    return extra


def streamlit_command(options: list[str]) -> list[str]:
    """The command that serves the dashboard with this Python and `options`.

    >>> streamlit_command(["--server.port", "8600"])[1:4]
    ['-m', 'dashboards.serve', 'run']
    """
    return [sys.executable, "-m", "dashboards.serve", "run", str(app_path()), *private_defaults(options),
            *serving_defaults(options), *options]


def tokenizer_dir(options: list[str]) -> tuple[str | None, list[str]]:
    """(the checked folder of `--tokenizer-dir`, or None; the other options, for streamlit).

    >>> tokenizer_dir(["--server.port", "8600"])
    (None, ['--server.port', '8600'])
    """
    given = _given(options, "tokenizer-dir")
    if given is None:
        return None, options
    rest = [o for o in options if not o.startswith("--tokenizer-dir=")]
    if "--tokenizer-dir" in rest:
        at = rest.index("--tokenizer-dir")
        del rest[at:at + 2]
    if not given:
        raise BadInput("--tokenizer-dir needs a folder: --tokenizer-dir DIR")
    return checked_folder(given), rest


def cmd_dashboard(args: argparse.Namespace) -> int:
    if any(o in ("-h", "--help") for o in args.streamlit_options):
        print(USAGE, end="")
        return 0
    folder, args.streamlit_options = tokenizer_dir(args.streamlit_options)
    if folder:
        os.environ[DASHBOARD_ENV] = folder  # the app (this process after exec, or the child) reads it
    if importlib.util.find_spec("streamlit") is None:
        raise BadInput("streamlit is not installed in this Python: pip install 'streamlit>=1.40'")
    cmd = streamlit_command(args.streamlit_options)
    print("tokenprism dashboard: " + " ".join(cmd), file=sys.stderr, flush=True)
    if os.name == "posix":
        # Become the server: Ctrl-C, `kill` and exit codes reach streamlit with no process in between.
        os.execv(cmd[0], cmd)
    return subprocess.call(cmd)


def register(sub: argparse._SubParsersAction) -> None:
    # prefix_chars="+": `--server.port` and friends are not ours to parse; they all go to streamlit.
    p = sub.add_parser("dashboard", help=help_line("dashboard"),
                       prefix_chars="+", add_help=False, usage="tokenprism dashboard [--tokenizer-dir DIR] [STREAMLIT OPTIONS]")
    p.add_argument("streamlit_options", nargs=argparse.REMAINDER, metavar="STREAMLIT OPTIONS",
                   help="passed to `streamlit run`, e.g. --server.port 8600")
    p.set_defaults(func=cmd_dashboard)
