"""Keras 3 layers and training data (:class:`TextBatches`, :func:`dataset_from_shards`) backed by kvec.

``kvec.layers.TextVectorization`` runs on every Keras backend: ``pip install 'kvec[jax]'`` or
``'kvec[torch]'`` (Keras and the backend, no TensorFlow), or ``'kvec[keras]'`` (Keras and TensorFlow).

``import kvec.layers`` registers the layers with Keras, so ``keras.models.load_model`` reads models
that hold them without ``custom_objects``. On the TensorFlow backend it also registers kvec's
TensorFlow ops (built on the first import, see :mod:`kvec.layers.op_library`), so
``tf.saved_model.load`` serves models exported with them, and :func:`dataset_from_shards` (a
``tf.data.Dataset``) is here. On other backends TensorFlow is not imported (``kvec.layers.shards``
has ``dataset_from_shards`` where TensorFlow is installed). The rest of kvec never imports Keras or
TensorFlow.
"""

import os

try:  # the optional dependencies, named before anything else needs them
    import keras
except ModuleNotFoundError as error:
    raise ModuleNotFoundError(
        f"kvec.layers needs Keras 3, and {error.name} is not installed: pip install 'kvec[keras]' (Keras and "
        "TensorFlow), or 'kvec[jax]' or 'kvec[torch]' (Keras on JAX or PyTorch, without TensorFlow)",
        name=error.name,
    ) from error


def _backend() -> str:
    """Keras' backend (``KERAS_BACKEND``, TensorFlow by default)."""
    backend = getattr(keras, "backend", None)
    if backend is not None and hasattr(backend, "backend"):
        return str(backend.backend())
    return os.environ.get("KERAS_BACKEND", "tensorflow")


if _backend() == "tensorflow":
    try:
        import tensorflow  # noqa: F401 (the backend's own module, named here if it is missing)
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(
            f"kvec.layers on Keras' TensorFlow backend needs TensorFlow, and {error.name} is not installed: "
            "pip install 'kvec[keras]' (or KERAS_BACKEND=jax or torch, with 'kvec[jax]' or 'kvec[torch]')",
            name=error.name,
        ) from error

from kvec.layers.batches import TextBatches  # noqa: E402
from kvec.layers.tasks import TextTask  # noqa: E402
from kvec.layers.text_vectorization import TextVectorization  # noqa: E402

__all__ = ["TextBatches", "TextTask", "TextVectorization"]

if _backend() == "tensorflow":
    from kvec.layers import op_library
    from kvec.layers.shards import dataset_from_shards

    op_library.load()  # registers the ops with TensorFlow (one warning where they cannot be built)
    __all__ += ["dataset_from_shards"]
