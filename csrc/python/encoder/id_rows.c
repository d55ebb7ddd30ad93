/* csrc/python/encoder/id_rows.c: id_rows() of kvec._encoder, for kvec/pipeline.py: ragged int64 ids to one list of
 * Python ints per text, the form Encoding.ids takes.
 *
 *   id_rows(values, row_lengths) -> list of lists of int. Both are buffers of int64 (native order), the
 *       ids back to back and how many belong to each row; ids must be >= 0 (kvec/text.py's
 *       Tokenizer.texts_to_sequences).
 *
 *   encodings(cls, values, row_lengths, tokenizer, texts) -> list of cls: one kvec.encoding.Encoding per
 *       row, made without running its __init__: the slots ids (the row), _tokenizer, _text (texts[i])
 *       are set and the others (_tokens, _offsets, _words, ...) None, worked out on demand, as
 *       Encoding(row, source=(tokenizer, text)) sets them (kvec/encoding.py).
 *
 * A batch holds millions of ids drawn from a vocabulary of thousands, so the int objects of ids below
 * 65536 are made once and shared, and each row is filled straight from the buffer.
 *
 * The encodings and their lists of ids are left out of the cycle collector, as Hugging Face's encodings
 * are: they refer to no object that refers back to them, so the collector would find nothing in them,
 * and walking hundreds of thousands of them after every batch made it the slowest step of encode_batch.
 * (A list a caller makes into a cycle, say by appending it to itself, is then never freed.) */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <structmember.h>

#include "encoder.h"

#define SHARED_IDS 65536

static PyObject *shared[SHARED_IDS]; /* made on first use, kept for the life of the process */

static inline PyObject *
id_object(int64_t id)
{
    if (id >= SHARED_IDS) return PyLong_FromLongLong(id);
    if (!shared[id] && !(shared[id] = PyLong_FromLongLong(id))) return NULL;
    return Py_NewRef(shared[id]);
}

/* The k-th int64 of a buffer that need not be aligned (a memoryview may start at any byte). */
static inline int64_t
int64_at(const char *buffer, Py_ssize_t k)
{
    int64_t value;
    memcpy(&value, buffer + k * (Py_ssize_t)sizeof(int64_t), sizeof(value));
    return value;
}

/* The list of rows of ints that int64 buffers of ids and row lengths hold; NULL with an exception set. */
static PyObject *
rows_of(const Py_buffer *values, const Py_buffer *lengths)
{
    PyObject *rows = NULL;
    Py_ssize_t n_values = values->len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t n_rows = lengths->len / (Py_ssize_t)sizeof(int64_t);
    if (values->len % (Py_ssize_t)sizeof(int64_t) || lengths->len % (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "values and row_lengths must hold whole int64s");
        return NULL;
    }
    const char *ids = values->buf, *counts = lengths->buf;
    Py_ssize_t total = 0;
    for (Py_ssize_t r = 0; r < n_rows; r++) {
        int64_t count = int64_at(counts, r);
        if (count < 0 || count > n_values - total) {
            PyErr_Format(PyExc_ValueError, "row_lengths[%zd] = %lld does not fit the %zd values", r, (long long)count,
                         n_values);
            return NULL;
        }
        total += (Py_ssize_t)count;
    }
    if (total != n_values) {
        PyErr_Format(PyExc_ValueError, "row_lengths add up to %zd, not the %zd values", total, n_values);
        return NULL;
    }
    rows = PyList_New(n_rows);
    if (!rows) return NULL;
    Py_ssize_t at = 0;
    for (Py_ssize_t r = 0; r < n_rows; r++) {
        Py_ssize_t count = (Py_ssize_t)int64_at(counts, r);
        PyObject *row = PyList_New(count);
        if (!row) goto fail;
        PyObject_GC_UnTrack(row); /* ints only: left out of the cycle collector, as below */
        PyList_SET_ITEM(rows, r, row);
        for (Py_ssize_t k = 0; k < count; k++, at++) {
            int64_t value = int64_at(ids, at);
            if (value < 0) {
                PyErr_Format(PyExc_ValueError, "values[%zd] = %lld is negative", at, (long long)value);
                goto fail;
            }
            PyObject *id = id_object(value);
            if (!id) goto fail;
            PyList_SET_ITEM(row, k, id);
        }
    }
    return rows;
fail:
    Py_DECREF(rows);
    return NULL;
}

/* id_rows(values, row_lengths): reads the two buffers, then makes their rows. */
PyObject *
id_rows(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer values, lengths;
    if (!PyArg_ParseTuple(args, "y*y*:id_rows", &values, &lengths)) return NULL;
    PyObject *rows = rows_of(&values, &lengths);
    PyBuffer_Release(&values);
    PyBuffer_Release(&lengths);
    return rows;
}

/* The byte offset of the slot `name` of type `cls` (a __slots__ member of cls or a base of it, so that
 * the offset lies inside cls's objects); -1 with an exception set. */
static Py_ssize_t
slot_offset(PyTypeObject *cls, const char *name)
{
    PyObject *descriptor = PyObject_GetAttrString((PyObject *)cls, name);
    if (!descriptor) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
        PyErr_Clear();
    }
    Py_ssize_t offset = -1;
    if (descriptor && Py_IS_TYPE(descriptor, &PyMemberDescr_Type) &&
        PyType_IsSubtype(cls, PyDescr_TYPE(descriptor))) {
        PyMemberDef *member = ((PyMemberDescrObject *)descriptor)->d_member;
        if (member->type == T_OBJECT_EX) offset = member->offset;
    }
    Py_XDECREF(descriptor);
    if (offset < 0) PyErr_Format(PyExc_TypeError, "%.100s.%s is not a __slots__ member", cls->tp_name, name);
    return offset;
}

/* One cls per row of ids, holding the row, the tokenizer and its text; NULL with an exception set. */
static PyObject *
make_encodings(PyTypeObject *cls, PyObject *values, PyObject *lengths, PyObject *tokenizer, PyObject *texts)
{
    static const char *names[] = {"ids",        "_tokenizer",          "_text",  "_tokens",
                                  "_offsets",   "_type_ids",           "_words", "_special_tokens_mask",
                                  "_attention_mask", "_overflowing", "_sequence_ranges"};
    enum { N_SLOTS = sizeof(names) / sizeof(names[0]) };
    Py_ssize_t offsets[N_SLOTS];
    for (int k = 0; k < N_SLOTS; k++)
        if ((offsets[k] = slot_offset(cls, names[k])) < 0) return NULL;
    PyObject *pair = PyTuple_Pack(2, values, lengths);
    PyObject *rows = pair ? id_rows(NULL, pair) : NULL;
    Py_XDECREF(pair);
    if (!rows) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(rows);
    if (PyList_GET_SIZE(texts) != n) {
        Py_DECREF(rows);
        PyErr_Format(PyExc_ValueError, "%zd texts for %zd rows of ids", PyList_GET_SIZE(texts), n);
        return NULL;
    }
    /* the encodings replace the rows in the list, each taking its row */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *encoding = cls->tp_alloc(cls, 0);
        if (!encoding) {
            Py_DECREF(rows);
            return NULL;
        }
        PyObject *slots[N_SLOTS] = {PyList_GET_ITEM(rows, i), Py_NewRef(tokenizer), Py_NewRef(PyList_GET_ITEM(texts, i))};
        for (int k = 3; k < N_SLOTS; k++) slots[k] = Py_NewRef(Py_None); /* the rest: worked out on demand */
        for (int k = 0; k < N_SLOTS; k++) *(PyObject **)((char *)encoding + offsets[k]) = slots[k];
        PyList_SET_ITEM(rows, i, encoding);
        if (PyObject_IS_GC(encoding)) PyObject_GC_UnTrack(encoding);
        PyObject_GC_UnTrack(slots[0]); /* the row of ids */
    }
    return rows;
}

/* encodings(cls, values, row_lengths, tokenizer, texts): checks the argument types, then makes the encodings. */
PyObject *
encodings(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyTypeObject *cls;
    PyObject *values, *lengths, *tokenizer, *texts;
    if (!PyArg_ParseTuple(args, "O!OOOO!:encodings", &PyType_Type, &cls, &values, &lengths, &tokenizer, &PyList_Type,
                          &texts))
        return NULL;
    return make_encodings(cls, values, lengths, tokenizer, texts);
}
