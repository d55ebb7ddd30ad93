/* csrc/core/hash.h: the hash functions every kvec extension uses, written once: FNV-1a over code points,
 * finished (or used alone, for integer keys) by a 64-bit mixer so that open-addressing tables can take
 * the low bits. */
#ifndef KVEC_HASH_H
#define KVEC_HASH_H

#include <stdint.h>

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

/* MurmurHash3's finalizer: every input bit reaches every output bit. */
static inline uint64_t
mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

#endif
