"""The extensions' stubs (kvec/*.pyi) describe the built modules: every name, method and parameter they
declare exists at runtime with that shape (mypy's stubtest), so mypy checks kvec's calls against what
the C code really takes. tools/stubtest_allowlist.txt lists the known differences, each with its reason."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STUBBED = sorted(f"kvec.{path.stem}" for path in (ROOT / "kvec").glob("_*.pyi"))


def test_every_extension_has_a_stub():
    built = {path.name.split(".")[0] for path in (ROOT / "kvec").glob("_*.so")}
    assert {f"kvec.{name}" for name in built} <= set(STUBBED)


def test_the_stubs_match_the_built_extensions():
    pytest.importorskip("mypy.stubtest")
    command = [sys.executable, "-m", "mypy.stubtest", *STUBBED]
    command += ["--allowlist", str(ROOT / "tools" / "stubtest_allowlist.txt")]
    command += ["--mypy-config-file", str(ROOT / "pyproject.toml")]  # the project's mypy settings, as make typecheck
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
