"""What the benchmark scripts share: reading a corpus, timing, interleaved runs, parity failures, and
the one way every script reports a comparison.

Every ratio is kvec's time over the anchor's (``kvec/anchor``): below 1.00x kvec is faster. The
speed-up or slow-down follows in words, so no figure can be read backwards.

Imported by the scripts in this folder (run them as ``python bench/NAME.py``, which puts the folder on
the import path).
"""

import argparse
import gc
import statistics
import time

CONVENTION = "ratios: kvec time / anchor time (kvec/anchor); below 1.00x kvec is faster"
LABEL_WIDTH = 28


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


def print_convention():
    """The line every script prints first, so its figures cannot be read backwards."""
    print(CONVENTION, flush=True)


def ratio_text(kvec_seconds, anchor_seconds):
    """``kvec/anchor 0.14x (7.1x faster)``: the ratio, then the same figure in words."""
    if not kvec_seconds or not anchor_seconds:
        return "kvec/anchor n/a"
    ratio = kvec_seconds / anchor_seconds
    words = f"{1 / ratio:.1f}x faster" if ratio <= 1 else f"{ratio:.1f}x slower"
    return f"kvec/anchor {ratio:.2f}x ({words})"


def report(label, anchor_name, kvec_times, anchor_times, extra=""):
    """One comparison: the medians of both sides and their ratio (see :data:`CONVENTION`)."""
    kvec_s, anchor_s = statistics.median(kvec_times), statistics.median(anchor_times)
    runs = len(kvec_times)
    print(
        f"{label:<{LABEL_WIDTH}}kvec {kvec_s:.3f}s  {anchor_name} {anchor_s:.3f}s  {ratio_text(kvec_s, anchor_s)}  "
        f"(median of {runs}){extra}",
        flush=True,
    )
