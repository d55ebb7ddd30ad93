"""Keras 3 layers and training data (:class:`TextBatches`, :func:`dataset_from_shards`) backed by kvec
(needs ``pip install 'kvec[keras]'``).

``import kvec.layers`` registers the layers with Keras, so ``keras.models.load_model`` reads models
that hold them without ``custom_objects``, and registers kvec's TensorFlow ops (built on the first
import, see :mod:`kvec.layers.op_library`), so ``tf.saved_model.load`` serves models exported with
them. The rest of kvec never imports TensorFlow.
"""

try:  # the optional dependencies, named before anything else needs them
    import keras  # noqa: F401
    import tensorflow  # noqa: F401
except ModuleNotFoundError as error:
    raise ModuleNotFoundError(
        f"kvec.layers needs Keras 3 and TensorFlow, and {error.name} is not installed: pip install 'kvec[keras]'",
        name=error.name,
    ) from error

from kvec.layers import op_library  # noqa: E402
from kvec.layers.batches import TextBatches  # noqa: E402
from kvec.layers.shards import dataset_from_shards  # noqa: E402
from kvec.layers.text_vectorization import TextVectorization  # noqa: E402

op_library.load()  # registers the ops with TensorFlow (one warning where they cannot be built)

__all__ = ["TextBatches", "TextVectorization", "dataset_from_shards"]
