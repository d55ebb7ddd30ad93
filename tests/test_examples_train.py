"""The Keras training examples run, learn (validation accuracy well above chance) and, for the saved
model, reload with the same predictions."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

pytest.importorskip("tensorflow")

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize("name", ["classify_with_tokenizer", "subword_layer_tf_data", "chinese_classifier"])
def test_the_example_learns(name):
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py")], capture_output=True, text=True, env=env, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    accuracy, chance = map(float, re.search(r"validation accuracy: ([\d.]+) \(chance ([\d.]+)\)", run.stdout).groups())
    assert accuracy >= chance + 0.25, run.stdout
    if name == "subword_layer_tf_data":
        assert "reloaded model, predictions identical: True" in run.stdout
