/* csrc/python/keras/keras_module.c: the kvec._keras extension: the hot loops behind kvec's Keras API, the Keras word
 * rule and its counts (keras_words.c) and padding (padding.c); this file registers their types and
 * functions (keras.h). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "keras.h"
#include "module.h"

static PyMethodDef module_methods[] = {
    {"fill_padded", fill_padded, METH_VARARGS,
     "fill_padded(out, sequences, pre_padding, pre_truncating) -> bool: copy int/float lists into a "
     "padded 2-D buffer; False when an element needs NumPy's conversion rules"},
    {"fill_rows", fill_rows, METH_VARARGS,
     "fill_rows(out, values, row_lengths, zeroed=False) -> None: ragged int64 ids into a 2-D int32/int64 "
     "buffer, each row cut at its width and padded with zeros (left as they are when zeroed)"},
    {"clear_rows", clear_rows, METH_VARARGS,
     "clear_rows(region, row_bytes, written) -> None: zero the first written[r] bytes of each row of "
     "row_bytes bytes of a writable buffer"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "kvec._keras", "The Keras word rule, its counts and padding, in C.", -1, module_methods,
    NULL, NULL, NULL, NULL};

static const ModuleType types[] = {
    {"WordSplitter", &WordSplitterType},
    {"WordCounter", &WordCounterType},
};

PyMODINIT_FUNC
PyInit__keras(void)
{
    if (keras_words_init() < 0) return NULL;
    return create_module(&module_def, types, sizeof(types) / sizeof(types[0]));
}
