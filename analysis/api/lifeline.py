"""A `serve --workers N` worker ends when its supervisor does, however the supervisor ended.

Unlike `runtime` (what a worker holds while it serves), this only ties the worker's life to
its parent's. uvicorn's supervisor stops its workers when it is asked to stop; SIGKILLed, it
cannot, and its workers went on holding the port. `tokenprism serve` names itself in
TOKENPRISM_SERVE_SUPERVISOR; a worker started under it asks Linux for SIGTERM when its parent
dies (PR_SET_PDEATHSIG), then checks that the parent did not die before it asked. Elsewhere a
thread looks for a new parent once a second. SIGTERM is uvicorn's graceful stop: requests in
flight are answered, then the worker exits.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from typing import Mapping

SUPERVISOR_ENV = "TOKENPRISM_SERVE_SUPERVISOR"  # set by analysis/cli/serve.py
_PR_SET_PDEATHSIG = 1


def _end() -> None:
    os.kill(os.getpid(), signal.SIGTERM)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    _end()


def tie_to_supervisor(environ: Mapping[str, str] | None = None) -> bool:
    """Make this process end when the supervisor named in the environment ends.

    Returns:
        True when this is a worker under a supervisor (and is now tied to it), False otherwise
        (a single-process server, a test's app).
    """
    raw = (os.environ if environ is None else environ).get(SUPERVISOR_ENV, "")
    if not raw.isdigit() or int(raw) == os.getpid():
        return False
    parent = int(raw)
    if os.getppid() != parent:  # not its child, or its orphan already
        if _orphaned(parent):
            _end()
            return True
        return False
    tied = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            tied = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0
        except (OSError, AttributeError):
            tied = False
    if not tied:
        threading.Thread(target=_watch, args=(parent,), name="tokenprism-lifeline", daemon=True).start()
    if os.getppid() != parent:  # the supervisor died before we asked
        _end()
    return True


def _orphaned(parent: int) -> bool:
    """True when the supervisor `parent` no longer exists (so this process was its worker, now orphaned)."""
    try:
        os.kill(parent, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False
