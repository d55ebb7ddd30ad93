"""``kvec.vocab_reading`` is :mod:`kvec.files.vocab_reading` under its earlier
path: the very same module object, so imports, pickles and ``isinstance`` checks agree."""

import sys

from kvec.files import vocab_reading
from kvec.files.vocab_reading import *  # noqa: F403 (the names type checkers and editors see)

sys.modules[__name__] = vocab_reading
