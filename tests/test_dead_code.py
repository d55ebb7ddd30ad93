"""No dead code in kvec/: vulture at 80% confidence reports nothing but the names of
tools/vulture_whitelist.py, each there with its reason."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_dead_code_scan_is_clean():
    pytest.importorskip("vulture")
    command = [sys.executable, "-m", "vulture", "kvec", "tools/vulture_whitelist.py", "--min-confidence", "80"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert (result.returncode, result.stdout) == (0, "")
