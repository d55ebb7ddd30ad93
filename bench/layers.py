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

Two more lines run kvec's side in another process, on JAX in a venv without TensorFlow
(``--backends-python``, default ``.venv-backends/bin/python``; bench/layers_backend.py): the layer
without a tokenizer, given the vocabulary ``keras.layers.TextVectorization`` learnt from the lines,
against that Keras layer in ``tf.data`` (both pad each batch to its longest text); and the layer with
the WordPiece pipeline against keras_hub's tokenizer in ``tf.data`` (its ragged batches padded with 0 for
the comparison, not while timed). The ids of every batch must be identical. The other process stays up
and times one pass each time it is asked, so its passes interleave with the anchor's as in this
process (each kvec time is the pass as that process measures it).

Each backend line is followed by the same comparison above each side's floor, where 2 cores are the
limit: kvec's floor is a pass that only makes the layer's outputs (each batch's padded matrix of zeros,
made as the layer makes its own but in buffers where no ids were written, and put on the device as the
layer puts its own; no text read), the anchor's is ``tf.data`` over the same
batches with ``tf.strings.length`` as the map; each side's pass less the median of its floor's
(interleaved too).

Timed passes only count the ids (converting a million of them to Python lists would take longer than
making them). Printed: the first pass of each side on a fresh tokenizer (kvec's word cache empty; TensorFlow's
process-wide first-use costs paid before, on a small unrelated dataset), then the median of ``--runs``
interleaved passes over the same datasets, and the ratios kvec / keras_hub (below 1.00x kvec is faster;
see bench/harness.py).
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import keras_hub  # noqa: E402
import numpy as np  # noqa: E402
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
    parser.add_argument(
        "--backends-python",
        default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".venv-backends/bin/python"),
        help="a Python with kvec on JAX and no TensorFlow, for the backend lines (make test-backends makes one)",
    )
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
    if os.path.exists(args.backends_python):
        backend_lines(lines, pipeline, theirs, args)
    else:
        print(f"(no {args.backends_python}: the JAX lines need make test-backends's venv)")


def padded_batches(ds):
    """The batches of ``ds`` as NumPy matrices, ragged ones padded with 0 to their longest row."""
    return [np.asarray(b.to_tensor() if isinstance(b, tf.RaggedTensor) else b) for b in ds]


def backend_lines(lines, pipeline, keras_hub_dataset, args):
    """kvec's layer on JAX without TensorFlow (another process) against Keras' TextVectorization and
    keras_hub's WordPiece in tf.data."""
    keras_layer = keras.layers.TextVectorization()
    keras_layer.adapt(tf.data.Dataset.from_tensor_slices(lines).batch(args.batch_size))
    keras_dataset = dataset(lines, keras_layer, args.batch_size)
    anchors = {"keras": keras_dataset, "wordpiece": keras_hub_dataset}
    anchor_ids = {name: padded_batches(ds) for name, ds in anchors.items()}
    anchor_passes = {"keras": lambda: run_dense(keras_dataset), "wordpiece": lambda: run(keras_hub_dataset)}
    with tempfile.TemporaryDirectory() as folder:
        for name, value in (
            ("lines.json", lines),
            ("batch_size", args.batch_size),
            ("vocabulary.json", keras_layer.get_vocabulary()),
        ):
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                json.dump(value, f)
        with open(os.path.join(folder, "wordpiece.json"), "w", encoding="utf-8") as f:
            f.write(pipeline.to_str())
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env.update(KERAS_BACKEND="jax", PYTHONPATH=os.pathsep.join([root, os.path.join(root, "bench")]))
        command = [args.backends_python, os.path.join(root, "bench", "layers_backend.py"), folder]
        with subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as child:
            backend = child.stdout.readline().strip()
            if not backend:
                raise SystemExit(f"{command[1]} failed (exit status {child.wait()})")

            def kvec_pass(name):
                child.stdin.write(name + "\n")
                child.stdin.flush()
                return float(child.stdout.readline())

            lengths = dataset(lines, tf.strings.length, args.batch_size)
            kvec_times, anchor_times, kvec_floors, anchor_floors = {}, {}, {}, {}
            for name in anchors:
                kvec_times[name], anchor_times[name], kvec_floors[name], anchor_floors[name] = [], [], [], []
                for _ in range(args.runs):  # interleaved: noise hits both sides alike
                    kvec_times[name].append(kvec_pass(name))
                    anchor_times[name].append(timed(anchor_passes[name])[1])
                    kvec_floors[name].append(kvec_pass(f"floor {name}"))
                    anchor_floors[name].append(timed(lambda: run_dense(lengths))[1])
            child.stdin.write("\n")
            child.stdin.flush()
        for name in anchors:
            with np.load(os.path.join(folder, f"{name}_ids.npz")) as saved:
                ours = [saved[f"arr_{i}"] for i in range(len(saved.files))]
            same = len(ours) == len(anchor_ids[name]) and all(
                a.shape == b.shape and np.array_equal(a, b) for a, b in zip(ours, anchor_ids[name])
            )
            if not same:
                mismatch(f"{name} ids on {backend}", "a batch differs from the tf.data anchor's")
    print(f"ids identical on {backend} without TensorFlow, two processes")
    labels = {
        "keras": ("no tokenizer, on JAX", "keras TextVectorization"),
        "wordpiece": ("WordPiece, on JAX", "keras_hub"),
    }
    for name, (label, anchor_name) in labels.items():
        report(label, anchor_name, kvec_times[name], anchor_times[name])
        kvec_floor, anchor_floor = statistics.median(kvec_floors[name]), statistics.median(anchor_floors[name])
        report(
            "  above each side's floor",
            anchor_name,
            [t - kvec_floor for t in kvec_times[name]],
            [t - anchor_floor for t in anchor_times[name]],
            f"  (floors: kvec {kvec_floor:.3f}s, tf.data {anchor_floor:.3f}s)",
        )


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
