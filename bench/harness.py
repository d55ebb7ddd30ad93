"""What the benchmark scripts share: reading a corpus, timing, interleaved runs and parity failures.

Imported by the scripts in this folder (run them as ``python bench/NAME.py``, which puts the folder on
the import path).
"""

import argparse
import gc
import time


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def read_lines(path, limit=None):
    """The corpus lines (one document per line), without a trailing empty line."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines if limit is None else lines[:limit]


def timed(fn):
    """Run ``fn()`` on a freshly collected heap; return its result and the seconds it took."""
    gc.collect()
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def interleave(kvec_fn, anchor_fn, runs, check, keep=True):
    """Time ``runs`` interleaved calls (kvec run i, then the anchor's run i) so noise hits both alike.

    The first run's outputs go to ``check``. Returns ``(kvec_times, anchor_times, first)`` where
    ``first`` is the first run's ``(kvec_output, anchor_output)`` if ``keep``, else None; every other
    output is dropped at once, so large results never pile up.
    """
    kvec_times, anchor_times, first = [], [], None
    for run in range(runs):
        kvec_out, seconds = timed(kvec_fn)
        kvec_times.append(seconds)
        if run > 0:
            kvec_out = None
        anchor_out, seconds = timed(anchor_fn)
        anchor_times.append(seconds)
        if run == 0:
            check(kvec_out, anchor_out)
            if keep:
                first = (kvec_out, anchor_out)
        del kvec_out, anchor_out
    return kvec_times, anchor_times, first


def mismatch(workload, detail):
    raise SystemExit(f"MISMATCH in {workload}: {detail}")
