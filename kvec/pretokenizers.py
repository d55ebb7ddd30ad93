"""``kvec.pretokenizers`` is :mod:`kvec.pre_tokenizers` under kvec's earlier name.

Importing it gives the very same module object, so classes, ``isinstance`` checks and pickles agree.
"""

import sys

from kvec import pre_tokenizers
from kvec.pre_tokenizers import *  # noqa: F403 (the names type checkers and editors see)

sys.modules[__name__] = pre_tokenizers
