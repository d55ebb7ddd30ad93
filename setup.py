"""Build script for kvec's C extension; all metadata lives in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("kvec._native", sources=["kvec/_native.c"], extra_compile_args=["-O3"])])
