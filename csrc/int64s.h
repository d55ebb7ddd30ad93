/* csrc/int64s.h: a growable array of int64, in raw allocations so that code running without the GIL
 * can grow it; shared by kvec's encoders. */
#ifndef KVEC_INT64S_H
#define KVEC_INT64S_H

#include <Python.h>
#include <stdint.h>

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

#endif
