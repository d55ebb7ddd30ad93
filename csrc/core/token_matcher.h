/* csrc/core/token_matcher.h: finding added and special tokens in a text, leftmost then longest, as
 * kvec.added_vocabulary matches them, without Python. */
#ifndef KVEC_CORE_TOKEN_MATCHER_H
#define KVEC_CORE_TOKEN_MATCHER_H

#include "int64s.h"
#include "piece_map.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    PieceMap tokens;       /* token -> id */
    uint32_t *firsts;      /* the tokens' first code points, sorted, without repeats */
    ptrdiff_t *lengths;    /* the tokens' lengths, longest first, without repeats */
    size_t n_firsts, n_lengths, n_tokens;
    uint8_t starts_bmp[8192]; /* bit c: a token starts with c (c < 0x10000), tested before the search */
} TokenMatcher;

/* A matcher for about `expected` tokens; -1 when out of memory. */
int token_matcher_init(TokenMatcher *matcher, size_t expected);
void token_matcher_free(TokenMatcher *matcher);

/* Adds a token (not empty) with its id; -1 when out of memory. Call token_matcher_ready once after. */
int token_matcher_add(TokenMatcher *matcher, const uint32_t *token, ptrdiff_t length, int64_t id);
void token_matcher_ready(TokenMatcher *matcher);

/* The start of the leftmost token in cps[from .. n), the longest there: its length in *length and id
 * in *id; n when there is none. O(n - from) positions; one where a token starts hashes a candidate of
 * each distinct token length, so its cost is the sum of those lengths (the description's, not the
 * text's). */
ptrdiff_t token_matcher_find(const TokenMatcher *matcher, const uint32_t *cps, ptrdiff_t from, ptrdiff_t n,
                             ptrdiff_t *length, int64_t *id);

#ifdef __cplusplus
}
#endif

#endif
