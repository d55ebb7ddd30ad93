"""``kvec.layers.TextVectorization``: Keras' text vectorization layer with any kvec tokenizer inside, on
the backend Keras runs.

On the TensorFlow backend it is :class:`kvec.layers.tf_vectorization.TextVectorization`, a subclass of
``keras.layers.TextVectorization`` that runs in TensorFlow's graph (``tf.data``, ``tf.function``,
``model.export``). On JAX, PyTorch and NumPy it is :class:`kvec.layers.portable.TextVectorization`,
which needs no TensorFlow and returns the backend's arrays. Both save the same configuration and
assets under one registered name, ``kvec>TextVectorization``, so a ``.keras`` file made on one backend
loads on the others.
"""

import keras

if keras.backend.backend() == "tensorflow":
    from kvec.layers.tf_vectorization import TextVectorization
else:
    from kvec.layers.portable import TextVectorization

__all__ = ["TextVectorization"]
