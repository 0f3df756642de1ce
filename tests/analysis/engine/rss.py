"""Peak memory and CPU time of processes (Linux /proc), for the memory tests and the benchmarks.

`ru_maxrss` cannot be used for a child process started by `subprocess`: Linux carries the
parent's peak across fork and exec, so a small child of a big parent reports the parent's
peak. `VmHWM` in /proc/PID/status is the peak of the process's own memory. Children (pool
workers) are sampled every `interval` seconds while they run.
"""

from __future__ import annotations

import os
import resource
import threading
from pathlib import Path


def vm_hwm_mb(pid: int | str = "self") -> float | None:
    """Peak resident memory of a process in MB (Linux), or None."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


def cpu_seconds(pid: int | str = "self") -> float:
    """User + system CPU seconds a running process has used so far (NaN without /proc).

    `os.times()` counts a child only once it has exited and been waited for; this reads it live.
    """
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def self_peak_mb() -> float:
    """This process's peak RSS in MB (VmHWM where there is /proc, else ru_maxrss)."""
    return vm_hwm_mb() or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class ChildPeak:
    """The largest peak RSS (MB) of any child process seen while the `with` block runs."""

    def __init__(self, interval: float = 0.25) -> None:
        self.interval = interval
        self.mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = str(os.getpid())
        while not self._stop.is_set():
            for stat in Path("/proc").glob("[0-9]*/stat"):
                try:
                    if stat.read_text().rsplit(")", 1)[1].split()[1] == me:
                        self.mb = max(self.mb, vm_hwm_mb(stat.parent.name) or 0.0)
                except (OSError, IndexError):
                    continue
            self._stop.wait(self.interval)

    def __enter__(self) -> "ChildPeak":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
