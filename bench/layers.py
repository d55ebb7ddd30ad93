"""Benchmark kvec's subword layer against keras_hub's ``WordPieceTokenizer`` inside ``tf.data``.

Usage::

    .venv/bin/python bench/layers.py CORPUS [--lines 20000] [--runs 5] [--batch-size 1024] [--vocab-size 8000]

Both sides use one WordPiece vocabulary (trained by kvec on the lines, BERT's split, no lowercasing)
and the same pipeline: ``Dataset.from_tensor_slices(lines).batch(B).map(tokenizer,
num_parallel_calls=AUTOTUNE)``, iterated to the end. kvec's tokenizer is
``kvec.layers.TextVectorization(tokenizer=pipeline, ragged=True)``; keras_hub's is
``WordPieceTokenizer(vocabulary, lowercase=False, strip_accents=False)``, which splits words the BERT
way too. The ids must be identical (a mismatch stops the script).

Then both tokenizers go into a model, ``keras.Model(string input, tokenizer(input))``, exported with
``model.export`` and loaded back with ``tf.saved_model.load``; each pass serves every batch through
``serve`` (medians of ``--runs`` interleaved passes, the ids compared on the first).

A third line times the same pipeline with ``tf.strings.length`` as the map (interleaved with keras_hub
too): what tf.data itself costs a pass (building the map function for each new iterator, batching,
handing batches over), the bound on any tokenizer's ratio on this machine.

Timed passes only count the ids (converting a million of them to Python lists would take longer than
making them). Printed: the first pass of each side on a fresh tokenizer (kvec's word cache empty; TensorFlow's
process-wide first-use costs paid before, on a small unrelated dataset), then the median of ``--runs``
interleaved passes over the same datasets, and the ratios kvec / keras_hub (below 1.00x kvec is faster;
see bench/harness.py).
"""

import argparse
import os
import statistics
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import keras_hub  # noqa: E402
import tensorflow as tf  # noqa: E402
from harness import interleave, mismatch, positive_int, print_convention, read_lines, report, timed  # noqa: E402

from kvec import decoders  # noqa: E402
from kvec.layers import TextVectorization  # noqa: E402
from kvec.pipeline import Tokenizer  # noqa: E402
from kvec.pretokenizers import BertPreTokenizer  # noqa: E402
from kvec.trainers import WordPieceTrainer  # noqa: E402


def dataset(lines, tokenizer, batch_size):
    texts = tf.data.Dataset.from_tensor_slices(lines).batch(batch_size)
    return texts.map(tokenizer, num_parallel_calls=tf.data.AUTOTUNE)


def ids(ds):
    """Every text's ids as a list, from one pass over ``ds`` (for the parity check)."""
    return [row for batch in ds for row in batch.to_list()]


def run(ds):
    """One timed pass over ``ds``: the batches are made and counted, not converted."""
    return sum(int(tf.size(batch.flat_values)) for batch in ds)


def run_dense(ds):
    """One timed pass over ``ds`` of dense batches, counted as :func:`run` counts ragged ones."""
    return sum(int(tf.size(batch)) for batch in ds)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", help="UTF-8 text file, one document per line")
    parser.add_argument("--lines", type=positive_int, default=20000, help="first lines used (default 20000)")
    parser.add_argument("--runs", type=positive_int, default=5, help="warm passes per side (default 5)")
    parser.add_argument("--batch-size", type=positive_int, default=1024, help="texts per batch (default 1024)")
    parser.add_argument("--vocab-size", type=positive_int, default=8000, help="WordPiece vocabulary (default 8000)")
    args = parser.parse_args(argv)
    print_convention()

    lines = read_lines(args.corpus, args.lines)
    pipeline = Tokenizer(None, pre_tokenizer=BertPreTokenizer(), decoder=decoders.WordPiece())
    pipeline.train_from_iterator(lines, WordPieceTrainer(vocab_size=args.vocab_size, special_tokens=["[PAD]", "[UNK]"]))
    vocabulary = [token for token, _ in sorted(pipeline.get_vocab().items(), key=lambda item: item[1])]
    print(f"{len(lines)} lines, vocabulary of {len(vocabulary)} WordPiece tokens, batches of {args.batch_size}")

    # a copy of the trained pipeline: its word cache starts empty
    our_layer = TextVectorization(tokenizer=Tokenizer.from_str(pipeline.to_str()), ragged=True)
    their_layer = keras_hub.tokenizers.WordPieceTokenizer(vocabulary=vocabulary, lowercase=False, strip_accents=False)
    ours = dataset(lines, our_layer, args.batch_size)
    theirs = dataset(lines, their_layer, args.batch_size)
    # TensorFlow's own first-use costs (thread pools, the first iterator) are paid before the clock starts
    run(tf.data.Dataset.from_tensor_slices(["warm up"] * 64).batch(8).map(lambda x: tf.strings.split(x)))
    our_count, our_cold = timed(lambda: run(ours))
    their_count, their_cold = timed(lambda: run(theirs))
    our_ids, their_ids = ids(ours), ids(theirs)
    if our_ids != their_ids:
        first = next(i for i, (a, b) in enumerate(zip(our_ids, their_ids)) if a != b)
        mismatch("layer ids", f"line {first}: kvec {our_ids[first][:20]} vs keras_hub {their_ids[first][:20]}")
    tokens = sum(map(len, our_ids))
    del our_ids, their_ids

    def check(a, b):
        if a != b:
            mismatch("layer ids", "a warm pass differs")

    kvec_times, anchor_times, _ = interleave(lambda: run(ours), lambda: run(theirs), args.runs, check, keep=False)
    kvec_warm, anchor_warm = statistics.median(kvec_times), statistics.median(anchor_times)
    print(f"ids identical: {tokens} tokens")
    report("first pass", "keras_hub", [our_cold], [their_cold])
    rates = f"  ({tokens / kvec_warm / 1e6:.1f} M tokens/s vs {tokens / anchor_warm / 1e6:.1f} M)"
    report("later passes", "keras_hub", kvec_times, anchor_times, rates)
    lengths = dataset(lines, tf.strings.length, args.batch_size)
    floor_times, anchor_times, _ = interleave(
        lambda: run_dense(lengths), lambda: run(theirs), args.runs, lambda a, b: None, keep=False
    )
    report("tf.data, a map of lengths", "keras_hub", floor_times, anchor_times)
    serving(our_layer, their_layer, lines, args)


def exported(layer, folder):
    """``layer`` inside a model that takes strings, exported and loaded back."""
    inputs = keras.Input(shape=(), dtype="string")
    keras.Model(inputs, layer(inputs)).export(folder, verbose=False)
    return tf.saved_model.load(folder)


def serving(our_layer, their_layer, lines, args):
    batches = [tf.constant(lines[i : i + args.batch_size]) for i in range(0, len(lines), args.batch_size)]
    with tempfile.TemporaryDirectory() as folder:
        ours = exported(our_layer, os.path.join(folder, "kvec"))
        theirs = exported(their_layer, os.path.join(folder, "keras_hub"))

        def serve(model):
            return lambda: sum(int(tf.size(model.serve(batch).flat_values)) for batch in batches)

        first_ours = [row for batch in batches for row in ours.serve(batch).to_list()]
        first_theirs = [row for batch in batches for row in theirs.serve(batch).to_list()]
        if first_ours != first_theirs:
            mismatch("served ids", "the exported models serve different ids")

        def check(a, b):
            if a != b:
                mismatch("served ids", "a pass differs")

        kvec_times, anchor_times, _ = interleave(serve(ours), serve(theirs), args.runs, check, keep=False)
    report("exported model, serve", "keras_hub", kvec_times, anchor_times)


if __name__ == "__main__":
    main()
