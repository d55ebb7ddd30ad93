"""Keras 3 layers and training data backed by kvec (needs ``pip install kvec[keras]``).

``import kvec.layers`` registers the layers with Keras, so ``keras.models.load_model`` reads models
that hold them without ``custom_objects``. The rest of kvec never imports TensorFlow.
"""

from kvec.layers.batches import TextBatches
from kvec.layers.text_vectorization import TextVectorization

__all__ = ["TextBatches", "TextVectorization"]
