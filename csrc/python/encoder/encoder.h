/* csrc/python/encoder/encoder.h: what the files of the kvec._encoder extension share: their Python types and
 * module functions, registered by encoder_module.c. */
#ifndef KVEC_ENCODER_H
#define KVEC_ENCODER_H

#include <Python.h>

/* id_rows.c (kvec/pipeline.py, kvec/text.py): ids to lists and Encodings */
PyObject *id_rows(PyObject *module, PyObject *args);
PyObject *encodings(PyObject *module, PyObject *args);

/* piece_table.c (kvec/pipeline.py): token ids back to text */
extern PyTypeObject PieceTableType;

#endif
