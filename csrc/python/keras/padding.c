/* csrc/python/keras/padding.c: the fill of pad_sequences, for kvec/sequence.py.
 *
 *   fill_padded(out, sequences, pre_padding, pre_truncating) -> bool
 *       copies a list of int/float lists into a 2-D C-contiguous int32/int64/float32/float64 buffer;
 *       returns False without promising anything about `out` when an element needs NumPy's own
 *       conversion rules (the caller then takes the general path).
 *   fill_rows(out, values, row_lengths, zeroed=False) -> None
 *       writes ragged int64 ids (values: every row's ids back to back; row_lengths: one int64 count per
 *       row of `out`) into a 2-D C-contiguous int32/int64 buffer: each row's first ids, cut at its
 *       width, then zeros (left as they are when `zeroed`: the caller knows `out` holds zeros). ValueError
 *       when a count is negative, the counts need more values than there are, or an id does not fit the
 *       buffer's type; the GIL is released while it copies.
 *   clear_rows(region, row_bytes, written) -> None
 *       zeroes the first written[r] bytes of each row r of a writable C-contiguous buffer taken as rows of
 *       row_bytes bytes (the cells an earlier fill_rows wrote ids to, in the layout it had). ValueError
 *       when a count is negative or past row_bytes, or the rows pass the buffer's end.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "keras.h"

/* ------------------------------------------------------------------------------------------------ */
/* fill_padded                                                                                       */

enum target { T_INT32, T_INT64, T_FLOAT32, T_FLOAT64 };

static int
target_of(const Py_buffer *view, enum target *t)
{
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    if (f[0] == '\0' || f[1] != '\0') return -1;
    switch (f[0]) {
    case 'i': case 'l': case 'q':
        if (view->itemsize == 4) { *t = T_INT32; return 0; }
        if (view->itemsize == 8) { *t = T_INT64; return 0; }
        return -1;
    case 'f': *t = T_FLOAT32; return view->itemsize == 4 ? 0 : -1;
    case 'd': *t = T_FLOAT64; return view->itemsize == 8 ? 0 : -1;
    default: return -1;
    }
}

/* Writes one element; returns 0, or 1 when NumPy's own conversion is needed. */
static inline int
store(char *dst, enum target t, PyObject *v)
{
    if (PyLong_Check(v)) {
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || (x == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return 1;
        }
        switch (t) {
        case T_INT32:
            if (x < INT32_MIN || x > INT32_MAX) return 1;
            *(int32_t *)dst = (int32_t)x;
            return 0;
        case T_INT64: *(int64_t *)dst = (int64_t)x; return 0;
        case T_FLOAT32:
        case T_FLOAT64: {
            if (x > (1LL << 53) || x < -(1LL << 53)) return 1; /* keep rounding questions out */
            double d = (double)x;
            if (t == T_FLOAT32) *(float *)dst = (float)d;
            else *(double *)dst = d;
            return 0;
        }
        }
    }
    if (PyFloat_CheckExact(v) && (t == T_FLOAT32 || t == T_FLOAT64)) {
        double d = PyFloat_AS_DOUBLE(v);
        if (t == T_FLOAT32) *(float *)dst = (float)d;
        else *(double *)dst = d;
        return 0;
    }
    return 1;
}

/* Copy each sequence (a list or a tuple) into its row of the 2-D view, cut to the row length and padded
 * before or after; 0 when an element needs NumPy's conversion rules. */
static int
copy_sequences(Py_buffer *view, enum target t, PyObject *sequences, int pre_padding, int pre_truncating)
{
    Py_ssize_t rows = view->shape[0], maxlen = view->shape[1], size = view->itemsize;
    for (Py_ssize_t r = 0; r < rows; r++) {
        PyObject *seq = PyList_GET_ITEM(sequences, r);
        if (!PyList_CheckExact(seq) && !PyTuple_CheckExact(seq)) return 0;
        PyObject **items = PySequence_Fast_ITEMS(seq);
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        Py_ssize_t first = 0, kept = n;
        if (n > maxlen) {
            kept = maxlen;
            if (pre_truncating) first = n - maxlen;
        }
        char *row = (char *)view->buf + r * maxlen * size;
        char *dst = row + (pre_padding ? (maxlen - kept) * size : 0);
        for (Py_ssize_t k = 0; k < kept; k++, dst += size)
            if (store(dst, t, items[first + k])) return 0;
    }
    return 1;
}

PyObject *
fill_padded(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *out, *sequences;
    int pre_padding, pre_truncating;
    if (!PyArg_ParseTuple(args, "OO!pp", &out, &PyList_Type, &sequences, &pre_padding, &pre_truncating))
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(out, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return NULL;
    enum target t;
    int ok = view.ndim == 2 && target_of(&view, &t) == 0 && view.shape[0] == PyList_GET_SIZE(sequences);
    if (ok) ok = copy_sequences(&view, t, sequences, pre_padding, pre_truncating);
    PyBuffer_Release(&view);
    return PyBool_FromLong(ok);
}

/* ------------------------------------------------------------------------------------------------ */
/* fill_rows                                                                                         */

/* A buffer of int64s (any C-contiguous layout of 8-byte signed ints), its count in *n. */
static int
int64_buffer(PyObject *object, Py_buffer *view, const char *name, Py_ssize_t *n)
{
    if (PyObject_GetBuffer(object, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    enum target t;
    if (target_of(view, &t) < 0 || t != T_INT64) {
        PyErr_Format(PyExc_TypeError, "%s must be a buffer of int64, got format %s with itemsize %zd", name,
                     view->format ? view->format : "B", view->itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    *n = view->len / 8;
    return 0;
}

/* The first of the n_rows counts at lengths that is negative or needs more than n_values values with
 * the counts before it, or -1. */
static Py_ssize_t
first_bad_length(const char *lengths, Py_ssize_t n_rows, Py_ssize_t n_values)
{
    Py_ssize_t needed = 0;
    for (Py_ssize_t r = 0; r < n_rows; r++) {
        int64_t n;
        memcpy(&n, lengths + 8 * r, 8);
        if (n < 0 || n > n_values - needed) return r;
        needed += (Py_ssize_t)n;
    }
    return -1;
}

/* Rows of `width` items of `size` bytes at out (zeroes first unless `zeroed`); returns the first bad id's
 * place, or -1. */
static Py_ssize_t
copy_rows(char *out, Py_ssize_t rows, Py_ssize_t width, Py_ssize_t size, const char *values, const char *lengths,
          int zeroed)
{
    Py_ssize_t start = 0;
    if (!zeroed) memset(out, 0, (size_t)(rows * width * size)); /* at once: a big memset streams past the cache */
    for (Py_ssize_t r = 0; r < rows; r++) {
        int64_t n;
        memcpy(&n, lengths + 8 * r, 8);
        Py_ssize_t kept = n < width ? (Py_ssize_t)n : width;
        char *row = out + r * width * size;
        if (size == 8) {
            if (kept) memcpy(row, values + 8 * start, (size_t)(8 * kept));
        } else {
            for (Py_ssize_t k = 0; k < kept; k++) {
                int64_t id;
                memcpy(&id, values + 8 * (start + k), 8);
                if (id < INT32_MIN || id > INT32_MAX) return start + k;
                int32_t narrow = (int32_t)id;
                memcpy(row + 4 * k, &narrow, 4);
            }
        }
        start += (Py_ssize_t)n;
    }
    return -1;
}

PyObject *
fill_rows(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *out_object, *values_object, *lengths_object;
    int zeroed = 0;
    if (!PyArg_ParseTuple(args, "OOO|p", &out_object, &values_object, &lengths_object, &zeroed)) return NULL;
    Py_buffer out, values, lengths;
    Py_ssize_t n_values, n_rows;
    if (PyObject_GetBuffer(out_object, &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return NULL;
    if (int64_buffer(values_object, &values, "values", &n_values) < 0) {
        PyBuffer_Release(&out);
        return NULL;
    }
    if (int64_buffer(lengths_object, &lengths, "row_lengths", &n_rows) < 0) {
        PyBuffer_Release(&values);
        PyBuffer_Release(&out);
        return NULL;
    }
    PyObject *result = NULL;
    enum target t;
    if (out.ndim != 2 || target_of(&out, &t) < 0 || (t != T_INT32 && t != T_INT64)) {
        PyErr_SetString(PyExc_TypeError, "out must be a 2-D buffer of int32 or int64");
        goto done;
    }
    if (out.shape[0] != n_rows) {
        PyErr_Format(PyExc_ValueError, "out has %zd rows for %zd row lengths", out.shape[0], n_rows);
        goto done;
    }
    Py_ssize_t bad_row = first_bad_length(lengths.buf, n_rows, n_values);
    if (bad_row >= 0) {
        int64_t n;
        memcpy(&n, (const char *)lengths.buf + 8 * bad_row, 8);
        PyErr_Format(PyExc_ValueError, "row_lengths[%zd] is %lld: negative, or past the %zd values", bad_row,
                     (long long)n, n_values);
        goto done;
    }
    Py_ssize_t bad;
    Py_BEGIN_ALLOW_THREADS
    bad = copy_rows(out.buf, n_rows, out.shape[1], out.itemsize, values.buf, lengths.buf, zeroed);
    Py_END_ALLOW_THREADS
    if (bad >= 0) {
        PyErr_Format(PyExc_ValueError, "values[%zd] does not fit an int32", bad);
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&lengths);
    PyBuffer_Release(&values);
    PyBuffer_Release(&out);
    return result;
}

/* ------------------------------------------------------------------------------------------------ */
/* clear_rows                                                                                        */

/* The first of the n_rows byte counts at written that is negative or past row_bytes, or -1. */
static Py_ssize_t
first_bad_count(const char *written, Py_ssize_t n_rows, Py_ssize_t row_bytes)
{
    for (Py_ssize_t r = 0; r < n_rows; r++) {
        int64_t n;
        memcpy(&n, written + 8 * r, 8);
        if (n < 0 || n > row_bytes) return r;
    }
    return -1;
}

/* Zeroes the first written[r] bytes of each row r of row_bytes bytes at region. */
static void
zero_row_starts(char *region, Py_ssize_t row_bytes, const char *written, Py_ssize_t n_rows)
{
    for (Py_ssize_t r = 0; r < n_rows; r++) {
        int64_t n;
        memcpy(&n, written + 8 * r, 8);
        if (n) memset(region + r * row_bytes, 0, (size_t)n);
    }
}

PyObject *
clear_rows(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *region_object, *written_object;
    Py_ssize_t row_bytes, n_rows;
    if (!PyArg_ParseTuple(args, "OnO", &region_object, &row_bytes, &written_object)) return NULL;
    if (row_bytes < 0) {
        PyErr_Format(PyExc_ValueError, "row_bytes must not be negative, got %zd", row_bytes);
        return NULL;
    }
    Py_buffer region, written;
    if (PyObject_GetBuffer(region_object, &region, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) return NULL;
    if (int64_buffer(written_object, &written, "written", &n_rows) < 0) {
        PyBuffer_Release(&region);
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t bad = first_bad_count(written.buf, n_rows, row_bytes);
    if (row_bytes && n_rows > region.len / row_bytes) {
        PyErr_Format(PyExc_ValueError, "%zd rows of %zd bytes pass the region's %zd bytes", n_rows, row_bytes,
                     region.len);
    } else if (bad >= 0) {
        int64_t n;
        memcpy(&n, (const char *)written.buf + 8 * bad, 8);
        PyErr_Format(PyExc_ValueError, "written[%zd] is %lld: negative, or past the %zd bytes of a row", bad,
                     (long long)n, row_bytes);
    } else {
        Py_BEGIN_ALLOW_THREADS
        zero_row_starts(region.buf, row_bytes, written.buf, n_rows);
        Py_END_ALLOW_THREADS
        result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&written);
    PyBuffer_Release(&region);
    return result;
}
