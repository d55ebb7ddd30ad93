"""``kvec.batching`` is :mod:`kvec.data.batching` under its earlier
path: the very same module object, so imports, pickles and ``isinstance`` checks agree."""

import sys

from kvec.data import batching
from kvec.data.batching import *  # noqa: F403 (the names type checkers and editors see)

sys.modules[__name__] = batching
