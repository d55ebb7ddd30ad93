/* csrc/core/precompiled_charsmap.h: sentencepiece's normalizer, the one implementation: kvec._subword's
 * CharsMapTable binds it, the native encoder (spec_encoder.h) runs it as a normalizer.
 *
 * The precompiled character map is a darts-clone double-array trie over UTF-8 keys (little-endian
 * uint32 units) whose values point into a blob of NUL-terminated UTF-8 replacements. At each position a
 * user-defined symbol (the first of the rules' symbols that starts there; give them longest first) is
 * kept as it is, else the longest key of the map that covers whole characters (offered the next
 * CHARSMAP_WINDOW characters) is replaced, else one character is kept. Then sentencepiece's whitespace
 * rules: leading, trailing and repeated spaces removed, a space put first (the dummy prefix), spaces
 * written U+2581. With every rule off the result is the map alone.
 *
 * Every unit is read through a bounds check and every replacement within the blob: a corrupt map gives
 * a wrong replacement or none, never a read outside it; a replacement's bytes that are not UTF-8 are
 * each U+FFFD. */
#ifndef KVEC_CORE_PRECOMPILED_CHARSMAP_H
#define KVEC_CORE_PRECOMPILED_CHARSMAP_H

#include "code_points.h"

#define CHARSMAP_WINDOW 16 /* characters offered to the trie at each position, as sentencepiece */

typedef struct {
    uint32_t *units;
    unsigned char *replacements;
    ptrdiff_t n_units, n_replacements;
    /* shortcuts: an ASCII character is kept as it is when no key is it alone (keyed) and none begins
     * with it and the ASCII character after it (pairs, a bit each); a character of the Basic
     * Multilingual Plane past ASCII when no key begins with its UTF-8 (begins_key, a bit each) */
    unsigned char keyed[128];
    unsigned char pairs[128][128 / 8];
    unsigned char begins_key[0x10000 / 8];
} CharsMap;

typedef struct {
    const CodePoints *symbols; /* user-defined symbols, longest first */
    ptrdiff_t n_symbols;
    int dummy_prefix, remove_extra, escape;
} CharsMapRules;

/* Working memory of charsmap_normalize, kept from text to text; zeroed, it is ready. The result is
 * out[0 .. length) and, with spans, for each output character the input characters [starts, ends) it
 * stands for (the dummy prefix has start == end). */
typedef struct {
    uint32_t *out;
    int64_t *starts, *ends;
    ptrdiff_t out_capacity, starts_capacity, ends_capacity;
    uint32_t *pool; /* a replacement */
    ptrdiff_t pool_length, pool_capacity;
} CharsMapScratch;

/* The map of units[0 .. units_bytes) (whole uint32 values, else -2) and replacements[0 .. n); -1 when
 * out of memory. Nothing to free on error; an empty map keeps every character. */
int charsmap_init(CharsMap *map, const unsigned char *units, size_t units_bytes, const unsigned char *replacements,
                  size_t n);
void charsmap_free(CharsMap *map);

/* The normalized text's length (in s->out), -1 when out of memory, -2 when the map would give more than
 * `limit` code points (the dummy prefix aside). */
ptrdiff_t charsmap_normalize(const CharsMap *map, const CharsMapRules *rules, const CodePoints *text, ptrdiff_t limit,
                             int spans, CharsMapScratch *s);
void charsmap_scratch_free(CharsMapScratch *s);

#endif
