/* csrc/pair_map.h: a map from a pair of token ids to a count or a rank, by open addressing. Shared by
 * the BPE trainer's merge loop (pair counts) and the BPE model (merge ranks). */
#ifndef KVEC_PAIR_MAP_H
#define KVEC_PAIR_MAP_H

#include <Python.h>
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
    m->slots = PyMem_Malloc(size * sizeof(PairSlot));
    if (!m->slots) {
        PyErr_NoMemory();
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
        PyMem_Free(m->slots);
        *m = bigger;
        return pairmap_slot(m, key);
    }
    m->slots[i].key = key;
    m->slots[i].value = 0;
    m->used++;
    return &m->slots[i];
}

#endif
