/* csrc/python/int64s_from_python.h: an Int64s (csrc/core/int64s.h) filled from a Python sequence of ids. */
#ifndef KVEC_INT64S_FROM_PYTHON_H
#define KVEC_INT64S_FROM_PYTHON_H

#include <Python.h>

#include "int64s.h"

/* a set to the ids of `sequence` (ints >= 0; `name` in the errors); -1 with an exception set. Needs
 * the GIL. */
static inline int
int64s_from_sequence(Int64s *a, PyObject *sequence, const char *name)
{
    PyObject *seq = PySequence_Fast(sequence, "");
    if (!seq) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s must be a list of int, got %.100s", name, Py_TYPE(sequence)->tp_name);
        }
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    a->length = 0;
    if (int64s_reserve(a, n) < 0) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long long id = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (id < 0) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "%s[%zd] is the negative id %lld", name, i, id);
            Py_DECREF(seq);
            return -1;
        }
        a->data[a->length++] = id;
    }
    Py_DECREF(seq);
    return 0;
}

#endif
