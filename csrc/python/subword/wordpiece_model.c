/* csrc/python/subword/wordpiece_model.c: the Python binding of WordPiece (csrc/core/wordpiece.c), for
 * kvec/models/wordpiece.py.
 *
 *   WordPieceTable(vocab, prefix, unk_token, max_chars)
 *       .spans(word) -> [(id, start, end)], .ids(word) -> [id]
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "subword.h"
#include "wordpiece.h"

/* ------------------------------------------------------------------------------------------------ */
/* WordPieceTable: the core's segmentation (csrc/core/wordpiece.c) over the vocabulary's pieces, each  */
/* known by its slot: its position in `ids`, the list of the vocabulary's id objects.                 */

typedef struct {
    PyObject_HEAD
    WordPiece core;
    int ready;
    PyObject *ids;       /* list: slot -> the piece's id */
    PyObject *unk_id;    /* None: the vocabulary has no unknown token */
    PyObject *unk_token;
} WordPieceTable;

/* Each token of the vocab (str to int id) into the table, and its id into the id lists. */
static int
add_tokens(WordPieceTable *self, PyObject *vocab, PyObject *prefix)
{
    CodePoints affix = {PyUnicode_KIND(prefix), PyUnicode_DATA(prefix), PyUnicode_GET_LENGTH(prefix)};
    Py_ssize_t pos = 0, slot = 0;
    PyObject *key, *id;
    while (PyDict_Next(vocab, &pos, &key, &id)) {
        if (!PyUnicode_Check(key) || !PyLong_Check(id)) {
            PyErr_SetString(PyExc_TypeError, "vocab must map str tokens to int ids");
            return -1;
        }
        PyList_SET_ITEM(self->ids, slot, Py_NewRef(id));
        CodePoints token = {PyUnicode_KIND(key), PyUnicode_DATA(key), PyUnicode_GET_LENGTH(key)};
        if (wordpiece_add(&self->core, &token, &affix, slot) < 0) {
            PyErr_NoMemory();
            return -1;
        }
        slot++;
    }
    return 0;
}

static int
WordPieceTable_init(WordPieceTable *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"vocab", "prefix", "unk_token", "max_chars", NULL};
    PyObject *vocab, *prefix, *unk_token;
    Py_ssize_t max_chars;
    if (self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "a WordPieceTable is initialized once");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!UOn", kwlist, &PyDict_Type, &vocab, &prefix, &unk_token, &max_chars))
        return -1;
    PyObject *unk_id = PyDict_GetItemWithError(vocab, unk_token);
    if (!unk_id && PyErr_Occurred()) return -1;
    Py_XSETREF(self->unk_id, Py_NewRef(unk_id ? unk_id : Py_None));
    Py_XSETREF(self->unk_token, Py_NewRef(unk_token));
    Py_ssize_t n = PyDict_GET_SIZE(vocab);
    self->ids = PyList_New(n);
    if (!self->ids) return -1;
    if (wordpiece_init(&self->core, (size_t)n, max_chars) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    self->ready = 1;
    return add_tokens(self, vocab, prefix);
}

static void
WordPieceTable_dealloc(WordPieceTable *self)
{
    if (self->ready) wordpiece_free(&self->core);
    Py_XDECREF(self->ids);
    Py_XDECREF(self->unk_id);
    Py_XDECREF(self->unk_token);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* [(id, start, end), ...] of the word's pieces (or only their ids); the unknown token for the whole
 * word when it is too long or some part matches no piece (ValueError when the vocabulary has none). */
static PyObject *
wordpiece_match(WordPieceTable *self, PyObject *word, int with_spans)
{
    if (!PyUnicode_Check(word)) {
        PyErr_Format(PyExc_TypeError, "word must be a str, got %.100s", Py_TYPE(word)->tp_name);
        return NULL;
    }
    if (!self->ready) {
        PyErr_SetString(PyExc_ValueError, "the WordPieceTable was not initialized");
        return NULL;
    }
    CodePoints w = {PyUnicode_KIND(word), PyUnicode_DATA(word), PyUnicode_GET_LENGTH(word)};
    Int64s slots = {0}, ends = {0};
    int unknown = wordpiece_segment(&self->core, &w, &slots, with_spans ? &ends : NULL);
    PyObject *out = NULL;
    if (unknown < 0) {
        PyErr_NoMemory();
    } else if (unknown) {
        if (self->unk_id == Py_None)
            PyErr_Format(PyExc_ValueError, "unk_token %R is not in the vocabulary", self->unk_token);
        else if (with_spans)
            out = Py_BuildValue("[(Onn)]", self->unk_id, (Py_ssize_t)0, (Py_ssize_t)w.length);
        else
            out = Py_BuildValue("[O]", self->unk_id);
    } else if ((out = PyList_New(slots.length))) {
        Py_ssize_t start = 0;
        for (Py_ssize_t k = 0; k < slots.length; k++) {
            PyObject *id = PyList_GET_ITEM(self->ids, slots.data[k]);
            PyObject *piece = with_spans ? Py_BuildValue("(Onn)", id, start, (Py_ssize_t)ends.data[k]) : Py_NewRef(id);
            if (!piece) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(out, k, piece);
            if (with_spans) start = ends.data[k];
        }
    }
    int64s_free(&slots);
    int64s_free(&ends);
    return out;
}

static PyObject *
WordPieceTable_spans(WordPieceTable *self, PyObject *word)
{
    return wordpiece_match(self, word, 1);
}

static PyObject *
WordPieceTable_ids(WordPieceTable *self, PyObject *word)
{
    return wordpiece_match(self, word, 0);
}

static PyMethodDef WordPieceTable_methods[] = {
    {"spans", (PyCFunction)WordPieceTable_spans, METH_O,
     "spans(word) -> [(id, start, end), ...] by greedy longest match; the unknown token for the whole "
     "word when it is too long or a part matches nothing"},
    {"ids", (PyCFunction)WordPieceTable_ids, METH_O, "ids(word) -> the ids of spans(word)"},
    {NULL}};

PyTypeObject WordPieceTableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._subword.WordPieceTable",
    .tp_basicsize = sizeof(WordPieceTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "WordPieceTable(vocab, prefix, unk_token, max_chars): WordPiece's greedy longest-match-first "
              "segmentation.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)WordPieceTable_init,
    .tp_dealloc = (destructor)WordPieceTable_dealloc,
    .tp_methods = WordPieceTable_methods,
};
