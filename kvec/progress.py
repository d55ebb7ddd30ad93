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


def progress_bar(enabled, total=None, initial=0, desc=None):
    """A tqdm bar when ``enabled`` (a one-line notice on stderr if tqdm is missing), else a silent one."""
    if not enabled:
        return _Silent(initial)
    try:
        from tqdm.auto import tqdm
    except ImportError:
        print(f"{desc}: install tqdm to see progress", file=sys.stderr)
        return _Silent(initial)
    return tqdm(total=total, initial=initial, desc=desc)
