"""Every example in kvec's docstrings runs and prints what it shows."""

import doctest
import importlib
import importlib.util
import pkgutil

import pytest

import kvec

MODULES = sorted(
    name for _, name, _ in pkgutil.walk_packages(kvec.__path__, prefix="kvec.") if not name.startswith("kvec._")
)


# examples that need an optional dependency run where it is installed
OPTIONAL = {"kvec.normalizers.OpenCC": "opencc"}


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    if name.startswith("kvec.layers"):  # the Keras extra
        pytest.importorskip("keras")
        pytest.importorskip("tensorflow")
    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(importlib.import_module(name)):
        needs = OPTIONAL.get(test.name)
        if needs is None or importlib.util.find_spec(needs) is not None:
            runner.run(test)
    assert runner.failures == 0
