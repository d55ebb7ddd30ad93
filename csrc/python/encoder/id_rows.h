/* csrc/python/encoder/id_rows.h: id_rows() and encodings() of kvec._encoder (csrc/python/encoder/id_rows.c). */
#ifndef KVEC_ID_ROWS_H
#define KVEC_ID_ROWS_H

#include <Python.h>

PyObject *id_rows(PyObject *module, PyObject *args);
PyObject *encodings(PyObject *module, PyObject *args);

#endif
