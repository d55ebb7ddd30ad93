"""A pytest plugin for tools/sanitize.sh: the run stops unless every kvec module it imported, and each C
extension, comes from the sanitized copy of the package named by KVEC_SANITIZED_PACKAGE, and unless the
AddressSanitizer runtime is loaded in this process.

Property tests run fewer examples here (KVEC_SANITIZE_EXAMPLES, 50 unless set) than in make test, where
they run in full: under ASan each costs several times as much. The fuzz targets keep their own budgets.
"""

import ctypes
import importlib
import os
import sys

import pytest
from hypothesis import settings

EXTENSIONS = ("kvec._keras", "kvec._subword", "kvec._unigram", "kvec._jieba", "kvec._encoder")


def outside_the_sanitized_package(package: str) -> list[str]:
    """The kvec modules loaded from anywhere but `package`, as 'name: file'."""
    for name in EXTENSIONS:
        importlib.import_module(name)
    found = []
    for name, module in sorted(sys.modules.items()):
        if name != "kvec" and not name.startswith("kvec."):
            continue
        path = getattr(module, "__file__", None)
        if path is not None and not os.path.realpath(path).startswith(package + os.sep):
            found.append(f"{name}: {path}")
    return found


def check() -> None:
    package = os.environ.get("KVEC_SANITIZED_PACKAGE")
    if not package:
        raise pytest.UsageError("KVEC_SANITIZED_PACKAGE is not set: run this through tools/sanitize.sh")
    package = os.path.realpath(package)
    strays = outside_the_sanitized_package(package)
    if strays:
        raise pytest.UsageError("kvec modules imported from outside the sanitized build:\n  " + "\n  ".join(strays))
    if not hasattr(ctypes.CDLL(None), "__asan_init"):
        raise pytest.UsageError("the AddressSanitizer runtime is not loaded (LD_PRELOAD)")


def pytest_configure(config: pytest.Config) -> None:
    # after tests/conftest.py loaded its profile, which this one inherits
    settings.register_profile("sanitize", max_examples=int(os.environ.get("KVEC_SANITIZE_EXAMPLES", "50")))
    settings.load_profile("sanitize")


def pytest_sessionstart(session: pytest.Session) -> None:
    check()


def pytest_collection_finish(session: pytest.Session) -> None:
    check()  # again, after the test modules imported theirs
