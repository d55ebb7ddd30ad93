"""The op library's first build says, in one line and before it starts, what it builds and how long."""

import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
tf = pytest.importorskip("tensorflow")
pytest.importorskip("keras")

from kvec.layers import op_library  # noqa: E402


def test_a_build_is_announced_in_one_line_before_it_starts(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("KVEC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(op_library, "_library", None)
    monkeypatch.setattr(op_library, "_failure", None)
    printed_before_build = []

    def no_compiler(sources, toolchain, folder):
        printed_before_build.append(capsys.readouterr().err)
        raise OSError("no compiler in this test")

    monkeypatch.setattr(op_library, "_build", no_compiler)
    with pytest.warns(op_library.OpLibraryWarning, match="no compiler in this test"):
        assert op_library.load() is None
    [notice] = printed_before_build
    assert notice.count("\n") == 1
    assert notice.startswith(
        f"kvec: compiling its TensorFlow ops for TensorFlow {tf.__version__} (once; about half a minute) into "
    )
    assert str(tmp_path / "cache") in notice
    assert op_library.load() is None  # the failure is known: no second notice, no second try
    assert capsys.readouterr().err == ""


def test_a_cached_library_loads_without_a_notice(capsys):
    if op_library.load() is None:
        pytest.skip(f"no op library here: {op_library.failure()}")
    capsys.readouterr()
    assert op_library._build_and_load() is not None
    assert capsys.readouterr().err == ""
