"""The Spark example (examples/spark_pipeline.py) learns: its main function, on a small embedded task
and the shared local[2] session, counts, trains a BPE, encodes into shards and trains a model whose
validation accuracy is well above chance."""

import importlib.util
import pathlib

import numpy as np
import pytest

from tests.spark_session import shared_session, skip_without_spark

skip_without_spark()
pytest.importorskip("tensorflow")


@pytest.fixture(scope="module")
def session():
    return shared_session()


EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "spark_pipeline.py"
TOPICS = {
    "kitchen": "bake boil butter flour oven pan recipe roast salt simmer soup spoon sugar whisk".split(),
    "space": "asteroid comet galaxy gravity launch lunar nebula orbit planet rocket satellite star telescope".split(),
    "sea": "anchor coral current dolphin harbor island reef sail sailor shore tide wave whale yacht".split(),
}
COMMON = "the a of and to in with on for is was this that".split()


def topic_texts(count, seed):
    """``count`` texts of 8 to 14 words, each mostly from one topic's words, and their topics."""
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for _ in range(count):
        label = int(rng.integers(len(TOPICS)))
        words = list(TOPICS.values())[label]
        picked = [rng.choice(words) if rng.random() < 0.6 else rng.choice(COMMON) for _ in range(rng.integers(8, 15))]
        texts.append(" ".join(picked))
        labels.append(label)
    return texts, np.array(labels)


def test_the_example_trains_from_shards_past_chance(session):
    spec = importlib.util.spec_from_file_location("spark_pipeline", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    train_texts, train_labels = topic_texts(240, seed=0)
    val_texts, val_labels = topic_texts(60, seed=1)
    data = (train_texts, train_labels, val_texts, val_labels)
    accuracy, chance = example.main(data, spark=session, vocab_size=150, epochs=8)
    assert chance < 0.5
    assert accuracy >= chance + 0.3
