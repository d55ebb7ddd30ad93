"""Training batches of token ids: padded to the longest row of each batch, with attention masks, and
grouped by length so short texts are not padded to the length of long ones.

Bucketing takes the examples a window at a time (``bucket_window`` batches' worth, in epoch order),
sorts each window by length, longest first, and cuts it into batches (when every batch is full, no
other cut of the same windows pads less); the batches are then shuffled, so every epoch
still sees every example once, in a different order, while each batch holds texts of similar length.
:meth:`TokenBatches.padding_report` says how many padding cells that saves against batches in plain
order. NumPy only: the Keras adapters are in :mod:`kvec.layers.batches`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from kvec.common.arguments import is_int, must_be
from kvec.common.ragged import rows_to_ragged
from kvec.data.token_ids import ragged_ids

__all__ = ["TokenBatches"]

PADDING_SIDES = ("pre", "post")


def _positive_int(value, name):
    if not is_int(value) or value < 1:
        raise must_be(name, "a positive int", value)
    return int(value)


class TokenBatches:
    """Padded batches of token ids with attention masks, optionally bucketed by length.

    Args:
        sequences: a list of id lists, or a ``(values, row_lengths)`` pair (see
            :func:`kvec.data.token_ids.ragged_ids`).
        labels: optional, one per sequence (any array-like NumPy can index).
        batch_size: sequences per batch (the last batch of an epoch may be smaller).
        maxlen: longer sequences are truncated to this many ids.
        padding: str, truncating: ``"post"`` (default) pads or cuts at the end, ``"pre"`` at the start, as in
            ``pad_sequences``.
        pad_value: the id that fills padding cells (their mask is 0).
        bucket: group sequences of similar length into the same batch.
        bucket_window: how many batches' worth of sequences are sorted together.
        shuffle: a new order every epoch (:meth:`on_epoch_end`); without it the batches keep the
            sequences' order (within each window, by length when bucketing).
        seed: the seed of the shuffles: the same seed gives the same batches, run after run.
        dtype: the dtype of ``input_ids`` and ``attention_mask``.

    Each batch is ``({"input_ids": ids, "attention_mask": mask}, labels)``, or the dict alone without
    labels; both arrays are ``[batch, longest row]``.

    Example:
        >>> batches = TokenBatches([[5, 6, 7], [8], [9, 9], [1, 2, 3, 4]], batch_size=2)
        >>> inputs = batches[0]
        >>> inputs["input_ids"].tolist(), inputs["attention_mask"].tolist()
        ([[1, 2, 3, 4], [5, 6, 7, 0]], [[1, 1, 1, 1], [1, 1, 1, 0]])
        >>> report = batches.padding_report()
        >>> report["padding"], report["padding_unbucketed"]
        (2, 4)
    """

    def __init__(
        self,
        sequences: Any,
        labels: Any = None,
        batch_size: int = 32,
        maxlen: int | None = None,
        padding="post",
        truncating: str = "post",
        pad_value: int = 0,
        bucket: bool = True,
        bucket_window: int = 50,
        shuffle: bool = False,
        seed: int | None = 0,
        dtype: Any = "int32",
    ) -> None:
        self.batch_size = _positive_int(batch_size, "batch_size")
        self.bucket_window = _positive_int(bucket_window, "bucket_window")
        if maxlen is not None:
            maxlen = _positive_int(maxlen, "maxlen")
        for name, value in (("padding", padding), ("truncating", truncating)):
            if value not in PADDING_SIDES:
                raise ValueError(f'{name} must be "pre" or "post", got {value!r}')
        if isinstance(sequences, tuple) and len(sequences) == 2:
            values, row_lengths = (np.asarray(a, dtype=np.int64) for a in sequences)
            if values.ndim != 1 or row_lengths.ndim != 1 or row_lengths.sum() != len(values) or (row_lengths < 0).any():
                raise ValueError(
                    "sequences as (values, row_lengths) needs 1-D arrays with row_lengths summing to len(values)"
                )
        else:
            try:
                values, row_lengths = rows_to_ragged(list(sequences))
            except TypeError:
                raise TypeError("sequences must be a list of id lists or a (values, row_lengths) pair") from None
        self._values = values
        self._starts = np.concatenate([[0], np.cumsum(row_lengths)[:-1]]).astype(np.int64)
        self._row_lengths = row_lengths
        self.lengths = row_lengths if maxlen is None else np.minimum(row_lengths, maxlen)
        if labels is not None:
            labels = np.asarray(labels)
            if len(labels) != len(row_lengths):
                raise ValueError(f"labels has {len(labels)} entries but sequences has {len(row_lengths)}")
        self.labels = labels
        self.maxlen, self.padding, self.truncating = maxlen, padding, truncating
        self.pad_value, self.dtype = pad_value, np.dtype(dtype)
        self.bucket, self.shuffle, self.seed = bool(bucket), bool(shuffle), seed
        self.epoch = 0
        self._plan = self._make_plan()

    @classmethod
    def from_texts(cls, texts: Iterable[str], tokenizer: Any, labels: Any = None, **kwargs: Any) -> TokenBatches:
        """The batches of ``texts`` encoded by any kvec tokenizer (see :func:`kvec.data.token_ids.ragged_ids`)."""
        return cls(ragged_ids(tokenizer, list(texts)), labels=labels, **kwargs)

    # ---- the plan of an epoch --------------------------------------------------------------------

    def _make_plan(self):
        """The batches of the current epoch, each an array of sequence positions."""
        count = len(self.lengths)
        entropy = None if self.seed is None else [self.seed, self.epoch]  # None: a fresh order every run
        rng = np.random.default_rng(entropy) if self.shuffle else None
        order = rng.permutation(count) if rng is not None else np.arange(count)
        if self.bucket:
            window = self.batch_size * self.bucket_window
            for start in range(0, count, window):
                chunk = order[start : start + window]
                # longest first: the longest texts come in the first batches, where a memory limit shows
                order[start : start + window] = chunk[np.argsort(-self.lengths[chunk], kind="stable")]
        plan = [order[i : i + self.batch_size] for i in range(0, count, self.batch_size)]
        if rng is not None:
            plan = [plan[i] for i in rng.permutation(len(plan))]
        return plan

    def on_epoch_end(self) -> None:
        """Start the next epoch: a new order when ``shuffle``."""
        self.epoch += 1
        if self.shuffle:
            self._plan = self._make_plan()

    # ---- batches -----------------------------------------------------------------------------------

    def __len__(self):
        return len(self._plan)

    def __getitem__(self, index):
        if not -len(self._plan) <= index < len(self._plan):
            raise IndexError(f"batch {index} out of range ({len(self._plan)} batches)")
        positions = self._plan[index]
        lengths = self.lengths[positions]
        width = int(lengths.max()) if len(lengths) else 0
        ids = np.full((len(positions), width), self.pad_value, dtype=self.dtype)
        mask = np.zeros((len(positions), width), dtype=self.dtype)
        for row, position in enumerate(positions):
            kept = int(lengths[row])
            start, full = self._starts[position], self._row_lengths[position]
            first = start + (full - kept if self.truncating == "pre" else 0)
            cells = slice(width - kept, width) if self.padding == "pre" else slice(0, kept)
            ids[row, cells] = self._values[first : first + kept]
            mask[row, cells] = 1
        inputs = {"input_ids": ids, "attention_mask": mask}
        return inputs if self.labels is None else (inputs, self.labels[positions])

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def padding_report(self) -> dict[str, Any]:
        """Padding of this epoch's batches against the same batch size in plain order: ``cells``,
        ``padding``, ``padding_fraction``, ``padding_unbucketed``, ``padding_fraction_unbucketed`` and
        ``padding_saved`` (the share of the plain order's padding cells that bucketing avoids)."""

        def padding_of(plan):
            widths = np.array([self.lengths[p].max() if len(p) else 0 for p in plan])
            cells = int(sum(w * len(p) for w, p in zip(widths, plan)))
            return cells, cells - int(self.lengths.sum())

        cells, padding = padding_of(self._plan)
        count = len(self.lengths)
        plain = [np.arange(i, min(i + self.batch_size, count)) for i in range(0, count, self.batch_size)]
        plain_cells, plain_padding = padding_of(plain)
        return {
            "cells": cells,
            "padding": padding,
            "padding_fraction": padding / cells if cells else 0.0,
            "padding_unbucketed": plain_padding,
            "padding_fraction_unbucketed": plain_padding / plain_cells if plain_cells else 0.0,
            "padding_saved": 1 - padding / plain_padding if plain_padding else 0.0,
        }
