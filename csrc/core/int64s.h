/* csrc/core/int64s.h: a growable array of int64, shared by kvec's encoders. Built into a Python
 * extension (setup.py defines KVEC_WITH_PYTHON) it grows in PyMem_Raw allocations, which code without
 * the GIL may make and the extension frees with PyMem_RawFree; elsewhere (the TensorFlow kernels) with
 * malloc. Free it with int64s_free. A core file includes it before any other header. */
#ifndef KVEC_INT64S_H
#define KVEC_INT64S_H

#ifdef KVEC_WITH_PYTHON
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef KVEC_WITH_PYTHON
#define INT64S_REALLOC PyMem_RawRealloc
#define INT64S_FREE PyMem_RawFree
#else
#include <stdlib.h>
#define INT64S_REALLOC realloc
#define INT64S_FREE free
#endif

typedef struct {
    int64_t *data;
    ptrdiff_t length, capacity;
} Int64s;

static inline void
int64s_free(Int64s *a)
{
    INT64S_FREE(a->data);
    a->data = NULL;
    a->length = a->capacity = 0;
}

/* Room for `more` values past the length; -1 when out of memory. */
static inline int
int64s_reserve(Int64s *a, ptrdiff_t more)
{
    if (a->length + more <= a->capacity) return 0;
    ptrdiff_t capacity = a->capacity ? a->capacity : 1024;
    while (capacity < a->length + more) capacity *= 2;
    int64_t *data = (int64_t *)INT64S_REALLOC(a->data, sizeof(int64_t) * (size_t)capacity);
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

#endif
