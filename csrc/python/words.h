/* csrc/python/words.h: words as spans of a str, and a hash table keyed by their code points, shared by
 * kvec's C extensions. */
#ifndef KVEC_WORDS_H
#define KVEC_WORDS_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "code_points.h"

/* A word inside a text: code points [start, start + length) of a str of the given kind, or of a raw
 * buffer of that kind when text is NULL. */
typedef struct {
    int kind;
    const void *data;
    Py_ssize_t start, length;
    PyObject *text;
} Span;

static inline PyObject *
span_str(const Span *w)
{
    if (!w->text)
        return PyUnicode_FromKindAndData(w->kind, (const char *)w->data + w->start * w->kind, w->length);
    return PyUnicode_Substring(w->text, w->start, w->start + w->length);
}

/* ------------------------------------------------------------------------------------------------ */
/* WordMap: words (str) to values, by open addressing keyed by a word's code points, so a word seen  */
/* again costs a hash and a compare, never a new str object.                                         */

typedef struct {
    uint64_t hash;
    PyObject *word;  /* NULL: empty entry */
    PyObject *value; /* owned; may be NULL for counters */
    Py_ssize_t slot;
} Entry;

typedef struct {
    Entry *entries;
    size_t mask;
    size_t used;
} WordMap;

/* hash_step and hash_end come from code_points.h; a span of a str hashes as its CodePoints do. */
static inline uint64_t
hash_code_points(int kind, const void *data, Py_ssize_t start, Py_ssize_t length)
{
    CodePoints w = {kind, (const char *)data + start * kind, length};
    return code_points_hash(&w);
}

static inline int
same_code_points(PyObject *word, const Span *w)
{
    if (PyUnicode_GET_LENGTH(word) != w->length) return 0;
    int kind = PyUnicode_KIND(word);
    const void *data = PyUnicode_DATA(word);
    if (kind == w->kind)
        return memcmp(data, (const char *)w->data + w->start * kind, (size_t)w->length * kind) == 0;
    for (Py_ssize_t i = 0; i < w->length; i++)
        if (PyUnicode_READ(kind, data, i) != PyUnicode_READ(w->kind, w->data, w->start + i)) return 0;
    return 1;
}

static inline int
table_init(WordMap *t, size_t capacity)
{
    size_t size = 64;
    while (size < capacity * 2) size <<= 1;
    t->entries = PyMem_Calloc(size, sizeof(Entry));
    if (!t->entries) {
        PyErr_NoMemory();
        return -1;
    }
    t->mask = size - 1;
    t->used = 0;
    return 0;
}

static inline void
table_free(WordMap *t)
{
    if (!t->entries) return;
    for (size_t i = 0; i <= t->mask; i++) {
        Py_XDECREF(t->entries[i].word);
        Py_XDECREF(t->entries[i].value);
    }
    PyMem_Free(t->entries);
    t->entries = NULL;
}

/* The entry for the span's word, or the empty entry where it would go. */
static inline Entry *
table_probe(WordMap *t, const Span *w, uint64_t h)
{
    size_t i = (size_t)h & t->mask;
    for (;;) {
        Entry *e = &t->entries[i];
        if (!e->word || (e->hash == h && same_code_points(e->word, w))) return e;
        i = (i + 1) & t->mask;
    }
}

static inline int
table_grow(WordMap *t)
{
    WordMap bigger;
    if (table_init(&bigger, (t->mask + 1)) < 0) return -1;
    for (size_t i = 0; i <= t->mask; i++) {
        Entry *e = &t->entries[i];
        if (!e->word) continue;
        size_t j = (size_t)e->hash & bigger.mask;
        while (bigger.entries[j].word) j = (j + 1) & bigger.mask;
        bigger.entries[j] = *e;
    }
    bigger.used = t->used;
    PyMem_Free(t->entries);
    *t = bigger;
    return 0;
}

/* Fills an empty entry found by table_probe; steals word and value. */
static inline int
table_fill(WordMap *t, Entry *e, uint64_t h, PyObject *word, PyObject *value, Py_ssize_t slot)
{
    e->hash = h;
    e->word = word;
    e->value = value;
    e->slot = slot;
    t->used++;
    if (t->used * 2 > t->mask) return table_grow(t);
    return 0;
}

#endif
