"""Keras 3 layers and training data backed by kvec (needs ``pip install kvec[keras]``).

``import kvec.layers`` registers the layers with Keras, so ``keras.models.load_model`` reads models
that hold them without ``custom_objects``, and registers kvec's TensorFlow ops (built on the first
import, see :mod:`kvec.layers.op_library`), so ``tf.saved_model.load`` serves models exported with
them. The rest of kvec never imports TensorFlow.
"""

from kvec.layers import op_library
from kvec.layers.batches import TextBatches
from kvec.layers.text_vectorization import TextVectorization

op_library.load()  # registers the ops with TensorFlow (one warning where they cannot be built)

__all__ = ["TextBatches", "TextVectorization"]
