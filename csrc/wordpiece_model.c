/* csrc/wordpiece_model.c: WordPiece's greedy longest-match-first, for kvec/models/wordpiece.py.
 *
 *   WordPieceTable(vocab, prefix, unk_token, max_chars)
 *       .spans(word) -> [(id, start, end)], .ids(word) -> [id]
 *       .word_model() -> a capsule of the same segmentation for the word encoder, run without the GIL
 *                        (csrc/word_model.h); None where an id does not fit an int64
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "native.h"
#include "word_model.h"
#include "words.h"

/* ------------------------------------------------------------------------------------------------ */
/* WordPieceTable: greedy longest-match-first WordPiece over a vocabulary keyed by code points       */

typedef struct {
    PyObject_HEAD
    WordTable starts, continuations; /* pieces at a word's start; pieces after it, prefix removed */
    Py_ssize_t longest_start, longest_continuation;
    Py_ssize_t max_chars; /* longer words are unknown */
    PyObject *unk_id;     /* None: the vocabulary has no unknown token */
    PyObject *unk_token;
    int64_t unk;         /* unk_id as a number; -1: none */
    int ids_fit;         /* every id is an int64 >= 0, kept in its entry's slot for word_model() */
} WordPieceTable;

static int
wordpiece_add(WordPieceTable *self, WordTable *table, PyObject *key, Py_ssize_t skip, PyObject *id,
              Py_ssize_t *longest)
{
    Span w = {PyUnicode_KIND(key), PyUnicode_DATA(key), skip, PyUnicode_GET_LENGTH(key) - skip, key};
    if (w.length <= 0) return 0;
    uint64_t h = hash_code_points(w.kind, w.data, w.start, w.length);
    Entry *e = table_probe(table, &w, h);
    if (e->word) return 0;
    long long number = PyLong_AsLongLong(id);
    if (number == -1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        PyErr_Clear();
    }
    if (number < 0 || (unsigned long long)number > (unsigned long long)PY_SSIZE_T_MAX) self->ids_fit = 0;
    PyObject *piece = span_str(&w);
    if (!piece) return -1;
    Py_INCREF(id);
    if (w.length > *longest) *longest = w.length;
    return table_fill(table, e, h, piece, id, (Py_ssize_t)number);
}

static int
WordPieceTable_init(WordPieceTable *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"vocab", "prefix", "unk_token", "max_chars", NULL};
    PyObject *vocab, *prefix, *unk_token;
    Py_ssize_t max_chars;
    if (self->starts.entries) { /* word_model() capsules read the tables without the GIL */
        PyErr_SetString(PyExc_RuntimeError, "a WordPieceTable is initialized once");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!UOn", kwlist, &PyDict_Type, &vocab, &prefix, &unk_token, &max_chars))
        return -1;
    PyObject *unk_id = PyDict_GetItemWithError(vocab, unk_token);
    if (!unk_id && PyErr_Occurred()) return -1;
    Py_XSETREF(self->unk_id, Py_NewRef(unk_id ? unk_id : Py_None));
    Py_XSETREF(self->unk_token, Py_NewRef(unk_token));
    self->max_chars = max_chars;
    self->ids_fit = 1;
    self->unk = -1;
    if (unk_id) {
        long long number = PyLong_Check(unk_id) ? PyLong_AsLongLong(unk_id) : -1;
        if (number == -1 && PyErr_Occurred()) PyErr_Clear(); /* the word then takes the Python path */
        self->unk = number;
    }
    if (table_init(&self->starts, (size_t)PyDict_GET_SIZE(vocab)) < 0 ||
        table_init(&self->continuations, (size_t)PyDict_GET_SIZE(vocab)) < 0)
        return -1;
    self->longest_start = self->longest_continuation = 0;
    Py_ssize_t pos = 0, skip = PyUnicode_GET_LENGTH(prefix);
    PyObject *key, *id;
    while (PyDict_Next(vocab, &pos, &key, &id)) {
        if (!PyUnicode_Check(key) || !PyLong_Check(id)) {
            PyErr_SetString(PyExc_TypeError, "vocab must map str tokens to int ids");
            return -1;
        }
        if (wordpiece_add(self, &self->starts, key, 0, id, &self->longest_start) < 0) return -1;
        if (PyUnicode_Tailmatch(key, prefix, 0, skip, -1) == 1 &&
            wordpiece_add(self, &self->continuations, key, skip, id, &self->longest_continuation) < 0)
            return -1;
    }
    return 0;
}

static void
WordPieceTable_dealloc(WordPieceTable *self)
{
    table_free(&self->starts);
    table_free(&self->continuations);
    Py_XDECREF(self->unk_id);
    Py_XDECREF(self->unk_token);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The unknown token standing for the whole word (ValueError when the vocabulary has none). */
static PyObject *
wordpiece_unknown(WordPieceTable *self, Py_ssize_t n, int with_spans)
{
    if (self->unk_id == Py_None) {
        PyErr_Format(PyExc_ValueError, "unk_token %R is not in the vocabulary", self->unk_token);
        return NULL;
    }
    PyObject *piece = with_spans ? Py_BuildValue("(Onn)", self->unk_id, (Py_ssize_t)0, n) : Py_NewRef(self->unk_id);
    if (!piece) return NULL;
    PyObject *out = PyList_New(1);
    if (!out) {
        Py_DECREF(piece);
        return NULL;
    }
    PyList_SET_ITEM(out, 0, piece);
    return out;
}

/* [(id, start, end), ...] of the word's pieces (or only their ids): the longest piece at each point;
 * the unknown token for the whole word when it is too long or some part matches no piece. */
static PyObject *
wordpiece_match(WordPieceTable *self, PyObject *word, int with_spans)
{
    if (!PyUnicode_Check(word)) {
        PyErr_Format(PyExc_TypeError, "word must be a str, got %.100s", Py_TYPE(word)->tp_name);
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(word), start = 0;
    if (n > self->max_chars) return wordpiece_unknown(self, n, with_spans);
    Span w = {PyUnicode_KIND(word), PyUnicode_DATA(word), 0, 0, word};
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    while (start < n) {
        WordTable *table = start ? &self->continuations : &self->starts;
        Py_ssize_t longest = start ? self->longest_continuation : self->longest_start;
        Py_ssize_t end = n - start < longest ? n : start + longest;
        Entry *e = NULL;
        for (; end > start; end--) {
            w.start = start;
            w.length = end - start;
            e = table_probe(table, &w, hash_code_points(w.kind, w.data, w.start, w.length));
            if (e->word) break;
        }
        if (end == start) {
            Py_DECREF(out);
            return wordpiece_unknown(self, n, with_spans);
        }
        PyObject *piece = with_spans ? Py_BuildValue("(Onn)", e->value, start, end) : Py_NewRef(e->value);
        if (!piece || PyList_Append(out, piece) < 0) {
            Py_XDECREF(piece);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(piece);
        start = end;
    }
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

/* WordModel.word_ids (csrc/word_model.h): the ids of wordpiece_match, without the GIL. */
static int
wordpiece_word_ids(PyObject *model, const Span *word, Int64s *out)
{
    WordPieceTable *self = (WordPieceTable *)model;
    Py_ssize_t n = word->length, start = 0, before = out->length;
    Span w = *word;
    while (n <= self->max_chars && start < n) {
        WordTable *table = start ? &self->continuations : &self->starts;
        Py_ssize_t longest = start ? self->longest_continuation : self->longest_start;
        Py_ssize_t end = n - start < longest ? n : start + longest;
        Entry *e = NULL;
        for (; end > start; end--) {
            w.start = word->start + start;
            w.length = end - start;
            e = table_probe(table, &w, hash_code_points(w.kind, w.data, w.start, w.length));
            if (e->word) break;
        }
        if (end == start) break;
        if (int64s_push(out, e->slot) < 0) return -1;
        start = end;
    }
    if (start == n && n <= self->max_chars) return 0;
    out->length = before; /* the unknown token stands for the whole word */
    if (self->unk < 0) return 1;
    return int64s_push(out, self->unk);
}

static const WordModel wordpiece_word_model = {wordpiece_word_ids};

static PyObject *
WordPieceTable_word_model(WordPieceTable *self, PyObject *Py_UNUSED(ignored))
{
    if (!self->starts.entries || !self->ids_fit) Py_RETURN_NONE;
    return word_model_capsule((PyObject *)self, &wordpiece_word_model);
}

static PyMethodDef WordPieceTable_methods[] = {
    {"word_model", (PyCFunction)WordPieceTable_word_model, METH_NOARGS,
     "word_model() -> a capsule of this segmentation for the word encoder (csrc/word_model.h), or None"},
    {"spans", (PyCFunction)WordPieceTable_spans, METH_O,
     "spans(word) -> [(id, start, end), ...] by greedy longest match; the unknown token for the whole "
     "word when it is too long or a part matches nothing"},
    {"ids", (PyCFunction)WordPieceTable_ids, METH_O, "ids(word) -> the ids of spans(word)"},
    {NULL}};

PyTypeObject WordPieceTableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._native.WordPieceTable",
    .tp_basicsize = sizeof(WordPieceTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "WordPieceTable(vocab, prefix, unk_token, max_chars): WordPiece's greedy longest-match-first "
              "segmentation.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)WordPieceTable_init,
    .tp_dealloc = (destructor)WordPieceTable_dealloc,
    .tp_methods = WordPieceTable_methods,
};
