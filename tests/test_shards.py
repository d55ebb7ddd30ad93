"""Training shards: written from Spark (local[2]) as TFRecord and as Parquet, read back by the NumPy and
the tf.data readers to the same batches, which are those of TokenBatches over the single-process ids;
and what the readers say of folders that are not whole."""

import json
import os
import shutil

import numpy as np
import pytest

from kvec import Tokenizer
from kvec.common.ragged import rows_to_ragged
from kvec.data.batching import TokenBatches
from kvec.data.shards import (
    SHARDS_FILE,
    ShardColumn,
    ShardInfo,
    batches_from_shards,
    read_info,
    read_shards,
    write_info,
)
from kvec.errors import FormatError
from tests.spark_session import shared_session, skip_without_spark
from tests.support import TEXTS

skip_without_spark()
tf = pytest.importorskip("tensorflow")

from kvec import spark as kvec_spark  # noqa: E402
from kvec.layers.shards import dataset_from_shards  # noqa: E402


@pytest.fixture(scope="module")
def session():
    return shared_session()


TEXT_COUNT = 260
MAXLEN = 9
BATCHES = [
    {"batch_size": 16, "bucket": True, "bucket_window": 3},
    {"batch_size": 10, "bucket": False, "padding": "pre"},
    {"batch_size": 32, "bucket": True, "bucket_window": 2, "maxlen": 6, "truncating": "pre", "pad_value": 7},
]


@pytest.fixture(scope="module")
def written(session, tmp_path_factory):
    """Shards of the same rows, ragged and padded, in both formats, and the single-process oracle."""
    tok = Tokenizer(num_words=400)
    tok.fit_on_texts(TEXTS)
    texts = ["" if i % 50 == 7 else TEXTS[i] for i in range(TEXT_COUNT)]  # empty rows too
    rows = [(i, texts[i], i % 4, float(i) / 8) for i in range(TEXT_COUNT)]
    frame = session.createDataFrame(rows, ["key", "text", "label", "weight"]).repartition(3, "key")
    frame = frame.sortWithinPartitions("key")
    ordered = frame.collect()
    ids = tok.texts_to_sequences([row.text for row in ordered])
    assert sum(not row for row in ids) >= 5
    folder = tmp_path_factory.mktemp("shards")
    infos = {}
    for shape, maxlen in (("ragged", None), ("padded", MAXLEN)):
        encoded = kvec_spark.encode(frame, tok, maxlen=maxlen, padding="post", truncating="pre").cache()
        for format in ("tfrecord", "parquet"):
            infos[shape, format] = kvec_spark.write_shards(encoded, folder / f"{shape}-{format}", format=format)
        encoded.unpersist()
    labels = np.array([row.label for row in ordered])
    return {"infos": infos, "ids": ids, "labels": labels, "weights": [row.weight for row in ordered], "folder": folder}


def batch_lists(batches):
    """Every batch as plain lists, from TokenBatches' NumPy or a dataset's tensors."""
    listed = []
    for inputs, labels in batches:
        inputs = {name: np.asarray(array).tolist() for name, array in inputs.items()}
        listed.append((inputs, np.asarray(labels).tolist()))
    return listed


def test_the_shards_hold_every_row_in_order(written):
    for (shape, format), info in written["infos"].items():
        assert info.format == format
        assert sum(info.rows) == TEXT_COUNT and len(info.files) == 3
        assert info.files == tuple(f"part-0000{i}.{format}" for i in range(3))
        assert sorted(os.listdir(info.folder)) == sorted([*info.files, SHARDS_FILE])  # no temporary file left
        assert read_info(info.folder) == info
        assert info.padded == (shape == "padded")
        rows = read_shards(info.folder, ["label", "weight"])
        kept = written["ids"] if shape == "ragged" else [row[-MAXLEN:] for row in written["ids"]]
        values, row_lengths = rows_to_ragged(kept)
        assert rows.values.tolist() == values.tolist()
        assert rows.row_lengths.tolist() == row_lengths.tolist()
        assert rows.columns["label"].tolist() == written["labels"].tolist()
        assert rows.columns["label"].dtype == np.int64 and rows.columns["weight"].dtype == np.float32
        assert rows.columns["weight"].tolist() == pytest.approx(written["weights"])
        assert {c.name: (c.kind, c.is_list) for c in info.columns} == {
            "key": ("int", False),
            "label": ("int", False),
            "weight": ("float", False),
            "input_ids": ("int", True),
            **({"attention_mask": ("int", True)} if shape == "padded" else {}),
        }


@pytest.mark.parametrize("options", BATCHES)
def test_both_formats_and_both_readers_give_the_batches_of_token_batches(written, options):
    expected = batch_lists(TokenBatches(written["ids"], labels=written["labels"], **options))
    for format in ("tfrecord", "parquet"):
        folder = written["infos"]["ragged", format].folder
        assert batch_lists(batches_from_shards(folder, label="label", **options)) == expected
        assert batch_lists(dataset_from_shards(folder, label="label", **options)) == expected


def test_padded_shards_read_back_as_their_real_ids(written):
    kept = [row[-MAXLEN:] for row in written["ids"]]
    expected = batch_lists(TokenBatches(kept, labels=written["labels"], batch_size=16))
    for format in ("tfrecord", "parquet"):
        folder = written["infos"]["padded", format].folder
        assert batch_lists(batches_from_shards(folder, label="label", batch_size=16)) == expected
        assert batch_lists(dataset_from_shards(folder, label="label", batch_size=16)) == expected


def test_the_dataset_without_labels_and_shuffled(written):
    folder = written["infos"]["ragged", "tfrecord"].folder
    only_ids = list(dataset_from_shards(folder, batch_size=50, inputs="input_ids"))
    assert [batch.shape[0] for batch in only_ids] == [50] * 5 + [10]
    shuffled = dataset_from_shards(folder, label="key", batch_size=20, shuffle=True, seed=3)
    epochs = [[key for _, keys in shuffled for key in keys.numpy().tolist()] for _ in range(2)]
    assert sorted(epochs[0]) == sorted(epochs[1]) == list(range(TEXT_COUNT))  # every row once an epoch
    assert epochs[0] != epochs[1] != sorted(epochs[0])


def test_a_corrupt_tfrecord_shard_is_named(written, tmp_path):
    folder = shutil.copytree(written["infos"]["ragged", "tfrecord"].folder, tmp_path / "copy")
    shard = folder / "part-00001.tfrecord"
    shard.write_bytes(shard.read_bytes()[:-7])  # cut inside the last record
    with pytest.raises(FormatError, match="part-00001.tfrecord: not a readable TFRecord file of kvec shards"):
        read_shards(folder)


def test_writing_into_a_folder_that_holds_files(session, written, tmp_path):
    tok = Tokenizer()
    tok.fit_on_texts(TEXTS[:20])
    encoded = kvec_spark.encode(session.createDataFrame([(t,) for t in TEXTS[:20]], ["text"]), tok)
    target = tmp_path / "shards"
    kvec_spark.write_shards(encoded, target, format="parquet")
    with pytest.raises(FileExistsError, match="is not empty: pass overwrite=True"):
        kvec_spark.write_shards(encoded, target, format="parquet")
    info = kvec_spark.write_shards(encoded.repartition(2), target, format="parquet", overwrite=True)
    assert sorted(os.listdir(target)) == sorted([*info.files, SHARDS_FILE]) and sum(info.rows) == 20
    (target / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(FileExistsError, match=r"holds files kvec did not write \(\['notes.txt'\]\)"):
        kvec_spark.write_shards(encoded, target, format="parquet", overwrite=True)
    assert (target / "notes.txt").exists()
    with pytest.raises(ValueError, match="format must be one of"):
        kvec_spark.write_shards(encoded, tmp_path / "other", format="csv")
    texts = session.createDataFrame([("a",)], ["text"])
    with pytest.raises(ValueError, match="df needs an 'input_ids' column of int arrays"):
        kvec_spark.write_shards(texts, tmp_path / "other")
    mapped = encoded.selectExpr("input_ids", "map('a', 1) AS extra")
    with pytest.raises(TypeError, match="the column 'extra' holds map<string,int>; shards hold ints, floats"):
        kvec_spark.write_shards(mapped, tmp_path / "other")


# ---- folders that are not whole (no Spark needed) -----------------------------------------------


def parquet_folder(folder, rows=(2,)):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir()
    table = pa.table({"input_ids": pa.array([[1, 2], [3]], pa.list_(pa.int32())), "label": [0, 1]})
    pq.write_table(table, folder / "part-00000.parquet")
    column = (ShardColumn("input_ids", "int", True), ShardColumn("label", "int", False))
    write_info(ShardInfo(str(folder), "parquet", column, ("part-00000.parquet",), rows))
    return folder


def test_unfinished_or_corrupt_folders_raise_format_errors(tmp_path):
    folder = parquet_folder(tmp_path / "good")
    assert read_shards(folder).row_lengths.tolist() == [2, 1]
    with pytest.raises(FormatError, match="part-00000.parquet: holds 2 rows, kvec_shards.json says 5"):
        read_shards(parquet_folder(tmp_path / "miscounted", rows=(5,)))
    (folder / "part-00000.parquet").write_bytes(b"not parquet")
    with pytest.raises(FormatError, match="part-00000.parquet: not a readable Parquet file"):
        read_shards(folder)
    os.unlink(folder / "part-00000.parquet")
    with pytest.raises(FormatError, match="part-00000.parquet: missing: kvec_shards.json lists it"):
        read_shards(folder)
    with pytest.raises(FormatError, match="part-00000.parquet: missing"):
        dataset_from_shards(folder)
    metadata = folder / SHARDS_FILE
    document = json.loads(metadata.read_text(encoding="utf-8"))
    document["files"][0]["name"] = "../elsewhere.parquet"
    metadata.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(FormatError, match="kvec_shards.json: a file entry must name a parquet shard"):
        read_info(folder)
    metadata.write_text("{", encoding="utf-8")
    with pytest.raises(FormatError, match="kvec_shards.json: not valid JSON"):
        read_info(folder)
    os.unlink(metadata)
    with pytest.raises(FormatError, match="kvec_shards.json: missing: the folder was not written by"):
        batches_from_shards(folder)
    with pytest.raises(FileNotFoundError, match="no such shard folder"):
        read_info(tmp_path / "absent")


def test_reader_arguments_are_checked(tmp_path):
    folder = parquet_folder(tmp_path / "shards")
    with pytest.raises(ValueError, match=r"have no column 'topic': they have \['input_ids', 'label'\]"):
        batches_from_shards(folder, label="topic")
    with pytest.raises(ValueError, match=r"have no column 'topic'"):
        dataset_from_shards(folder, label="topic")
    with pytest.raises(ValueError, match="label: 'input_ids' is read as the rows' ids; name another column"):
        batches_from_shards(folder, label="input_ids")
    with pytest.raises(ValueError, match="batch_size must be a positive int, got 0"):
        dataset_from_shards(folder, batch_size=0)
    with pytest.raises(ValueError, match='inputs must be "dict" or "input_ids"'):
        dataset_from_shards(folder, inputs="ids")
