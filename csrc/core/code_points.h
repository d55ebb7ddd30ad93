/* csrc/core/code_points.h: a run of code points as kvec's native core reads it, without Python.
 *
 * The core (csrc/core/) is the one implementation of every rule that runs outside Python too: the
 * Python extensions hand it views of str objects (kind 1, 2 or 4 bytes per code point, as CPython
 * stores them), and the TensorFlow kernels (csrc/tf/) views of decoded UTF-8. */
#ifndef KVEC_CORE_CODE_POINTS_H
#define KVEC_CORE_CODE_POINTS_H

#include <stddef.h>
#include <stdint.h>

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

#endif
