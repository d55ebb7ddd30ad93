"""Progress bars for long work, through tqdm when it is installed (it is an optional dependency)."""

import sys

INSTALL_HINT = "kvec: progress bars need tqdm: pip install 'kvec[cli]' (or pass show_progress=False)"
_hinted = False  # the hint is printed once per process, not once per bar


class _Silent:
    """The interface kvec uses from a tqdm bar, doing nothing."""

    def __init__(self, initial=0):
        self.n = initial

    def update(self, n=1):
        self.n += n

    def close(self):
        pass


def progress_bar(enabled, total=None, initial=0, desc=None, unit="it", unit_scale=False):
    """A tqdm bar when ``enabled``, else a silent one. Without tqdm the bar is silent too, and the first
    one of the process prints :data:`INSTALL_HINT` on stderr.

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
        global _hinted
        if not _hinted:
            _hinted = True
            print(INSTALL_HINT, file=sys.stderr)
        return _Silent(initial)
    return tqdm(total=total, initial=initial, desc=desc, unit=unit, unit_scale=unit_scale)
