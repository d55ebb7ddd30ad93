/* csrc/core/unigram_path.c: see unigram_path.h. */
#include "unigram_path.h"

#include <stdlib.h>
#include <string.h>

#include "utf8.h"

void
unigram_path_free(UnigramPath *s)
{
    free(s->best);
    free(s->from);
    free(s->piece_at);
    free(s->path);
    memset(s, 0, sizeof(*s));
}

int
unigram_path_fit(UnigramPath *s, ptrdiff_t n)
{
    if (n + 1 <= s->positions) return 0;
    ptrdiff_t size = s->positions ? s->positions : 64;
    while (size < n + 1) size *= 2;
    float *best = realloc(s->best, (size_t)size * sizeof(float));
    if (best) s->best = best;
    int32_t *from = realloc(s->from, (size_t)size * sizeof(int32_t));
    if (from) s->from = from;
    int32_t *piece_at = realloc(s->piece_at, (size_t)size * sizeof(int32_t));
    if (piece_at) s->piece_at = piece_at;
    if (!best || !from || !piece_at) return -1;
    s->positions = size;
    return 0;
}

void
unigram_model_free(UnigramModel *m)
{
    unigram_trie_free(&m->trie);
    free(m->chars);
    m->chars = NULL;
}

/* Scores are taken relative to a position again past this size, as sentencepiece (0.2) does, so that
 * float32 keeps its precision over long texts. */
#define SCORE_RESET 100000.0f

/* The trie is walked from each start position and each edge scored as it is found, none stored. */
static inline __attribute__((always_inline)) float
best_path_of_kind(const UnigramTrie *trie, UnigramPath *s, const int kind, const void *data, ptrdiff_t n,
                  int32_t skip_piece, float unknown)
{
    float *best = s->best;
    int32_t *from = s->from, *piece_at = s->piece_at;
    for (ptrdiff_t q = 0; q <= n; q++) from[q] = -1;
    best[0] = 0.0f;
    ptrdiff_t frontier = 0; /* the furthest end position reached so far */
    for (ptrdiff_t start = 0; start < n; start++) {
        if (start > 0 && from[start] < 0) continue; /* unreachable */
        float base = best[start];
        if (base < -SCORE_RESET || base > SCORE_RESET) { /* every score reached from here on shifts alike */
            for (ptrdiff_t q = start; q <= frontier; q++)
                if (q == start || from[q] >= 0) best[q] -= base;
            base = 0.0f;
        }
        ptrdiff_t stop = start + trie->longest < n ? start + trie->longest : n;
        UnigramWalk walk = UNIGRAM_WALK_START;
        int single = 0;
        for (ptrdiff_t end = start + 1; end <= stop; end++) {
            int32_t piece = unigram_trie_step(trie, &walk, code_point_at(kind, data, end - 1));
            if (piece == UNIGRAM_DEAD_END) break;
            if (piece < 0) continue;
            if (end == start + 1) single = 1;
            if (piece == skip_piece && start == 0 && end == n) continue;
            if (end > frontier) frontier = end;
            float score = base + trie->nodes[walk.node].score;
            if (from[end] < 0 || score > best[end]) {
                best[end] = score;
                from[end] = (int32_t)start;
                piece_at[end] = piece;
            }
        }
        if (!single) { /* an unknown character: the one edge from here to the next position */
            if (start + 1 > frontier) frontier = start + 1;
            float score = base + unknown;
            if (from[start + 1] < 0 || score > best[start + 1]) {
                best[start + 1] = score;
                from[start + 1] = (int32_t)start;
                piece_at[start + 1] = -1;
            }
        }
    }
    return best[n];
}

float
unigram_best_path(const UnigramTrie *trie, UnigramPath *s, const CodePoints *text, int32_t skip_piece, float unknown)
{
    /* one copy of the loop per storage kind, each reading its characters directly */
    if (text->kind == 1) return best_path_of_kind(trie, s, 1, text->data, text->length, skip_piece, unknown);
    if (text->kind == 2) return best_path_of_kind(trie, s, 2, text->data, text->length, skip_piece, unknown);
    return best_path_of_kind(trie, s, 4, text->data, text->length, skip_piece, unknown);
}

ptrdiff_t
unigram_byte_pieces(const UnigramModel *m, const CodePoints *text, ptrdiff_t start, ptrdiff_t end, int32_t *ids)
{
    ptrdiff_t count = 0;
    unsigned char bytes[4];
    for (ptrdiff_t i = start; i < end; i++) {
        int n = utf8_of(code_point_at(text->kind, text->data, i), bytes);
        for (int k = 0; k < n; k++) {
            if (m->byte_ids[bytes[k]] < 0) return 0;
            ids[count++] = m->byte_ids[bytes[k]];
        }
    }
    return count;
}

int
unigram_ids(const UnigramModel *m, UnigramPath *s, const CodePoints *text, Int64s *out, ptrdiff_t *unknown_at)
{
    ptrdiff_t n = text->length, count = 0;
    if (n == 0) return 0;
    if (n > INT32_MAX - 1 || unigram_path_fit(s, n) < 0) return -1;
    unigram_best_path(&m->trie, s, text, -1, (float)m->unk_score);
    for (ptrdiff_t q = n; q > 0; q = s->from[q]) count++;
    if (count > s->path_capacity) {
        UnigramEdge *grown = realloc(s->path, sizeof(UnigramEdge) * (size_t)count);
        if (!grown) return -1;
        s->path = grown;
        s->path_capacity = count;
    }
    for (ptrdiff_t q = n, k = count; q > 0; q = s->from[q])
        s->path[--k] = (UnigramEdge){s->from[q], (int32_t)q, s->piece_at[q]};
    ptrdiff_t unknown_end = -1; /* where the last unknown token given out ends: a run of them fuses */
    for (ptrdiff_t k = 0; k < count; k++) {
        const UnigramEdge *e = &s->path[k];
        if (e->piece >= 0) {
            if (int64s_push(out, e->piece) < 0) return -1;
            unknown_end = -1;
            continue;
        }
        int32_t bytes[4]; /* an unknown edge spans one character */
        ptrdiff_t n_bytes = m->has_bytes ? unigram_byte_pieces(m, text, e->start, e->start + 1, bytes) : 0;
        if (n_bytes > 0) {
            for (ptrdiff_t b = 0; b < n_bytes; b++)
                if (int64s_push(out, bytes[b]) < 0) return -1;
            unknown_end = -1;
            continue;
        }
        if (m->unk_id < 0) {
            *unknown_at = e->start;
            return 1;
        }
        if (unknown_end != e->start && int64s_push(out, m->unk_id) < 0) return -1;
        unknown_end = e->end;
    }
    return 0;
}
