/* csrc/python/keras/keras.h: what the files of the kvec._keras extension share: their Python types and module
 * functions, registered by keras_module.c. */
#ifndef KVEC_KERAS_H
#define KVEC_KERAS_H

#include <Python.h>

/* keras_words.c (kvec/text.py) */
extern PyTypeObject WordSplitterType, WordCounterType;
int keras_words_init(void);

/* padding.c (kvec/sequence.py) */
PyObject *fill_padded(PyObject *module, PyObject *args);
PyObject *fill_rows(PyObject *module, PyObject *args);
PyObject *clear_rows(PyObject *module, PyObject *args);

#endif
