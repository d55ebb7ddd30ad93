"""Every trainer saves a byte-identical model across PYTHONHASHSEED values and n_jobs; the bottom-up
learner, whose algorithm does not depend on the order of the texts, also across text orders."""

import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

TRAIN_ALL = """
import hashlib, json, random, sys
from tests.support import TEXTS
from kvec import Tokenizer
from kvec.pipeline import Pipeline
from kvec.pretokenizers import ByteLevel, Whitespace
from kvec.presets import sentencepiece_style
from kvec.trainers import BpeTrainer, UnigramTrainer, WordPieceTrainer
from kvec.trainers.bottom_up import BottomUpWordPieceTrainer

n_jobs, shuffled = int(sys.argv[1]), sys.argv[2] == "shuffled"
texts = TEXTS[:800]
if shuffled:
    random.Random(5).shuffle(texts)
digests = {}

def record(name, text):
    digests[name] = hashlib.sha256(text.encode()).hexdigest()

def pipeline(pre_tokenizer, trainer):
    tok = Pipeline(None, pre_tokenizer=pre_tokenizer)
    tok.train_from_iterator(texts, trainer, n_jobs=n_jobs)
    return tok.to_str()

record("bottom_up", pipeline(Whitespace(), BottomUpWordPieceTrainer(400, reserved_tokens=["[PAD]", "[UNK]"])))
if not shuffled:
    record("bpe", pipeline(Whitespace(), BpeTrainer(vocab_size=400, special_tokens=["[UNK]"])))
    record("bytelevel_bpe", pipeline(ByteLevel(), BpeTrainer(vocab_size=400, initial_alphabet=ByteLevel.alphabet())))
    record("wordpiece", pipeline(Whitespace(), WordPieceTrainer(vocab_size=400, special_tokens=["[UNK]"])))
    likelihood = WordPieceTrainer(vocab_size=400, scoring="likelihood", special_tokens=["[UNK]"])
    record("wordpiece_likelihood", pipeline(Whitespace(), likelihood))
    unigram = sentencepiece_style()
    unigram.train_from_iterator(texts, UnigramTrainer(vocab_size=400, byte_fallback=True), n_jobs=n_jobs)
    record("unigram", unigram.to_str())
    keras = Tokenizer(subword="wordpiece", vocab_size=300)
    keras.fit_on_texts(texts)
    record("keras_subword", keras.to_json())
print(json.dumps(digests, sort_keys=True))
"""


def run(n_jobs, order, seed):
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    out = subprocess.run(
        [sys.executable, "-c", TRAIN_ALL, str(n_jobs), order],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_every_trainer_is_identical_across_hash_seeds_and_n_jobs():
    runs = [run(1, "original", seed) for seed in (0, 1, 7, 4242, 99991)] + [run(2, "original", 3)]
    assert len(runs[0]) == 7
    for other in runs[1:]:
        assert other == runs[0]


def test_the_bottom_up_learner_does_not_depend_on_text_order():
    assert run(1, "shuffled", 11)["bottom_up"] == run(2, "original", 12)["bottom_up"]
