"""``kvec.data.batching.TokenBatches``: every example once per epoch, rows padded as ``pad_sequences`` pads
them, masks on the real ids, less padding with bucketing, the same batches for the same seed."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvec import Tokenizer, pad_sequences
from kvec.data.batching import TokenBatches

SEQUENCES = st.lists(st.lists(st.integers(1, 50), max_size=12), min_size=1, max_size=60)


def positions_of(batches, sequences):
    """Which sequence each row of each batch is, read back from the ids (rows are made unique)."""
    index = {tuple(s): i for i, s in enumerate(sequences)}
    seen = []
    for inputs in batches:
        for ids, mask in zip(inputs["input_ids"], inputs["attention_mask"]):
            seen.append(index[tuple(ids[mask == 1].tolist())])
    return seen


@given(
    sequences=SEQUENCES,
    batch_size=st.integers(1, 7),
    maxlen=st.one_of(st.none(), st.integers(1, 8)),
    padding=st.sampled_from(["pre", "post"]),
    truncating=st.sampled_from(["pre", "post"]),
    bucket=st.booleans(),
    shuffle=st.booleans(),
    window=st.integers(1, 4),
)
def test_rows_are_pad_sequences_rows_and_every_example_comes_once(
    sequences, batch_size, maxlen, padding, truncating, bucket, shuffle, window
):
    sequences = [s + [1000 + i] for i, s in enumerate(sequences)]  # every row unique
    labels = np.arange(len(sequences)) * 10
    batches = TokenBatches(
        sequences,
        labels=labels,
        batch_size=batch_size,
        maxlen=maxlen,
        padding=padding,
        truncating=truncating,
        bucket=bucket,
        shuffle=shuffle,
        bucket_window=window,
        seed=3,
        pad_value=-1,
    )
    for _epoch in range(2):
        order = []
        for inputs, batch_labels in batches:
            ids, mask = inputs["input_ids"], inputs["attention_mask"]
            assert ids.shape == mask.shape and len(ids) <= batch_size
            rows = [sequences[label // 10] for label in batch_labels]
            width = min(max(map(len, rows)), maxlen or 10**9)
            expected = pad_sequences(rows, maxlen=width, padding=padding, truncating=truncating, value=-1)
            assert ids.tolist() == expected.tolist()
            assert mask.tolist() == (expected != -1).astype(int).tolist()
            order += [label // 10 for label in batch_labels]
        assert sorted(order) == list(range(len(sequences)))
        batches.on_epoch_end()


def varied_lengths(count, seed):
    rng = np.random.default_rng(seed)
    return [list(range(1, int(n) + 1)) for n in rng.integers(1, 200, size=count)]


@given(st.lists(st.integers(0, 30), min_size=1, max_size=200), st.integers(1, 16), st.integers(1, 3))
def test_with_full_batches_bucketing_never_pads_more_than_plain_order(lengths, batch_size, window):
    lengths = lengths[: len(lengths) - len(lengths) % batch_size] or [3] * batch_size  # every batch full
    sequences = [[7] * n for n in lengths]
    report = TokenBatches(sequences, batch_size=batch_size, bucket_window=window).padding_report()
    assert report["padding"] <= report["padding_unbucketed"]
    assert report["cells"] - report["padding"] == sum(lengths)


def test_bucketing_cuts_most_padding_on_varied_lengths():
    report = TokenBatches(varied_lengths(2000, 1), batch_size=32, shuffle=True).padding_report()
    assert report["padding_fraction_unbucketed"] > 0.4
    assert report["padding_fraction"] < 0.05
    assert report["padding_saved"] > 0.9
    plain = TokenBatches(varied_lengths(2000, 1), batch_size=32, bucket=False).padding_report()
    assert plain["padding"] == plain["padding_unbucketed"]


def test_the_same_seed_gives_the_same_batches_and_another_seed_other_ones():
    def epochs(seed):
        batches = TokenBatches(varied_lengths(300, 2), batch_size=16, shuffle=True, seed=seed)
        out = []
        for _ in range(2):
            out.append([b["input_ids"].tolist() for b in batches])
            batches.on_epoch_end()
        return out

    first = epochs(5)
    assert first == epochs(5)
    assert first != epochs(6)
    assert first[0] != first[1]  # a new order every epoch


def test_ragged_input_and_texts_give_the_same_batches():
    tok = Tokenizer(oov_token="?")
    texts = ["the cat sat", "a dog", "the dog sat on the mat", ""]
    tok.fit_on_texts(texts)
    from_lists = TokenBatches(tok.texts_to_sequences(texts), batch_size=3)
    from_texts = TokenBatches.from_texts(texts, tok, batch_size=3)
    assert [b["input_ids"].tolist() for b in from_lists] == [b["input_ids"].tolist() for b in from_texts]


def test_misuse_raises_clear_errors():
    with pytest.raises(ValueError, match="batch_size must be a positive int, got 0"):
        TokenBatches([[1]], batch_size=0)
    with pytest.raises(ValueError, match="maxlen must be a positive int, got -1"):
        TokenBatches([[1]], maxlen=-1)
    with pytest.raises(ValueError, match='padding must be "pre" or "post", got \'left\''):
        TokenBatches([[1]], padding="left")
    with pytest.raises(ValueError, match="labels has 1 entries but sequences has 2"):
        TokenBatches([[1], [2]], labels=[0])
    with pytest.raises(ValueError, match="row_lengths summing to len"):
        TokenBatches((np.array([1, 2]), np.array([3])))
    with pytest.raises(TypeError, match="sequences must be a list of id lists"):
        TokenBatches([1, 2])
    with pytest.raises(IndexError, match="batch 5 out of range"):
        TokenBatches([[1]])[5]
