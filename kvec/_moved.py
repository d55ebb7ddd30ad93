"""The import paths of modules that moved into folders keep working: ``import kvec.batching`` gives
:mod:`kvec.data.batching` itself (the same module object, so pickles, ``isinstance`` checks and
``from kvec.batching import TokenBatches`` agree). One entry a moved module."""

import importlib
import importlib.abc
import importlib.util
import sys

MOVED = {
    "kvec.atomic": "kvec.files.atomic",
    "kvec.batching": "kvec.data.batching",
    "kvec.char_classes": "kvec.unicode.char_classes",
    "kvec.charsmap": "kvec.unicode.charsmap",
    "kvec.count_matrix": "kvec.data.count_matrix",
    "kvec.hf_unicode": "kvec.unicode.hf_unicode",
    "kvec.hf_unicode_data": "kvec.unicode.hf_unicode_data",
    "kvec.shards": "kvec.data.shards",
    "kvec.spark_counting": "kvec.spark.counting",
    "kvec.spark_encoding": "kvec.spark.encoding",
    "kvec.spark_inputs": "kvec.spark.inputs",
    "kvec.spark_shards": "kvec.spark.shards",
    "kvec.spark_tokenizers": "kvec.spark.tokenizers",
    "kvec.spec_bytes": "kvec.models.spec_bytes",
    "kvec.token_ids": "kvec.data.token_ids",
    "kvec.unicode_scripts": "kvec.unicode.scripts",
    "kvec.user_cache": "kvec.files.user_cache",
    "kvec.vocab_reading": "kvec.files.vocab_reading",
}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path of :data:`MOVED` and loads it as the module at the new one."""

    def find_spec(self, name, path=None, target=None):
        return importlib.util.spec_from_loader(name, self) if name in MOVED else None

    def create_module(self, spec):
        module = importlib.import_module(MOVED[spec.name])
        spec.loader_state = module.__spec__  # the import system sets this spec on the module: restored below
        return module

    def exec_module(self, module):  # the module at the new path has run already
        module.__spec__ = module.__spec__.loader_state


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.insert(0, _MovedModules())  # before any finder that could find a stale copy
