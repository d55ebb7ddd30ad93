"""Imports examples/demo.py as a module for the tests."""

import importlib.util
import pathlib


def load_demo():
    path = pathlib.Path(__file__).resolve().parents[1] / "examples" / "demo.py"
    spec = importlib.util.spec_from_file_location("kvec_demo", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
