"""Making many Python objects at once with the cycle collector paused.

A batch of texts becomes hundreds of thousands of lists (and objects holding them) in one call. With the
collector running, every few hundred allocations start a collection, and the older generations are
walked again and again while the batch grows. None of these objects can form a cycle, so the collector
is paused while they are made and runs as usual afterwards.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector off inside the block (as it was before, after it).

    Example:
        >>> import gc
        >>> with collector_paused():
        ...     rows = [[i] for i in range(3)]
        ...     gc.isenabled()
        False
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
