/* csrc/core/piece_map.c: see piece_map.h. Open addressing with linear probing, at most half full. */
#include "piece_map.h"

#include <stdlib.h>
#include <string.h>

int
piece_map_init(PieceMap *map, size_t expected)
{
    size_t size = 64;
    while (size < expected * 2) size <<= 1;
    memset(map, 0, sizeof(*map));
    map->slots = calloc(size, sizeof(PieceSlot));
    if (!map->slots) return -1;
    map->mask = size - 1;
    return 0;
}

void
piece_map_free(PieceMap *map)
{
    free(map->slots);
    free(map->pool);
    memset(map, 0, sizeof(*map));
}

/* Whether a[0 .. n) and b[0 .. n) hold the same code points, 0 < n <= PIECE_MAP_READ_AHEAD, each
 * followed by PIECE_MAP_READ_AHEAD - n code points that may be read: all of them are read, 8 bytes at a
 * time, those past n masked off, so that the length takes no branch. */
static inline int
same_short_key(const uint32_t *a, const uint32_t *b, size_t n)
{
    static const uint64_t HALVES[3] = {0, 0xffffffffu, UINT64_MAX}; /* a lane of 0, 1 or 2 code points */
    uint64_t differ = 0;
    for (size_t k = 0; k < PIECE_MAP_READ_AHEAD / 2; k++) {
        uint64_t x, y;
        size_t held = n > 2 * k ? n - 2 * k : 0;
        memcpy(&x, a + 2 * k, sizeof(x));
        memcpy(&y, b + 2 * k, sizeof(y));
        differ |= (x ^ y) & HALVES[held < 2 ? held : 2];
    }
    return differ == 0;
}

/* Whether the slot holds `key`; `read_ahead`: key is UTF-32, at most PIECE_MAP_READ_AHEAD code points,
 * and may be read up to that many (same_short_key). */
static inline int
same_key(const PieceMap *map, const PieceSlot *slot, const CodePoints *key, int read_ahead)
{
    if (slot->length != (uint64_t)key->length) return 0;
    const uint32_t *stored = map->pool + slot->key;
    if (read_ahead) return same_short_key(stored, key->data, slot->length);
    if (key->kind == 4) return memcmp(stored, key->data, sizeof(uint32_t) * slot->length) == 0;
    for (uint32_t i = 0; i < slot->length; i++)
        if (stored[i] != code_point_at(key->kind, key->data, i)) return 0;
    return 1;
}

static inline size_t
find(const PieceMap *map, const CodePoints *key, uint64_t hash, int read_ahead)
{
    size_t i = (size_t)hash & map->mask;
    for (;;) {
        const PieceSlot *slot = &map->slots[i];
        if (!slot->length || (slot->hash == hash && same_key(map, slot, key, read_ahead))) return i;
        i = (i + 1) & map->mask;
    }
}

const int64_t *
piece_map_get_read_ahead(const PieceMap *map, const uint32_t *key, ptrdiff_t n, uint64_t hash)
{
    CodePoints whole = {4, key, n};
    const PieceSlot *slot = &map->slots[find(map, &whole, hash, n <= PIECE_MAP_READ_AHEAD)];
    return slot->length ? &slot->value : NULL;
}

const int64_t *
piece_map_get(const PieceMap *map, const CodePoints *key, uint64_t hash)
{
    const PieceSlot *slot = &map->slots[find(map, key, hash, 0)];
    return slot->length ? &slot->value : NULL;
}

static int
grow(PieceMap *map)
{
    size_t size = (map->mask + 1) * 2;
    PieceSlot *slots = calloc(size, sizeof(PieceSlot));
    if (!slots) return -1;
    for (size_t i = 0; i <= map->mask; i++) {
        PieceSlot *slot = &map->slots[i];
        if (!slot->length) continue;
        size_t j = (size_t)slot->hash & (size - 1);
        while (slots[j].length) j = (j + 1) & (size - 1);
        slots[j] = *slot;
    }
    free(map->slots);
    map->slots = slots;
    map->mask = size - 1;
    return 0;
}

int
piece_map_add(PieceMap *map, const CodePoints *key, uint64_t hash, int64_t value)
{
    if (key->length <= 0) return -1;
    size_t i = find(map, key, hash, 0);
    if (map->slots[i].length) return 0;
    size_t length = (size_t)key->length;
    if (length > UINT32_MAX - map->pool_used) return -1;
    if (map->pool_used + length + PIECE_MAP_READ_AHEAD > map->pool_capacity) {
        size_t capacity = map->pool_capacity ? map->pool_capacity : 1024;
        while (capacity < map->pool_used + length + PIECE_MAP_READ_AHEAD) capacity *= 2;
        uint32_t *pool = realloc(map->pool, sizeof(uint32_t) * capacity);
        if (!pool) return -1;
        memset(pool + map->pool_capacity, 0, sizeof(uint32_t) * (capacity - map->pool_capacity));
        map->pool = pool;
        map->pool_capacity = capacity;
    }
    uint32_t *stored = map->pool + map->pool_used;
    for (size_t k = 0; k < length; k++) stored[k] = code_point_at(key->kind, key->data, (ptrdiff_t)k);
    map->slots[i] = (PieceSlot){hash, value, (uint32_t)map->pool_used, (uint32_t)length};
    map->pool_used += length;
    if (++map->used * 2 > map->mask && grow(map) < 0) return -1;
    return 1;
}
