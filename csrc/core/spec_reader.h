/* csrc/core/spec_reader.h: reading a pipeline description (spec_encoder.h): little-endian values,
 * every read checked against the end; the first error is kept in the Reader and later reads do nothing. */
#ifndef KVEC_CORE_SPEC_READER_H
#define KVEC_CORE_SPEC_READER_H

#include <stdint.h>
#include <stdlib.h>

#include "code_points.h"

typedef struct {
    const unsigned char *at, *end;
    const char *error;
} Reader;

static inline int
has(Reader *r, size_t size)
{
    if (r->error) return 0;
    if ((size_t)(r->end - r->at) < size) {
        r->error = "the description is cut short";
        return 0;
    }
    return 1;
}

static inline uint32_t
read_u32(Reader *r)
{
    if (!has(r, 4)) return 0;
    uint32_t v = (uint32_t)r->at[0] | (uint32_t)r->at[1] << 8 | (uint32_t)r->at[2] << 16 | (uint32_t)r->at[3] << 24;
    r->at += 4;
    return v;
}

static inline int32_t
read_id32(Reader *r)
{
    uint32_t v = read_u32(r);
    if (v > INT32_MAX && !r->error) r->error = "an id is out of range";
    return (int32_t)v;
}

static inline int64_t
read_i64(Reader *r)
{
    if (!has(r, 8)) return 0;
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--) v = v << 8 | r->at[k];
    r->at += 8;
    return (int64_t)v;
}

/* n u32 values into a new array (NULL on error, or for n == 0 a 1-value array) */
static inline uint32_t *
read_u32s(Reader *r, size_t n)
{
    if (n > (size_t)(r->end - r->at) / 4) {
        if (!r->error) r->error = "the description is cut short";
        return NULL;
    }
    uint32_t *values = malloc(sizeof(uint32_t) * (n ? n : 1));
    if (!values) {
        r->error = "out of memory";
        return NULL;
    }
    for (size_t i = 0; i < n; i++) values[i] = read_u32(r);
    return values;
}

/* a code point string, checked: not empty, every value a code point */
static inline uint32_t *
read_string(Reader *r, uint32_t *length)
{
    *length = read_u32(r);
    if (r->error) return NULL;
    if (*length == 0) {
        r->error = "a token or piece is empty";
        return NULL;
    }
    uint32_t *s = read_u32s(r, *length);
    for (uint32_t i = 0; s && i < *length; i++)
        if (s[i] > 0x10FFFF) r->error = "a token or piece holds a value past U+10FFFF";
    if (r->error) {
        free(s);
        return NULL;
    }
    return s;
}

/* u32 length, then that many code points (none: NULL) */
static inline uint32_t *
read_code_points(Reader *r, ptrdiff_t *length)
{
    uint32_t n = read_u32(r);
    *length = 0;
    if (r->error || n == 0) return NULL;
    uint32_t *s = read_u32s(r, n);
    for (uint32_t i = 0; s && i < n; i++)
        if (s[i] > 0x10FFFF && !r->error) r->error = "a prefix holds a value past U+10FFFF";
    if (s) *length = n;
    return s; /* freed by spec_encoder_free, error or not */
}

static inline int64_t
read_id(Reader *r)
{
    int64_t id = read_i64(r);
    if (id < 0 && !r->error) r->error = "an id is negative";
    return id;
}

/* A u32 count of entries of at least `entry_size` bytes each, checked against what is left. */
static inline uint32_t
read_count(Reader *r, size_t entry_size)
{
    uint32_t n = read_u32(r);
    if (!r->error && n > (size_t)(r->end - r->at) / entry_size) r->error = "the description is cut short";
    return r->error ? 0 : n;
}

/* n entries (u32 length, u32 code points[], i64 id), each given to add(target, entry, id, index);
 * add returns -1 when out of memory. */
static inline void
read_entries(Reader *r, uint32_t n, int (*add)(void *, const CodePoints *, int64_t, uint32_t), void *target)
{
    for (uint32_t i = 0; i < n && !r->error; i++) {
        uint32_t length;
        uint32_t *string = read_string(r, &length);
        int64_t id = read_id(r);
        CodePoints entry = {4, string, length};
        if (string && !r->error && add(target, &entry, id, i) < 0) r->error = "out of memory";
        free(string);
    }
}

#endif
