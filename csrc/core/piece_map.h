/* csrc/core/piece_map.h: a hash map from strings of code points to int64 values, without Python: the
 * vocabularies of the core's models. Keys are copied into the map as UTF-32; a probe hashes the word
 * it is given (any CodePoints kind) and compares code points, so looking a word up makes no copy. */
#ifndef KVEC_CORE_PIECE_MAP_H
#define KVEC_CORE_PIECE_MAP_H

#include "int64s.h"
#include "code_points.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t hash;
    int64_t value;
    uint32_t key, length; /* the key's code points: pool[key : key + length]; length 0: empty slot */
} PieceSlot;

typedef struct {
    PieceSlot *slots;
    size_t mask, used;
    uint32_t *pool;
    size_t pool_used, pool_capacity;
} PieceMap;

/* An empty map sized for about `expected` keys; -1 when out of memory. */
int piece_map_init(PieceMap *map, size_t expected);
void piece_map_free(PieceMap *map);

/* Adds `key` (not empty, hash code_points_hash(key)) with `value` unless it is there: 1 added, 0 there
 * already (its value kept), -1 when out of memory or the map is full (2**32 code points of keys). */
int piece_map_add(PieceMap *map, const CodePoints *key, uint64_t hash, int64_t value);

/* The value of `key` (hash code_points_hash(key)), or NULL. */
const int64_t *piece_map_get(const PieceMap *map, const CodePoints *key, uint64_t hash);

/* Code points that may be read past a key of up to as many: the pool keeps them after its last key. */
#define PIECE_MAP_READ_AHEAD 8

/* piece_map_get for a key of n UTF-32 code points followed by PIECE_MAP_READ_AHEAD - n that may be
 * read (when n is less): a short key is compared without a call or a branch on its length. */
const int64_t *piece_map_get_read_ahead(const PieceMap *map, const uint32_t *key, ptrdiff_t n, uint64_t hash);

/* Hints for probing many keys at once: the first slot of `hash` fetched into the cache ahead of a
 * piece_map_get, then (once that slot is at hand) the stored key it names when its hash is `hash`. Each
 * only reads; a big map's probes then wait on memory side by side rather than one after the other. */
static inline void
piece_map_prefetch(const PieceMap *map, uint64_t hash)
{
#if defined(__GNUC__)
    __builtin_prefetch(&map->slots[(size_t)hash & map->mask]);
#else
    (void)map;
    (void)hash;
#endif
}

static inline void
piece_map_prefetch_key(const PieceMap *map, uint64_t hash)
{
#if defined(__GNUC__)
    const PieceSlot *slot = &map->slots[(size_t)hash & map->mask];
    if (slot->length && slot->hash == hash) __builtin_prefetch(map->pool + slot->key);
#else
    (void)map;
    (void)hash;
#endif
}

#ifdef __cplusplus
}
#endif

#endif
