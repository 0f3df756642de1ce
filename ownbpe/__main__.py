"""`python -m ownbpe`: see `ownbpe.cli`."""

import sys

from .cli import main

sys.exit(main())
