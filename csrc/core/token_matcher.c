/* csrc/core/token_matcher.c: see token_matcher.h. */
#include "token_matcher.h"

#include <stdlib.h>
#include <string.h>

int
token_matcher_init(TokenMatcher *matcher, size_t expected)
{
    memset(matcher, 0, sizeof(*matcher));
    matcher->firsts = malloc(sizeof(uint32_t) * (expected ? expected : 1));
    matcher->lengths = malloc(sizeof(ptrdiff_t) * (expected ? expected : 1));
    if (!matcher->firsts || !matcher->lengths || piece_map_init(&matcher->tokens, expected) < 0) {
        free(matcher->firsts);
        free(matcher->lengths);
        return -1;
    }
    return 0;
}

void
token_matcher_free(TokenMatcher *matcher)
{
    if (matcher->firsts) piece_map_free(&matcher->tokens);
    free(matcher->firsts);
    free(matcher->lengths);
    memset(matcher, 0, sizeof(*matcher));
}

int
token_matcher_add(TokenMatcher *matcher, const uint32_t *token, ptrdiff_t length, int64_t id)
{
    CodePoints key = {4, token, length};
    int added = piece_map_add(&matcher->tokens, &key, code_points_hash(&key), id);
    if (added <= 0) return added;
    size_t n = matcher->n_tokens++;
    uint32_t *firsts = realloc(matcher->firsts, sizeof(uint32_t) * (n + 1));
    ptrdiff_t *lengths = firsts ? realloc(matcher->lengths, sizeof(ptrdiff_t) * (n + 1)) : NULL;
    if (firsts) matcher->firsts = firsts;
    if (lengths) matcher->lengths = lengths;
    if (!firsts || !lengths) return -1;
    matcher->firsts[matcher->n_firsts++] = token[0];
    matcher->lengths[matcher->n_lengths++] = length;
    return 0;
}

static int
descending(const void *x, const void *y)
{
    ptrdiff_t a = *(const ptrdiff_t *)x, b = *(const ptrdiff_t *)y;
    return (a < b) - (a > b);
}

void
token_matcher_ready(TokenMatcher *matcher)
{
    matcher->n_firsts = code_point_set_make(matcher->firsts, matcher->n_firsts);
    for (size_t i = 0; i < matcher->n_firsts; i++) {
        uint32_t c = matcher->firsts[i];
        if (c < 0x10000) matcher->starts_bmp[c >> 3] |= (uint8_t)(1u << (c & 7));
    }
    size_t kept = 0;
    qsort(matcher->lengths, matcher->n_lengths, sizeof(ptrdiff_t), descending);
    for (size_t i = 0; i < matcher->n_lengths; i++)
        if (!kept || matcher->lengths[kept - 1] != matcher->lengths[i]) matcher->lengths[kept++] = matcher->lengths[i];
    matcher->n_lengths = kept;
}

static int
is_first(const TokenMatcher *matcher, uint32_t c)
{
    if (c < 0x10000) return matcher->starts_bmp[c >> 3] >> (c & 7) & 1;
    return code_point_set_has(matcher->firsts, matcher->n_firsts, c);
}

/* A place in cps[i .. n) at or before the first code point that may start a token: with at most two
 * firsts (the usual special tokens'), blocks of 16 code points holding neither are passed over at once,
 * four lanes to a compare. */
static ptrdiff_t
skip_blocks(const TokenMatcher *matcher, const uint32_t *cps, ptrdiff_t i, ptrdiff_t n)
{
#if defined(__GNUC__) /* elsewhere no block is passed over */
    typedef uint32_t Lanes __attribute__((vector_size(16)));
    if (matcher->n_firsts > 2) return i;
    uint32_t a = matcher->firsts[0], b = matcher->firsts[matcher->n_firsts - 1];
    for (; n - i >= 16; i += 16) {
        Lanes v[4], hit = {0};
        memcpy(v, cps + i, sizeof(v));
        for (int k = 0; k < 4; k++) hit |= (Lanes)((v[k] == a) | (v[k] == b));
        if (hit[0] | hit[1] | hit[2] | hit[3]) break;
    }
#endif
    return i;
}

ptrdiff_t
token_matcher_find(const TokenMatcher *matcher, const uint32_t *cps, ptrdiff_t from, ptrdiff_t n, ptrdiff_t *length,
                   int64_t *id)
{
    if (!matcher->n_tokens) return n;
    for (ptrdiff_t i = skip_blocks(matcher, cps, from, n); i < n; i++) {
        if (!is_first(matcher, cps[i])) continue;
        for (size_t k = 0; k < matcher->n_lengths; k++) {
            ptrdiff_t size = matcher->lengths[k];
            if (size > n - i) continue;
            CodePoints candidate = {4, cps + i, size};
            const int64_t *found = piece_map_get(&matcher->tokens, &candidate, code_points_hash(&candidate));
            if (found) {
                *length = size;
                *id = *found;
                return i;
            }
        }
        i = skip_blocks(matcher, cps, i + 1, n) - 1;
    }
    return n;
}
