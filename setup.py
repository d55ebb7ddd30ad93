"""Build script for kvec's C extensions; all metadata lives in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "kvec._native",
            sources=["kvec/_native.c"],
            depends=["kvec/_texts.h", "kvec/_words.h"],
            extra_compile_args=["-O3"],
        ),
        Extension("kvec._encoder", sources=["kvec/_encoder.c"], depends=["kvec/_words.h"], extra_compile_args=["-O3"]),
        Extension("kvec._unigram", sources=["kvec/_unigram.c"], depends=["kvec/_texts.h"], extra_compile_args=["-O3"]),
    ]
)
