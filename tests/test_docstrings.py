"""Every example in kvec's docstrings runs and prints what it shows."""

import doctest
import importlib
import pkgutil

import pytest

import kvec

MODULES = sorted(
    name for _, name, _ in pkgutil.walk_packages(kvec.__path__, prefix="kvec.") if not name.startswith("kvec._")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
