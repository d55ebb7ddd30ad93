/* csrc/core/char_map.h: a normalizer that works character by character, as a complete table of what
 * each code point becomes, without Python. kvec/native_spec.py writes it by asking the normalizer's
 * own character rule (kvec.contracts.Normalizer.character_rule) about every code point, so the table
 * and the Python normalizer never disagree; a normalizer with contextual characters has no table.
 *
 * The 0x1100 pages of 256 code points share their entries where they are equal (most pages are). An
 * entry is CHAR_SAME, or the place in `pool` of a replacement: its length, then its code points. A
 * replacement holds at most CHAR_LONGEST_REPLACEMENT code points: Unicode's longest decomposition is 18
 * (NFKD of U+FDFA), and the bound leaves room for a Replace of one character among the stages; so one
 * code point becomes at most 32, and a text at most 32 times its length.
 *
 * Python's str.lower has one contextual rule, which a map of single characters cannot hold: a capital
 * sigma U+03A3 becomes the final sigma U+03C2 when a cased character comes before it (case-ignorable
 * ones skipped) and none comes after it (the same), else U+03C3. With `final_sigma` set, the map
 * applies that rule, from the sorted code point ranges of the characters Python counts as cased (and
 * not case-ignorable) and as case-ignorable; they are the only two properties the rule reads. */
#ifndef KVEC_CORE_CHAR_MAP_H
#define KVEC_CORE_CHAR_MAP_H

#include "int64s.h"
#include "code_points.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CHAR_PAGES 0x1100
#define CHAR_SAME 0xFFFFFFFFu
#define CHAR_LONGEST_REPLACEMENT 32

typedef struct {
    uint32_t page_of[CHAR_PAGES]; /* page -> its entries: entries[page_of[p] * 256 ...] */
    uint32_t *entries;
    uint32_t *pool;
    size_t n_pages, pool_length;
    int final_sigma;
    uint32_t *cased, *ignorable; /* [first, last] pairs, sorted */
    size_t n_cased, n_ignorable;  /* pairs */
} CharMap;

/* The normalized form of cps[0 .. n) written to *out (grown with realloc, *capacity code points); its
 * length, -1 when out of memory, or -2 when it would be longer than `limit` (nothing is allocated past
 * it). O(n + output): a final sigma looks over the case-ignorable characters around it, and each run of
 * them is looked over by the two sigmas at its ends at most. */
ptrdiff_t char_map_apply(const CharMap *map, const uint32_t *cps, ptrdiff_t n, ptrdiff_t limit, uint32_t **out,
                         ptrdiff_t *capacity);

/* What the capital sigma at text[i] becomes by Python's Final_Sigma rule (the map's final_sigma set). */
uint32_t char_map_sigma(const CharMap *map, const CodePoints *text, ptrdiff_t i);

/* NULL when the map is whole: every page and entry in range, every replacement inside the pool, at most
 * CHAR_LONGEST_REPLACEMENT long and made of code points, the ranges sorted; else what is wrong. O(pages
 * + entries + pool + ranges): the pool is checked once, whatever number of entries point into it. */
const char *char_map_check(const CharMap *map);

#ifdef __cplusplus
}
#endif

#endif
