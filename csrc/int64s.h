/* csrc/int64s.h: a growable array of int64, in raw allocations so that code running without the GIL
 * can grow it; shared by kvec's encoders. */
#ifndef KVEC_INT64S_H
#define KVEC_INT64S_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    int64_t *data;
    Py_ssize_t length, capacity;
} Int64s;

/* Room for `more` values past the length; -1 when out of memory. */
static inline int
int64s_reserve(Int64s *a, Py_ssize_t more)
{
    if (a->length + more <= a->capacity) return 0;
    Py_ssize_t capacity = a->capacity ? a->capacity : 1024;
    while (capacity < a->length + more) capacity *= 2;
    int64_t *data = PyMem_RawRealloc(a->data, sizeof(int64_t) * (size_t)capacity);
    if (!data) return -1;
    a->data = data;
    a->capacity = capacity;
    return 0;
}

static inline int
int64s_push(Int64s *a, int64_t value)
{
    if (int64s_reserve(a, 1) < 0) return -1;
    a->data[a->length++] = value;
    return 0;
}

/* The values of b appended to a; -1 when out of memory. */
static inline int
int64s_extend(Int64s *a, const Int64s *b)
{
    if (!b->length) return 0;
    if (int64s_reserve(a, b->length) < 0) return -1;
    memcpy(a->data + a->length, b->data, sizeof(int64_t) * (size_t)b->length);
    a->length += b->length;
    return 0;
}

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
