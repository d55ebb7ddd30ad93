/* csrc/core/code_points.h: a run of code points as kvec's native core reads it, without Python.
 *
 * The core (csrc/core/) is the one implementation of every rule that runs outside Python too: the
 * Python extensions hand it views of str objects (kind 1, 2 or 4 bytes per code point, as CPython
 * stores them), and the TensorFlow kernels (csrc/tf/) views of decoded UTF-8. */
#ifndef KVEC_CORE_CODE_POINTS_H
#define KVEC_CORE_CODE_POINTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "hash.h"

typedef struct {
    int kind;         /* bytes per code point: 1, 2 or 4 */
    const void *data; /* the first code point */
    ptrdiff_t length;
} CodePoints;

static inline uint32_t
code_point_at(int kind, const void *data, ptrdiff_t i)
{
    if (kind == 1) return ((const uint8_t *)data)[i];
    if (kind == 2) return ((const uint16_t *)data)[i];
    return ((const uint32_t *)data)[i];
}

/* code points [start, start + length) of `whole` */
static inline CodePoints
code_points_slice(const CodePoints *whole, ptrdiff_t start, ptrdiff_t length)
{
    CodePoints part = {whole->kind, (const char *)whole->data + start * whole->kind, length};
    return part;
}

/* The same value for the same code points whatever the storage kind: FNV-1a over the code points,
 * then the length folded in, so that a scan can hash a word while it reads it (hash_step, then
 * hash_end once the word's length is known). */
static inline uint64_t
hash_step(uint64_t h, uint32_t c)
{
    return (h ^ c) * FNV_PRIME;
}

static inline uint64_t
hash_end(uint64_t h, ptrdiff_t length)
{
    return mix64(h ^ (uint64_t)length);
}

static inline uint64_t
code_points_hash(const CodePoints *w)
{
    uint64_t h = FNV_OFFSET;
    if (w->kind == 1) {
        const uint8_t *p = (const uint8_t *)w->data;
        for (ptrdiff_t i = 0; i < w->length; i++) h = hash_step(h, p[i]);
    } else {
        for (ptrdiff_t i = 0; i < w->length; i++) h = hash_step(h, code_point_at(w->kind, w->data, i));
    }
    return hash_end(h, w->length);
}

/* Room for `needed` code points in *buffer (grown with realloc, *capacity code points); -1 when out
 * of memory. */
static inline int
code_points_reserve(uint32_t **buffer, ptrdiff_t *capacity, ptrdiff_t needed)
{
    if (needed <= *capacity) return 0;
    ptrdiff_t size = *capacity ? *capacity : 256;
    while (size < needed) size *= 2;
    uint32_t *grown = (uint32_t *)realloc(*buffer, sizeof(uint32_t) * (size_t)size);
    if (!grown) return -1;
    *buffer = grown;
    *capacity = size;
    return 0;
}

/* A set of code points as a sorted array, searched by bisection. */
static int
code_point_order(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* cps[0 .. n) sorted, repeats removed; how many are kept */
static inline size_t
code_point_set_make(uint32_t *cps, size_t n)
{
    qsort(cps, n, sizeof(uint32_t), code_point_order);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || cps[kept - 1] != cps[i]) cps[kept++] = cps[i];
    return kept;
}

static inline int
code_point_set_has(const uint32_t *set, size_t n, uint32_t c)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (set[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && set[lo] == c;
}

#endif
