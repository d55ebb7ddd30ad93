/* csrc/python/subword/charsmap.c: CharsMapTable(units, replacements), sentencepiece's normalizer
 * (csrc/core/precompiled_charsmap.h) for kvec/unicode/charsmap.py: units, the trie's little-endian
 * uint32 bytes; replacements, the NUL-terminated strings its values point into. `symbols` are the
 * user-defined symbols (longest first). With `spans`, normalize gives starts and ends (int64 bytes): for
 * each output character the input characters [start, end) it stands for; else None. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "precompiled_charsmap.h"
#include "subword.h"

typedef struct {
    PyObject_HEAD
    CharsMap map;
} CharsMapTable;

static int
CharsMapTable_init(CharsMapTable *self, PyObject *args, PyObject *Py_UNUSED(kwds))
{
    const char *units, *replacements;
    Py_ssize_t n_units, n_replacements;
    if (!PyArg_ParseTuple(args, "y#y#", &units, &n_units, &replacements, &n_replacements)) return -1;
    charsmap_free(&self->map);
    int status = charsmap_init(&self->map, (const unsigned char *)units, (size_t)n_units,
                               (const unsigned char *)replacements, (size_t)n_replacements);
    if (status == -2) PyErr_SetString(PyExc_ValueError, "units must be whole uint32 values");
    else if (status < 0) PyErr_NoMemory();
    return status < 0 ? -1 : 0;
}

static void
CharsMapTable_dealloc(CharsMapTable *self)
{
    charsmap_free(&self->map);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static CodePoints
view(PyObject *text)
{
    return (CodePoints){PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
}

/* The rules of a call, its symbols (each a str, checked) viewed in an array the caller frees. */
static int
read_rules(CharsMapRules *rules, PyObject *symbols, int dummy_prefix, int remove_extra, int escape)
{
    Py_ssize_t n = PyTuple_GET_SIZE(symbols);
    CodePoints *views = PyMem_Malloc(sizeof(CodePoints) * (size_t)(n ? n : 1));
    *rules = (CharsMapRules){views, n, dummy_prefix, remove_extra, escape};
    if (!views) return PyErr_NoMemory(), -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *symbol = PyTuple_GET_ITEM(symbols, k);
        if (!PyUnicode_Check(symbol)) return PyErr_Format(PyExc_TypeError, "symbols[%zd] must be a str", k), -1;
        views[k] = view(symbol);
    }
    return 0;
}

/* (normalized, starts, ends) of one text. */
static PyObject *
normalize_text(const CharsMap *map, const CharsMapRules *rules, CharsMapScratch *scratch, PyObject *text, int spans)
{
    CodePoints in = view(text);
    ptrdiff_t used = charsmap_normalize(map, rules, &in, PTRDIFF_MAX, spans, scratch);
    PyObject *normalized =
        used < 0 ? PyErr_NoMemory() : PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, scratch->out, used);
    if (!normalized || !spans) return normalized ? Py_BuildValue("(NOO)", normalized, Py_None, Py_None) : NULL;
    Py_ssize_t bytes = (Py_ssize_t)(used * (ptrdiff_t)sizeof(int64_t)); /* (none written: no buffers, "" then) */
    const char *starts = used ? (const char *)scratch->starts : "", *ends = used ? (const char *)scratch->ends : "";
    return Py_BuildValue("(Ny#y#)", normalized, starts, bytes, ends, bytes);
}

/* normalize(text, symbols, add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces, spans) */
static PyObject *
CharsMapTable_normalize(CharsMapTable *self, PyObject *args)
{
    PyObject *text, *symbols, *result = NULL;
    int dummy_prefix, remove_extra, escape, spans;
    CharsMapRules rules = {0};
    CharsMapScratch scratch = {0};
    if (PyArg_ParseTuple(args, "UO!pppp", &text, &PyTuple_Type, &symbols, &dummy_prefix, &remove_extra, &escape,
                         &spans) &&
        read_rules(&rules, symbols, dummy_prefix, remove_extra, escape) == 0)
        result = normalize_text(&self->map, &rules, &scratch, text, spans);
    charsmap_scratch_free(&scratch);
    PyMem_Free((void *)rules.symbols);
    return result;
}

static PyMethodDef CharsMapTable_methods[] = {
    {"normalize", (PyCFunction)CharsMapTable_normalize, METH_VARARGS,
     "normalize(text, symbols, add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces, spans) -> "
     "(normalized, starts, ends): sentencepiece's normalization of text"},
    {NULL, NULL, 0, NULL}};

PyTypeObject CharsMapTableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._subword.CharsMapTable",
    .tp_basicsize = sizeof(CharsMapTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "CharsMapTable(units, replacements): sentencepiece's precompiled character map and its "
              "normalization.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)CharsMapTable_init,
    .tp_dealloc = (destructor)CharsMapTable_dealloc,
    .tp_methods = CharsMapTable_methods,
};
