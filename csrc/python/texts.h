/* csrc/python/texts.h: a str, or a list of str, as code points, shared by kvec's C extensions. */
#ifndef KVEC_TEXTS_H
#define KVEC_TEXTS_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Text i is cps[offset[i] : offset[i] + length[i]]. Texts laid out by texts_init_separated are each
 * followed by a 0, so cps is also the texts joined by NULs (as a suffix array reads them). */
typedef struct {
    uint32_t *cps;
    Py_ssize_t *offset, *length;
    Py_ssize_t n, longest;
} Texts;

/* The code points of the str argument `name`, in a new buffer (PyMem_Free it), their count in *n;
 * NULL with an exception set. */
static inline uint32_t *
str_code_points(PyObject *text, const char *name, Py_ssize_t *n)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "%s must be a str, got %.100s", name, Py_TYPE(text)->tp_name);
        return NULL;
    }
    *n = PyUnicode_GET_LENGTH(text);
    uint32_t *cps = PyMem_Malloc((size_t)(*n + 1) * sizeof(uint32_t));
    if (!cps) return (uint32_t *)PyErr_NoMemory();
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t k = 0; k < *n; k++) cps[k] = PyUnicode_READ(kind, data, k);
    return cps;
}

static inline void
texts_free(Texts *t)
{
    PyMem_Free(t->cps);
    PyMem_Free(t->offset);
    PyMem_Free(t->length);
    memset(t, 0, sizeof(*t));
}

/* The texts, each followed by `gap` zeros. */
static inline int
texts_init_gapped(Texts *t, PyObject *list, const char *name, Py_ssize_t gap)
{
    memset(t, 0, sizeof(*t));
    if (!PyList_Check(list)) {
        PyErr_Format(PyExc_TypeError, "%s must be a list of str", name);
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(list), total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PyList_GET_ITEM(list, i);
        if (!PyUnicode_Check(s)) {
            PyErr_Format(PyExc_TypeError, "%s[%zd] must be a str, got %.100s", name, i, Py_TYPE(s)->tp_name);
            return -1;
        }
        total += PyUnicode_GET_LENGTH(s) + gap;
    }
    t->cps = PyMem_Malloc((total + 1) * sizeof(uint32_t));
    t->offset = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t));
    t->length = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t));
    if (!t->cps || !t->offset || !t->length) {
        texts_free(t);
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PyList_GET_ITEM(list, i);
        int kind = PyUnicode_KIND(s);
        const void *data = PyUnicode_DATA(s);
        Py_ssize_t len = PyUnicode_GET_LENGTH(s);
        t->offset[i] = at;
        t->length[i] = len;
        if (len > t->longest) t->longest = len;
        for (Py_ssize_t k = 0; k < len; k++) t->cps[at++] = PyUnicode_READ(kind, data, k);
        for (Py_ssize_t k = 0; k < gap; k++) t->cps[at++] = 0;
    }
    t->n = n;
    return 0;
}

static inline int
texts_init(Texts *t, PyObject *list, const char *name)
{
    return texts_init_gapped(t, list, name, 0);
}

static inline int
texts_init_separated(Texts *t, PyObject *list, const char *name)
{
    return texts_init_gapped(t, list, name, 1);
}

/* The ints of `list` (n of them) as a new int64 array; NULL with an exception on error. */
static inline int64_t *
int64_array(PyObject *list, Py_ssize_t n, const char *name)
{
    if (!PyList_Check(list) || PyList_GET_SIZE(list) != n) {
        PyErr_Format(PyExc_ValueError, "%s must be a list of %zd ints", name, n);
        return NULL;
    }
    int64_t *values = PyMem_Malloc((n + 1) * sizeof(int64_t));
    if (!values) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        values[i] = PyLong_AsLongLong(PyList_GET_ITEM(list, i));
        if (values[i] == -1 && PyErr_Occurred()) {
            PyMem_Free(values);
            return NULL;
        }
    }
    return values;
}

#endif
