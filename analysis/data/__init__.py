"""Data files shipped inside the package (the built-in ownbpe model, measured tables), by path.

Only paths live here, so that asking whether a file is present imports nothing else.
"""

from importlib import resources
from pathlib import Path

BUILTIN_MODEL = "ownbpe-builtin.model"  # the ownbpe model trained on the built-in corpora (`make builtin-model`)


def data_file(name: str) -> Path:
    """The path of the shipped data file `name` (it may not exist: the caller checks)."""
    return Path(str(resources.files(__name__).joinpath(name)))


def builtin_model_path() -> Path:
    """Where the built-in ownbpe model is (see `analysis.tokenizers.ownbpe_adapter`)."""
    return data_file(BUILTIN_MODEL)
