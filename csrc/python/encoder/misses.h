/* csrc/python/encoder/misses.h: the words one WordEncoder.encode call finds missing from its cache (csrc/python/encoder/word_encoder.c),
 * each listed once, where it first occurs, in a table of their own. Raw allocations: the scan that lists
 * them runs without the GIL. */
#ifndef KVEC_MISSES_H
#define KVEC_MISSES_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "int64s.h"
#include "words.h"

/* A word not in the cache yet: where it first occurs, its hash, (once learnt) its record, and where
 * the word model put its ids: n_ids of them from first_id in Misses.ids (n_ids MISS_UNSEGMENTED: not
 * asked yet; MISS_LEFT: left to the model's Python function). */
enum { MISS_LEFT = -1, MISS_UNSEGMENTED = -2 };

typedef struct {
    Py_ssize_t text, start, length, record, first_id, n_ids;
    uint64_t hash;
} Miss;

/* The distinct words of one call that the cache lacks, with a table so each is listed once. */
typedef struct {
    Miss *data;
    Py_ssize_t length, capacity;
    Py_ssize_t *slots; /* miss number + 1; 0: empty */
    size_t mask;
    const Span *views; /* each text as scanned (start 0, the whole text) */
    Int64s ids;        /* the word model's ids of the words, back to back */
    int markers;       /* whether some word's ids are left for later, as a marker in the call's ids */
} Misses;

static inline int
same_span(const Span *a, const Span *b)
{
    if (a->length != b->length) return 0;
    if (a->kind == b->kind)
        return memcmp((const char *)a->data + a->start * a->kind, (const char *)b->data + b->start * b->kind,
                      (size_t)a->length * a->kind) == 0;
    for (Py_ssize_t i = 0; i < a->length; i++)
        if (PyUnicode_READ(a->kind, a->data, a->start + i) != PyUnicode_READ(b->kind, b->data, b->start + i)) return 0;
    return 1;
}

static inline Span
miss_span(const Misses *m, const Miss *miss)
{
    Span span = m->views[miss->text];
    span.start = miss->start;
    span.length = miss->length;
    return span;
}

static inline int
misses_grow(Misses *m)
{
    size_t size = m->slots ? (m->mask + 1) * 2 : 1024;
    Py_ssize_t *slots = PyMem_RawCalloc(size, sizeof(Py_ssize_t));
    if (!slots) return -1;
    for (Py_ssize_t k = 0; k < m->length; k++) {
        size_t j = (size_t)m->data[k].hash & (size - 1);
        while (slots[j]) j = (j + 1) & (size - 1);
        slots[j] = k + 1;
    }
    PyMem_RawFree(m->slots);
    m->slots = slots;
    m->mask = size - 1;
    return 0;
}

/* The number of the missed word at `span`, listed now if it is new; -1 when out of memory. */
static inline Py_ssize_t
misses_find_or_add(Misses *m, const Span *span, uint64_t h, Py_ssize_t text)
{
    if ((size_t)(m->length + 1) * 2 > (m->slots ? m->mask : 0) && misses_grow(m) < 0) return -1;
    size_t j = (size_t)h & m->mask;
    for (; m->slots[j]; j = (j + 1) & m->mask) {
        Miss *miss = &m->data[m->slots[j] - 1];
        if (miss->hash != h) continue;
        Span seen = miss_span(m, miss);
        if (same_span(&seen, span)) return m->slots[j] - 1;
    }
    if (m->length == m->capacity) {
        Py_ssize_t capacity = m->capacity ? m->capacity * 2 : 256;
        Miss *data = PyMem_RawRealloc(m->data, sizeof(Miss) * (size_t)capacity);
        if (!data) return -1;
        m->data = data;
        m->capacity = capacity;
    }
    m->data[m->length] = (Miss){text, span->start, span->length, -1, 0, MISS_UNSEGMENTED, h};
    m->slots[j] = m->length + 1;
    return m->length++;
}

#endif
