"""``kvec.pre_tokenizers`` is :mod:`kvec.pretokenizers` under the name Hugging Face users type.

Importing it gives the very same module object, so classes, ``isinstance`` checks and pickles agree.
"""

import sys

from kvec import pretokenizers
from kvec.pretokenizers import *  # noqa: F403 (the names type checkers and editors see)

sys.modules[__name__] = pretokenizers
