"""Choosing an engine by name: the one place that knows every implementation.

Unlike `base` (the interface every engine implements, which must not know its
implementations), this module imports them, lazily: Dask is imported only when asked for.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import BadInput
from ..tokenizers import Tokenizer
from .base import ENGINES, Engine, InProcessEngine, default_workers, provide_tokenizers


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


def resolve_engine(engine: str | Engine, toks: Sequence[Tokenizer], scheduler: str | None,
                    workers: int | None) -> tuple[Engine, bool]:
    """(engine, whether we opened it). Adapters outside the registry can only run in this process."""
    if not isinstance(engine, str):
        return engine, False
    from ..tokenizers import load_tokenizer

    custom = []
    for tok in toks:
        try:
            if load_tokenizer(tok.name) is not tok:
                custom.append(tok.name)
        except KeyError:
            custom.append(tok.name)
    if custom and engine != "inprocess":
        raise BadInput(f"tokenizer(s) {custom} are adapters built in this process, not registry names; other "
                       "processes cannot load them. Use engine='inprocess', or name registry tokenizers "
                       "(or family:path specs) instead")
    provide_tokenizers(toks)
    if engine == "dask" and not scheduler:
        build_before_fork(toks)
    return open_engine(engine, scheduler=scheduler, workers=workers), True


def build_before_fork(toks: Sequence[Tokenizer]) -> None:
    """Build the tokenizers' engines here, before a LocalCluster forks its workers from this
    process: they inherit one build instead of each making its own (see `tokenizers.cold`)."""
    from ..tokenizers import build_engines

    build_engines(toks)
