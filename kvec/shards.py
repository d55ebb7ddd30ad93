"""``kvec.shards`` is :mod:`kvec.data.shards` under its earlier
path: the very same module object, so imports, pickles and ``isinstance`` checks agree."""

import sys

from kvec.data import shards
from kvec.data.shards import *  # noqa: F403 (the names type checkers and editors see)

sys.modules[__name__] = shards
