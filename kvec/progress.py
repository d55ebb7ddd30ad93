"""Progress bars for long work, through tqdm when it is installed (it is an optional dependency)."""

import sys


class _Silent:
    """The interface kvec uses from a tqdm bar, doing nothing."""

    def __init__(self, initial=0):
        self.n = initial

    def update(self, n=1):
        self.n += n

    def close(self):
        pass


def progress_bar(enabled, total=None, initial=0, desc=None, unit="it", unit_scale=False):
    """A tqdm bar when ``enabled`` (a one-line notice on stderr if tqdm is missing), else a silent one.

    ``total`` (None when unknown) gives the bar its percentage and time left; ``unit`` and
    ``unit_scale`` are tqdm's (``unit="B", unit_scale=True`` counts bytes as kB, MB, ...).

    Example:
        >>> bar = progress_bar(False, total=10)
        >>> bar.update(4)
        >>> bar.n
        4
    """
    if not enabled:
        return _Silent(initial)
    try:
        from tqdm.auto import tqdm
    except ImportError:
        print(f"{desc}: pip install kvec[cli] to see progress (tqdm)", file=sys.stderr)
        return _Silent(initial)
    return tqdm(total=total, initial=initial, desc=desc, unit=unit, unit_scale=unit_scale)
