"""The examples for JAX and PyTorch without TensorFlow (grain, DataLoader workers, PyDataset with a
TextTask) run on their backend and learn: validation accuracy well above chance. They run in
``make test-backends``'s venv, which has no TensorFlow; the main suite runs the tf.data example."""

import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
ROOT = EXAMPLES.parent
RUNS = [("grain_jax", "jax", "grain"), ("torch_dataloader", "torch", "torch"), ("pydataset_task", "jax", "jax")]


@pytest.mark.parametrize("name,backend,needs", RUNS, ids=[r[0] for r in RUNS])
def test_the_backend_example_learns(name, backend, needs):
    pytest.importorskip("keras")
    if importlib.util.find_spec("tensorflow") is not None:
        pytest.skip("make test-backends runs the examples where they are meant to run: without TensorFlow")
    if importlib.util.find_spec(needs) is None:
        pytest.skip(f"{name} needs {needs}")
    env = {**os.environ, "KERAS_BACKEND": backend, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py")], capture_output=True, text=True, env=env, timeout=900
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert f"backend {backend}" in run.stdout
    accuracy, chance = map(float, re.search(r"validation accuracy: ([\d.]+) \(chance ([\d.]+)\)", run.stdout).groups())
    assert accuracy >= chance + 0.25, run.stdout
    if name == "pydataset_task":
        assert "reloaded task, predictions identical: True" in run.stdout
