/* csrc/python/encoder/encoder_module.c: the kvec._encoder extension, what kvec/pipeline.py makes of ids in C:
 *
 *   id_rows(values, row_lengths)   the rows of int64 buffers as lists of int (id_rows.c)
 *   encodings(cls, values, row_lengths, tokenizer, texts)   one Encoding per row (id_rows.c)
 *   PieceTable   ids back to text through the bytes of each piece (piece_table.c)
 *
 * The ids themselves come from kvec's one native encoder, kvec._spec (csrc/python/spec/spec_module.c). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "encoder.h"
#include "module.h"

static PyMethodDef module_functions[] = {
    {"id_rows", id_rows, METH_VARARGS,
     "id_rows(values, row_lengths) -> one list of int per row, from int64 buffers (ids >= 0)"},
    {"encodings", encodings, METH_VARARGS,
     "encodings(cls, values, row_lengths, tokenizer, texts) -> one Encoding per row (see csrc/python/encoder/id_rows.c)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "kvec._encoder", NULL, -1, module_functions, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC
PyInit__encoder(void)
{
    static const ModuleType types[] = {{"PieceTable", &PieceTableType}};
    return create_module(&module, types, sizeof(types) / sizeof(types[0]));
}
