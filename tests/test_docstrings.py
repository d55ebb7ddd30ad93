"""Every example in kvec's docstrings runs and prints what it shows."""

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import kvec

MODULES = sorted(
    name for _, name, _ in pkgutil.walk_packages(kvec.__path__, prefix="kvec.") if not name.startswith("kvec._")
)


# Examples and modules that need an extra (pyproject.toml) run where its package is installed, and skip
# naming the extra elsewhere (make test-core): {doctest or module name: extra}, {extra: package}.
NEEDS_EXTRA = {
    "kvec.normalizers.OpenCC": "chinese",
    "kvec.data.count_matrix.count_matrix": "sparse",
    "kvec.text.Tokenizer.texts_to_matrix": "sparse",
    "kvec.spark": "spark",
}
EXTRA_PACKAGE = {"chinese": "opencc", "sparse": "scipy", "spark": "pyspark"}


def missing_extra(name):
    """The extra that ``name`` (a doctest or a module) needs and that is not installed, or None."""
    extra = NEEDS_EXTRA.get(name)
    if extra is None or importlib.util.find_spec(EXTRA_PACKAGE[extra]) is not None:
        return None
    return extra


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    if name.startswith("kvec.layers"):  # the Keras extra
        pytest.importorskip("keras", reason="kvec.layers needs the keras extra: pip install 'kvec[keras]'")
        pytest.importorskip("tensorflow", reason="kvec.layers needs the keras extra: pip install 'kvec[keras]'")
    extra = missing_extra(name)
    if extra is not None:
        pytest.skip(f"{name} needs the {extra} extra: pip install 'kvec[{extra}]'")
    runner = doctest.DocTestRunner()
    left_out = {}
    for test in doctest.DocTestFinder().find(importlib.import_module(name)):
        extra = missing_extra(test.name)
        if extra is None:
            runner.run(test)
        else:
            left_out[test.name] = extra
    assert runner.failures == 0
    if left_out:
        needs = ", ".join(
            f"{test} needs the {extra} extra: pip install 'kvec[{extra}]'" for test, extra in left_out.items()
        )
        pytest.skip(f"{name}: the examples that ran pass ({runner.tries}); {needs}")


def test_every_extra_named_here_is_declared():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 on
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    declared = pyproject["project"]["optional-dependencies"]
    for extra, package in EXTRA_PACKAGE.items():
        assert any(requirement.startswith(package) for requirement in declared[extra]), (extra, package)
    assert set(NEEDS_EXTRA.values()) <= set(EXTRA_PACKAGE)
