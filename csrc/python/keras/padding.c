/* csrc/python/keras/padding.c: the fill of pad_sequences, for kvec/sequence.py.
 *
 *   fill_padded(out, sequences, pre_padding, pre_truncating) -> bool
 *       copies a list of int/float lists into a 2-D C-contiguous int32/int64/float32/float64 buffer;
 *       returns False without promising anything about `out` when an element needs NumPy's own
 *       conversion rules (the caller then takes the general path).
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
fill_rows(Py_buffer *view, enum target t, PyObject *sequences, int pre_padding, int pre_truncating)
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
    if (ok) ok = fill_rows(&view, t, sequences, pre_padding, pre_truncating);
    PyBuffer_Release(&view);
    return PyBool_FromLong(ok);
}
