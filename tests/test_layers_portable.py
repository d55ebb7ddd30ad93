"""The layer on JAX and PyTorch in this process's environment: ``import kvec.layers`` loads no
TensorFlow there, the layer pickles (as ``torch.utils.data.DataLoader`` sends it to its worker
processes) with the same outputs, and what this host cannot do raises an error that says what to use.

Each check runs in a fresh interpreter per backend (Keras fixes its backend at import)."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("keras")

from kvec._keras import fill_rows  # noqa: E402
from kvec.layers.keras_rules import (  # noqa: E402
    ARRAY_ALIGNMENT,
    KerasVocabulary,
    ReusedBuffers,
    encode_ids,
    ragged_to_dense,
    tensorflow_mean,
    vocabulary_lines,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BACKENDS = [b for b in ("jax", "torch") if importlib.util.find_spec(b) is not None]


def run(backend, code):
    env = dict(os.environ, KERAS_BACKEND=backend, PYTHONPATH=ROOT)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("backend", BACKENDS)
def test_kvec_layers_imports_no_tensorflow_on_other_backends(backend):
    out = run(backend, "import sys, kvec.layers; print('tensorflow' in sys.modules, kvec.layers.TextVectorization)")
    assert out.split()[0] == "False"
    assert "kvec.layers.portable.TextVectorization" in out


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_layer_pickles_with_its_tokenizer(backend):
    out = run(
        backend,
        """
        import pickle, keras, numpy as np, kvec.layers
        from kvec.presets import keras_subword
        texts = ["a good film", "a dull film", "good acting and a good story", "dull and slow"] * 3
        for tokenizer in (None, keras_subword("wordpiece", 60)):
            layer = kvec.layers.TextVectorization(tokenizer=tokenizer, output_sequence_length=6)
            layer.adapt(texts)
            copy = pickle.loads(pickle.dumps(layer))
            a, b = keras.ops.convert_to_numpy(layer(texts)), keras.ops.convert_to_numpy(copy(texts))
            print(np.array_equal(a, b), a.shape)
        """,
    )
    assert out.split("\n")[:2] == ["True (12, 6)", "True (12, 6)"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_what_needs_tensorflow_says_what_to_use(backend):
    out = run(
        backend,
        """
        import kvec.layers
        for arguments in ({"sparse": True, "output_mode": "count"}, {"split": lambda x: x}):
            try:
                kvec.layers.TextVectorization(**arguments)
            except ValueError as e:
                print(e)
        """,
    )
    assert "sparse=True needs the TensorFlow backend" in out
    assert "split= as a callable needs the TensorFlow backend" in out and "tokenizer=" in out


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_inputs_name_the_item(backend):
    out = run(
        backend,
        """
        import kvec.layers
        layer = kvec.layers.TextVectorization(vocabulary=["a"])
        try:
            layer(["a", 3])
        except TypeError as e:
            print(e)
        """,
    )
    assert "item 1 is a int" in out


@pytest.mark.parametrize("backend", BACKENDS)
def test_str_texts_in_one_native_call_give_the_outputs_of_the_rules_in_python(backend):
    """A list of str runs through kvec's native encoder (texts to ids in one call); the same texts as
    UTF-8 bytes take the rules of kvec.layers.keras_rules in Python, or the tokenizer's own encoder:
    the outputs, their dtype (the backend's for int64) and the layer after pickling are the same."""
    out = run(
        backend,
        """
        import pickle, random, keras, numpy as np, kvec.layers
        from kvec.presets import keras_subword
        random.seed(7)
        alphabet = list("abcAB  \\t\\n\\r!.,'-_~é中ÄΣσ\\x0b\\x0c\\x1c\\x85\\u00a0\\u3000\\U0001F600x")
        texts = ["".join(random.choice(alphabet) for _ in range(random.randint(0, 30))) for _ in range(600)]
        as_bytes = np.array([t.encode() for t in texts], dtype=object)
        expected = keras.ops.convert_to_tensor(np.zeros(1, np.int64)).dtype
        layers = [
            dict(standardize=standardize, split=split, output_mode=mode, max_tokens=30, output_sequence_length=length)
            for standardize in (None, "lower", "strip_punctuation", "lower_and_strip_punctuation")
            for split in ("whitespace", "character")
            for mode, length in (("int", None), ("int", 5), ("multi_hot", None), ("count", None))
        ] + [dict(tokenizer=keras_subword("wordpiece", 80), output_mode=m) for m in ("int", "count")]
        for arguments in layers:
            layer = kvec.layers.TextVectorization(**arguments)
            layer.adapt(texts[:300])
            native, rules = layer(texts), layer(as_bytes)
            if arguments["output_mode"] == "int":
                assert native.dtype == expected, (native.dtype, expected)
            native, rules = keras.ops.convert_to_numpy(native), keras.ops.convert_to_numpy(rules)
            assert native.shape == rules.shape and np.array_equal(native, rules), arguments
        for tokenizer in (None, keras_subword("wordpiece", 80)):  # pickled after a native call
            layer = kvec.layers.TextVectorization(tokenizer=tokenizer)
            layer.adapt(["a good film", "a dull film", "good acting"])
            native = keras.ops.convert_to_numpy(layer(texts))
            copy = pickle.loads(pickle.dumps(layer))
            assert np.array_equal(keras.ops.convert_to_numpy(copy(texts)), native)
        layer = kvec.layers.TextVectorization(vocabulary=["a\\udce9", "b"])  # a lone surrogate: the bytes path
        print(keras.ops.convert_to_numpy(layer(["a\\udce9 b c", "b"])).tolist(), len(layers))
        """,
    )
    assert out.split("\n")[0] == "[[2, 3, 1], [3, 0, 0]] 34"


@pytest.mark.parametrize("backend", BACKENDS)
def test_long_texts_in_a_large_batch_give_the_ragged_rows_padded_and_the_rules_outputs(backend):
    """Texts of up to 400 words (many more than the native lookup probes at once), some unknown, in a
    batch whose padded matrix takes more than a MiB: the str texts
    (native encoder) give the UTF-8 bytes' outputs (the rules in Python), and each row is the ragged
    layer's row padded with 0."""
    out = run(
        backend,
        """
        import random, keras, numpy as np, kvec.layers
        random.seed(11)
        words = ["w%d" % i for i in range(300)] + ["A.", "b,", "C", "é!"]
        texts = [" ".join(random.choice(words) for _ in range(random.randint(0, 400))) for _ in range(1200)]
        as_bytes = np.array([t.encode() for t in texts], dtype=object)
        for standardize in (None, "lower_and_strip_punctuation"):
            layer = kvec.layers.TextVectorization(standardize=standardize, max_tokens=200)
            layer.adapt(texts[:100])
            ragged = kvec.layers.TextVectorization(
                standardize=standardize, vocabulary=layer.get_vocabulary(), ragged=True
            )
            native = keras.ops.convert_to_numpy(layer(texts))
            assert native.nbytes > 1 << 20, native.nbytes
            assert np.array_equal(native, keras.ops.convert_to_numpy(layer(as_bytes)))
            rows = ragged(texts)
            assert native.shape == (len(texts), max(map(len, rows)))
            padded = [row + [0] * (native.shape[1] - len(row)) for row in rows]
            assert native.tolist() == padded, standardize
            assert min(map(min, filter(None, rows))) == 1  # unknown words among them
        print("ok")
        """,
    )
    assert out.strip() == "ok"


@pytest.mark.parametrize("backend", BACKENDS)
def test_tokens_with_line_breaks_other_than_newline_survive_pickle_and_keras_files(backend, tmp_path):
    """vocabulary.txt holds one token a line, lines ending at "\\n" only (TensorFlow's rule for
    vocabulary files): tokens holding "\\r", "\\x1c", "\\x85" or "\\u2028" come back as they were."""
    out = run(
        backend,
        f"""
        import pickle, keras, numpy as np, kvec.layers
        texts = ["a\\rb", "c\\x1cd", "e\\x85f", "g\\u2028h", "a\\rb", "i"]
        layer = kvec.layers.TextVectorization(standardize=None, split=None, output_sequence_length=1)
        layer.adapt(texts)
        path = {str(tmp_path / "model.keras")!r}
        keras.Sequential([keras.Input(shape=(), dtype="string"), layer]).save(path)
        loaded = keras.saving.load_model(path).layers[0]
        copy = pickle.loads(pickle.dumps(layer))
        expected = keras.ops.convert_to_numpy(layer(texts))
        for other in (loaded, copy):
            print(other.get_vocabulary() == layer.get_vocabulary(),
                  np.array_equal(keras.ops.convert_to_numpy(other(texts)), expected))
        print(sorted(layer.get_vocabulary()[2:]))
        """,
    )
    lines = out.split("\n")
    assert lines[:2] == ["True True", "True True"]
    assert lines[2] == repr(sorted(["a\rb", "c\x1cd", "e\x85f", "g\u2028h", "i"]))


def test_a_vocabulary_file_reads_as_tensorflow_reads_it(tmp_path):
    tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    path = tmp_path / "vocabulary.txt"
    path.write_bytes("a\r\nb\rc\nd\x1ce\nf\x85g\nh\u2028i\nj\n".encode())
    if keras.backend.backend() != "tensorflow":
        pytest.skip("Keras' TextVectorization runs on TensorFlow")
    layer = keras.layers.TextVectorization(vocabulary=str(path))
    assert tf.executing_eagerly()
    expected = [str(token) for token in layer.get_vocabulary()][2:]
    assert vocabulary_lines(path.read_bytes().decode()) == expected


@settings(max_examples=60, deadline=None)
@given(
    weights=st.lists(st.floats(0, 12, width=32), min_size=1, max_size=200).map(lambda w: w * 50)
    | st.lists(st.floats(0, 12, width=32), min_size=1, max_size=3000)
)
def test_the_mean_of_float32s_is_tensorflows_to_the_bit(weights):
    tf = pytest.importorskip("tensorflow")
    values = np.array(weights, dtype=np.float32)
    assert tensorflow_mean(values) == tf.reduce_mean(tf.constant(values)).numpy()


def test_a_tf_idf_layers_unknown_token_weighs_what_keras_gives_it():
    """A case hypothesis found: NumPy's float32 mean of these twelve weights is an ulp off TensorFlow's."""
    tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "tensorflow":
        pytest.skip("Keras' TextVectorization runs on TensorFlow")
    train = ["c\n", "", "a-é-\n", ",", "é", "!--", "\nA中A.", "\t'B", "中", "b"]
    train += ["-\t\tcA'.中a中bAcaéaB!", "\tAaA,!b.中,,!a中-"]
    theirs = keras.layers.TextVectorization(standardize=None, output_mode="tf_idf")
    theirs.adapt(tf.data.Dataset.from_tensor_slices(train).batch(4))
    ours = KerasVocabulary(None, False, "tf_idf", "utf-8")
    ours.count([text.encode().split() for text in train])
    ours.finalize()
    assert ours.get_vocabulary() == theirs.get_vocabulary()
    texts = ["bBB\t!B", "-"] + train
    values, row_lengths = ours.ragged_lookup([text.encode().split() for text in texts])
    got = encode_ids(values, row_lengths, "tf_idf", ours.depth(), None, ours.idf_weights)
    assert got.tolist() == theirs(tf.constant(texts)).numpy().tolist()


@pytest.mark.parametrize("backend", BACKENDS)
def test_big_outputs_held_anywhere_keep_their_ids_while_the_layer_makes_more(backend):
    """Padded matrices past a MiB come from reused buffers (on JAX cleared only where earlier ids were):
    outputs still held (the backend's arrays, a NumPy view of one, a slice of the matrix a JAX array
    aliases) keep their ids while the layer makes more outputs of the same shape from other texts, and
    outputs of changing shapes are their ragged rows padded with 0."""
    out = run(
        backend,
        """
        import random, keras, numpy as np, kvec.layers
        random.seed(5)
        words = ["w%d" % i for i in range(50)]
        batches = [[" ".join(random.choice(words) for _ in range(300)) for _ in range(1100)] for _ in range(6)]
        layer = kvec.layers.TextVectorization(vocabulary=words, output_sequence_length=300)
        ragged = kvec.layers.TextVectorization(vocabulary=words, ragged=True)
        expected = [np.array(ragged(b)) for b in batches]
        assert expected[0].nbytes > 1 << 20
        held = [layer(batches[0]), keras.ops.convert_to_numpy(layer(batches[1]))]
        view = np.asarray(layer(batches[2]))[5:]  # the output itself dropped, a view of it kept
        for k in range(3, 6):
            for _ in range(3):
                assert np.array_equal(keras.ops.convert_to_numpy(layer(batches[k])), expected[k])
        assert np.array_equal(keras.ops.convert_to_numpy(held[0]), expected[0])
        assert np.array_equal(held[1], expected[1])
        assert np.array_equal(view, expected[2][5:])
        # padded to each batch's longest text: widths and rows change from call to call
        longest = kvec.layers.TextVectorization(vocabulary=words)
        sized = [[" ".join(random.choice(words) for _ in range(random.randint(0, n))) for _ in range(rows)]
                 for n, rows in ((600, 1100), (280, 2000), (900, 700), (300, 1100))]
        for texts in sized * 2:
            rows = ragged(texts)
            padded = [row + [0] * (max(map(len, rows)) - len(row)) for row in rows]
            assert keras.ops.convert_to_numpy(longest(texts)).tolist() == padded
        print("ok")
        """,
    )
    assert out.strip() == "ok"


def test_a_buffer_is_laid_out_again_only_when_nothing_holds_it():
    buffers = ReusedBuffers(limit=4 << 20)
    first = buffers.empty((256, 1024), np.int32)
    assert first.ctypes.data % ARRAY_ALIGNMENT == 0 and first.flags.c_contiguous
    kept_slice = first[10:20]
    address = first.ctypes.data
    del first
    second = buffers.empty((256, 1024), np.int32)  # the slice still holds the first buffer
    assert second.ctypes.data != address
    del kept_slice
    third = buffers.empty((200, 1024), np.int32)  # at least half the size: the first buffer again
    assert third.ctypes.data == address
    smaller = buffers.empty((100, 1024), np.int32)  # under half of every buffer kept: a new one
    assert smaller.ctypes.data not in (address, second.ctypes.data)
    del second, third, smaller
    big = buffers.empty((1024, 1024), np.int32)  # past the limit with the others: unheld ones let go
    assert big.shape == (1024, 1024)
    assert sum(b.size for b in buffers._kept) <= 4 << 20


MATRIX_STEP = st.tuples(
    st.sampled_from(["zeroed", "scribbled"]),  # a matrix of ids, or one a caller of empty() fills with 7s
    st.integers(1, 40),  # rows
    st.integers(0, 40),  # width
    st.sampled_from([np.int32, np.int64]),
    st.integers(0, 2**32),  # the seed of the row lengths and ids
    st.booleans(),  # whether the matrix is still held at the next step
)


@settings(max_examples=150, deadline=None)
@given(steps=st.lists(MATRIX_STEP, min_size=1, max_size=12))
def test_a_reused_buffer_gives_zeros_but_at_the_ids_of_each_matrix(steps):
    """Matrices of ids in reused buffers, of changing shapes and types, some held past the next step
    and some buffers laid out for a caller that writes anything: each one is its rows padded with 0,
    though the buffers are cleared only where an earlier matrix of ids had its ids."""
    buffers = ReusedBuffers(limit=1 << 16)
    held = []
    for kind, rows, width, dtype, seed, hold in steps:
        rng = np.random.default_rng(seed)
        if kind == "scribbled":
            matrix = buffers.empty((rows, width), dtype)
            matrix.fill(7)
            expected = matrix.copy()
        else:
            lengths = rng.integers(0, width + 5, size=rows).astype(np.int64)
            values = rng.integers(1, 1000, size=int(lengths.sum())).astype(np.int64)
            matrix = buffers.zeroed_rows((rows, width), dtype, lengths)
            fill_rows(matrix, values, lengths, True)
            ends = np.cumsum(lengths)
            expected = np.zeros((rows, width), dtype=dtype)
            for r, (end, n) in enumerate(zip(ends, lengths)):
                row = values[end - n : end][:width]
                expected[r, : len(row)] = row
            assert np.array_equal(matrix, expected)
        for earlier, earlier_expected in held:  # what is held keeps its values
            assert np.array_equal(earlier, earlier_expected)
        held = [(matrix, expected)] if hold else []


def test_a_read_only_matrix_of_ids_equals_one_zeroed_whole():
    """ragged_to_dense for arrays nobody writes to, over a buffer that held other ids of other widths
    and types: the same matrices as when each is zeroed whole."""
    rng = np.random.default_rng(3)
    buffers = ReusedBuffers()
    for step in range(8):
        rows, width = 1100, [300, 500, 257, 300, 600, 256, 300, 299][step]
        lengths = rng.integers(0, width + 20, size=rows).astype(np.int64)
        values = rng.integers(1, 2**20, size=int(lengths.sum())).astype(np.int64)
        length = None if step % 3 else width - 7
        for dtype in (np.int32, np.int64):
            fresh = ragged_to_dense(values, lengths, length, dtype)
            reused = ragged_to_dense(values, lengths, length, dtype, read_only=True, buffers=buffers)
            assert reused.nbytes >= 1 << 20 and reused.dtype == dtype
            assert np.array_equal(reused, fresh)
            del reused


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_eager_call_on_strings_gives_what_keras_call_gives_without_it(backend):
    out = run(
        backend,
        """
        import keras, numpy as np, kvec.layers
        from kvec.presets import keras_subword
        texts = ["a good film", "a dull film", "good acting and a good story", "dull and slow"] * 3
        keras_call = keras.layers.Layer.__call__
        for tokenizer in (None, keras_subword("wordpiece", 60)):
            for mode in ("int", "count", "tf_idf"):
                layer = kvec.layers.TextVectorization(tokenizer=tokenizer, output_mode=mode)
                layer.adapt(texts)
                for batch in (texts, np.array(texts, dtype=object), np.array(texts), "a good film"):
                    theirs = keras.ops.convert_to_numpy(keras_call(layer, batch))
                    def refused(*args, **kwargs):
                        raise AssertionError("Keras' Layer.__call__ ran")
                    keras.layers.Layer.__call__ = refused
                    try:
                        ours = keras.ops.convert_to_numpy(layer(batch))
                    finally:
                        keras.layers.Layer.__call__ = keras_call
                    print(mode, type(batch).__name__, ours.dtype == theirs.dtype and np.array_equal(ours, theirs))
        layer = kvec.layers.TextVectorization(output_sequence_length=3)
        layer.adapt(texts)
        inputs = keras.Input(shape=(), dtype="string")  # a symbolic input goes through Keras' call
        print(tuple(layer(inputs).shape))
        """,
    )
    lines = out.strip().split("\n")
    assert len(lines) == 2 * 3 * 4 + 1
    assert all(line.endswith(" True") for line in lines[:-1]), lines
    assert lines[-1] == "(None, 3)"
