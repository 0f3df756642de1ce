"""Choosing an engine by name: the one place that knows every implementation.

Unlike `base` (the interface every engine implements, which must not know its
implementations), this module imports them, lazily: Dask is imported only when asked for.
"""

from __future__ import annotations

from ..errors import BadInput
from .base import ENGINES, Engine, InProcessEngine, default_workers


def open_engine(name: str = "local", *, scheduler: str | None = None, workers: int | None = None,
                timeout: float = 10.0, dashboard: bool = True) -> Engine:
    """An engine by name: "local" (process pool), "dask" (cluster or LocalCluster), "inprocess".

    Args:
        name: one of `ENGINES`.
        scheduler: a Dask scheduler address (tcp://host:8786); only with "dask".
        workers: worker processes (local pool, or a LocalCluster); default one per core.
        timeout: seconds to wait for a scheduler to answer.
        dashboard: serve the Dask dashboard of a LocalCluster (when bokeh is installed); off, the
            cluster starts with about 0.4 s less CPU, for runs nobody watches.

    Raises:
        ValueError: an unknown engine, or a scheduler with an engine other than dask.
        EngineError: a scheduler that does not answer within `timeout`.

    >>> with open_engine("inprocess") as e:
    ...     e.describe()
    'in this process'
    """
    if name not in ENGINES:
        raise BadInput(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}")
    if scheduler and name != "dask":
        raise BadInput(f"--scheduler {scheduler} needs --engine dask (got --engine {name})")
    if workers is not None and workers < 1:
        raise BadInput(f"workers must be at least 1, got {workers}")
    if name == "inprocess":
        return InProcessEngine()
    if name == "local":
        from .local import LocalEngine

        return LocalEngine(workers or default_workers())
    from .cluster import DaskEngine

    return DaskEngine(scheduler, workers=workers, timeout=timeout, dashboard=dashboard)
