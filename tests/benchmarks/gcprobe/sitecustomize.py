"""Loaded by `tests.benchmarks.gc_probe` in a child it runs (this folder on PYTHONPATH): the CPU time of
every garbage collection, per generation, summed per process into a file of $GCPROBE_DIR named by the pid.

A forked worker inherits the callback and starts its own totals. Files are rewritten after every full
collection and every 50th collection, so a worker that ends with `os._exit` leaves totals at most 49
young collections short.
"""

import gc
import os
import time

_OUT = os.environ.get("GCPROBE_DIR")
if _OUT:
    _state = {"pid": os.getpid(), "start": 0.0, "cpu": [0.0, 0.0, 0.0], "n": [0, 0, 0]}

    def _collection(phase: str, info: dict) -> None:
        if phase == "start":
            _state["start"] = time.process_time()
            return
        if _state["pid"] != os.getpid():
            _state.update(pid=os.getpid(), cpu=[0.0, 0.0, 0.0], n=[0, 0, 0])
        gen = info["generation"]
        _state["cpu"][gen] += time.process_time() - _state["start"]
        _state["n"][gen] += 1
        if gen == 2 or sum(_state["n"]) % 50 == 0:
            with open(os.path.join(_OUT, str(os.getpid())), "w", encoding="ascii") as f:
                f.write(" ".join(map(str, [*_state["cpu"], *_state["n"]])) + "\n")

    gc.callbacks.append(_collection)
