/* csrc/core/pair_map.h: a map from a pair of token ids to a count or a rank, by open addressing. Shared by
 * the BPE trainer's merge loop (pair counts) and the BPE model (merge ranks). Built into a Python
 * extension (KVEC_WITH_PYTHON) it allocates with PyMem_Malloc and sets MemoryError when that fails, as
 * the trainer expects; elsewhere with malloc. Free the slots with PAIRMAP_FREE. */
#ifndef KVEC_PAIR_MAP_H
#define KVEC_PAIR_MAP_H

#ifdef KVEC_WITH_PYTHON
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define PAIRMAP_MALLOC PyMem_Malloc
#define PAIRMAP_FREE PyMem_Free
#define PAIRMAP_NO_MEMORY() PyErr_NoMemory()
#else
#include <stdlib.h>
#define PAIRMAP_MALLOC malloc
#define PAIRMAP_FREE free
#define PAIRMAP_NO_MEMORY() ((void)0)
#endif
#include <stddef.h>
#include <stdint.h>

#include "hash.h"

#define PAIR(a, b) (((uint64_t)(uint32_t)(a) << 32) | (uint32_t)(b))

typedef struct {
    uint64_t key; /* (a << 32) | b; EMPTY_KEY when free */
    int64_t value;
} PairSlot;

#define EMPTY_KEY UINT64_MAX

typedef struct {
    PairSlot *slots;
    size_t mask, used;
} PairMap;

static inline int
pairmap_init(PairMap *m, size_t capacity)
{
    size_t size = 1024;
    while (size < capacity * 2) size <<= 1;
    m->slots = (PairSlot *)PAIRMAP_MALLOC(size * sizeof(PairSlot));
    if (!m->slots) {
        PAIRMAP_NO_MEMORY();
        return -1;
    }
    for (size_t i = 0; i < size; i++) m->slots[i].key = EMPTY_KEY;
    m->mask = size - 1;
    m->used = 0;
    return 0;
}

static inline size_t
pair_hash(uint64_t key)
{
    return (size_t)mix64(key);
}

/* The slot of key, inserted with value 0 when missing; NULL on memory error. */
static inline PairSlot *
pairmap_slot(PairMap *m, uint64_t key)
{
    size_t i = pair_hash(key) & m->mask;
    while (m->slots[i].key != EMPTY_KEY && m->slots[i].key != key) i = (i + 1) & m->mask;
    if (m->slots[i].key == key) return &m->slots[i];
    if ((m->used + 1) * 2 > m->mask) {
        PairMap bigger;
        if (pairmap_init(&bigger, m->mask + 1) < 0) return NULL;
        for (size_t j = 0; j <= m->mask; j++) {
            if (m->slots[j].key == EMPTY_KEY) continue;
            size_t k = pair_hash(m->slots[j].key) & bigger.mask;
            while (bigger.slots[k].key != EMPTY_KEY) k = (k + 1) & bigger.mask;
            bigger.slots[k] = m->slots[j];
        }
        bigger.used = m->used;
        PAIRMAP_FREE(m->slots);
        *m = bigger;
        return pairmap_slot(m, key);
    }
    m->slots[i].key = key;
    m->slots[i].value = 0;
    m->used++;
    return &m->slots[i];
}

/* The value stored for the pair (a, b), or -1 (values stored are >= 0). */
static inline int64_t
pair_value(const PairMap *m, int32_t a, int32_t b)
{
    uint64_t key = PAIR(a, b);
    size_t i = pair_hash(key) & m->mask;
    while (m->slots[i].key != EMPTY_KEY) {
        if (m->slots[i].key == key) return m->slots[i].value;
        i = (i + 1) & m->mask;
    }
    return -1;
}

#endif
