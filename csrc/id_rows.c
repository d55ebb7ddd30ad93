/* csrc/id_rows.c: id_rows() of kvec._encoder, for kvec/pipeline.py: ragged int64 ids to one list of
 * Python ints per text, the form Encoding.ids takes.
 *
 *   id_rows(values, row_lengths) -> list of lists of int. Both are buffers of int64 (native order), the
 *       ids back to back and how many belong to each row; ids must be >= 0.
 *
 * A batch holds millions of ids drawn from a vocabulary of thousands, so the int objects of ids below
 * 65536 are made once and shared, and each row is filled straight from the buffer. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "id_rows.h"

#define SHARED_IDS 65536

static PyObject *shared[SHARED_IDS]; /* made on first use, kept for the life of the process */

static inline PyObject *
id_object(int64_t id)
{
    if (id >= SHARED_IDS) return PyLong_FromLongLong(id);
    if (!shared[id] && !(shared[id] = PyLong_FromLongLong(id))) return NULL;
    return Py_NewRef(shared[id]);
}

PyObject *
id_rows(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer values, lengths;
    if (!PyArg_ParseTuple(args, "y*y*:id_rows", &values, &lengths)) return NULL;
    PyObject *rows = NULL;
    Py_ssize_t n_values = values.len / (Py_ssize_t)sizeof(int64_t), n_rows = lengths.len / (Py_ssize_t)sizeof(int64_t);
    if (values.len % (Py_ssize_t)sizeof(int64_t) || lengths.len % (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "values and row_lengths must hold whole int64s");
        goto done;
    }
    const int64_t *ids = values.buf, *counts = lengths.buf;
    Py_ssize_t total = 0;
    for (Py_ssize_t r = 0; r < n_rows; r++) {
        if (counts[r] < 0 || counts[r] > n_values - total) {
            PyErr_Format(PyExc_ValueError, "row_lengths[%zd] = %lld does not fit the %zd values", r,
                         (long long)counts[r], n_values);
            goto done;
        }
        total += (Py_ssize_t)counts[r];
    }
    if (total != n_values) {
        PyErr_Format(PyExc_ValueError, "row_lengths add up to %zd, not the %zd values", total, n_values);
        goto done;
    }
    rows = PyList_New(n_rows);
    if (!rows) goto done;
    Py_ssize_t at = 0;
    for (Py_ssize_t r = 0; r < n_rows; r++) {
        PyObject *row = PyList_New((Py_ssize_t)counts[r]);
        if (!row) goto fail;
        PyList_SET_ITEM(rows, r, row);
        for (Py_ssize_t k = 0; k < (Py_ssize_t)counts[r]; k++, at++) {
            if (ids[at] < 0) {
                PyErr_Format(PyExc_ValueError, "values[%zd] = %lld is negative", at, (long long)ids[at]);
                goto fail;
            }
            PyObject *id = id_object(ids[at]);
            if (!id) goto fail;
            PyList_SET_ITEM(row, k, id);
        }
    }
    goto done;
fail:
    Py_CLEAR(rows);
done:
    PyBuffer_Release(&values);
    PyBuffer_Release(&lengths);
    return rows;
}
