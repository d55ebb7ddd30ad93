/* csrc/core/unigram_path.c: see unigram_path.h. */
#include "unigram_path.h"

#include <stdlib.h>
#include <string.h>

#include "utf8.h"

void
unigram_path_free(UnigramPath *s)
{
    free(s->best);
    free(s->best_wide);
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
    double *best_wide = realloc(s->best_wide, (size_t)size * sizeof(double));
    if (best_wide) s->best_wide = best_wide;
    int32_t *from = realloc(s->from, (size_t)size * sizeof(int32_t));
    if (from) s->from = from;
    int32_t *piece_at = realloc(s->piece_at, (size_t)size * sizeof(int32_t));
    if (piece_at) s->piece_at = piece_at;
    if (!best || !best_wide || !from || !piece_at) return -1;
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

/* The trie is walked from each start position and each edge scored as it is found, none stored. One
 * copy of the loop per storage kind and rule: `wide` (Hugging Face) sums doubles and never resets. */
static inline __attribute__((always_inline)) double
best_path_of_kind(const UnigramTrie *trie, UnigramPath *s, const int kind, const int wide, const void *data,
                  ptrdiff_t n, int32_t skip_piece, double unknown)
{
    float *best = s->best;
    double *best_wide = s->best_wide;
    int32_t *from = s->from, *piece_at = s->piece_at;
    const float unknown_narrow = (float)unknown;
    for (ptrdiff_t q = 0; q <= n; q++) from[q] = -1;
    if (wide) best_wide[0] = 0.0;
    else best[0] = 0.0f;
    for (ptrdiff_t start = 0; start < n; start++) {
        if (start > 0 && from[start] < 0) continue; /* unreachable */
        float base = wide ? 0.0f : best[start];
        double base_wide = wide ? best_wide[start] : 0.0;
        ptrdiff_t stop = start + trie->longest < n ? start + trie->longest : n;
        if (!wide && (base < -SCORE_RESET || base > SCORE_RESET)) { /* every score reached from here on shifts */
            for (ptrdiff_t q = start; q <= stop; q++) /* alike; none is reached past stop yet */
                if (q == start || from[q] >= 0) best[q] -= base;
            base = 0.0f;
        }
        UnigramWalk walk = UNIGRAM_WALK_START;
        int single = 0;
        for (ptrdiff_t end = start + 1; end <= stop; end++) {
            int32_t piece = unigram_trie_step(trie, &walk, code_point_at(kind, data, end - 1));
            if (piece == UNIGRAM_DEAD_END) break;
            if (piece < 0) continue;
            if (end == start + 1) single = 1;
            if (piece == skip_piece && start == 0 && end == n) continue;
            if (wide) {
                double score = base_wide + trie->wide[walk.node];
                if (from[end] < 0 || score > best_wide[end]) {
                    best_wide[end] = score;
                    from[end] = (int32_t)start;
                    piece_at[end] = piece;
                }
            } else {
                float score = base + trie->nodes[walk.node].score;
                if (from[end] < 0 || score > best[end]) {
                    best[end] = score;
                    from[end] = (int32_t)start;
                    piece_at[end] = piece;
                }
            }
        }
        if (!single) { /* an unknown character: the one edge from here to the next position */
            int better;
            if (wide) {
                double score = base_wide + unknown;
                better = from[start + 1] < 0 || score > best_wide[start + 1];
                if (better) best_wide[start + 1] = score;
            } else {
                float score = base + unknown_narrow;
                better = from[start + 1] < 0 || score > best[start + 1];
                if (better) best[start + 1] = score;
            }
            if (better) {
                from[start + 1] = (int32_t)start;
                piece_at[start + 1] = -1;
            }
        }
    }
    return wide ? best_wide[n] : (double)best[n];
}

double
unigram_best_path(const UnigramTrie *trie, UnigramPath *s, const CodePoints *text, int32_t skip_piece, double unknown,
                  int rule)
{
    const void *data = text->data;
    ptrdiff_t n = text->length;
    if (rule == UNIGRAM_HUGGING_FACE) {
        if (text->kind == 1) return best_path_of_kind(trie, s, 1, 1, data, n, skip_piece, unknown);
        if (text->kind == 2) return best_path_of_kind(trie, s, 2, 1, data, n, skip_piece, unknown);
        return best_path_of_kind(trie, s, 4, 1, data, n, skip_piece, unknown);
    }
    if (text->kind == 1) return best_path_of_kind(trie, s, 1, 0, data, n, skip_piece, unknown);
    if (text->kind == 2) return best_path_of_kind(trie, s, 2, 0, data, n, skip_piece, unknown);
    return best_path_of_kind(trie, s, 4, 0, data, n, skip_piece, unknown);
}

/* Pushes one token: its id, and its span with `with_spans`. */
static inline int
push_token(Int64s *out, int with_spans, int64_t id, ptrdiff_t start, ptrdiff_t end)
{
    if (int64s_push(out, id) < 0) return -1;
    if (with_spans && (int64s_push(out, start) < 0 || int64s_push(out, end) < 0)) return -1;
    return 0;
}

/* The byte pieces of text[start, end), each over [span_start, span_end), where every byte has one;
 * returns 1 when pushed, 0 when some byte has none, -1 when out of memory. */
static int
push_bytes(const UnigramModel *m, const CodePoints *text, ptrdiff_t start, ptrdiff_t end, int with_spans,
           ptrdiff_t span_start, ptrdiff_t span_end, Int64s *out)
{
    unsigned char bytes[4];
    if (!m->has_bytes) return 0;
    for (ptrdiff_t i = start; i < end; i++) {
        int n = utf8_of(code_point_at(text->kind, text->data, i), bytes);
        for (int k = 0; k < n; k++)
            if (m->byte_ids[bytes[k]] < 0) return 0;
    }
    for (ptrdiff_t i = start; i < end; i++) {
        int n = utf8_of(code_point_at(text->kind, text->data, i), bytes);
        for (int k = 0; k < n; k++)
            if (push_token(out, with_spans, m->byte_ids[bytes[k]], span_start, span_end) < 0) return -1;
    }
    return 1;
}

/* unigram_resolve, one copy for ids alone and one with spans */
static inline __attribute__((always_inline)) int
resolve_path(const UnigramModel *m, const CodePoints *text, const UnigramEdge *path, ptrdiff_t count,
             const int with_spans, Int64s *out, ptrdiff_t *unknown_at)
{
    const int hf = m->rule == UNIGRAM_HUGGING_FACE;
    const int32_t unk_piece = hf ? m->unk_id : -1; /* Hugging Face: the unknown piece found in text is unknown */
    ptrdiff_t unknown_end = -1; /* sentencepiece: where the last unknown token given out ends, to fuse */
    ptrdiff_t unk_token = -1;   /* where it lies in out */
    for (ptrdiff_t k = 0; k < count; k++) {
        const UnigramEdge *e = &path[k];
        if (e->piece >= 0 && e->piece != unk_piece) {
            if (push_token(out, with_spans, e->piece, e->start, e->end) < 0) return -1;
            unknown_end = -1;
            continue;
        }
        if (hf) { /* the run of unknown edges from here is one string */
            ptrdiff_t last = k;
            while (last + 1 < count && (path[last + 1].piece < 0 || path[last + 1].piece == m->unk_id)) last++;
            ptrdiff_t start = e->start, end = path[last].end;
            int pushed = 0;
            if (m->unk_id < 0) {
                *unknown_at = start;
                return 1;
            }
            if (!(last == k && e->piece == m->unk_id)) /* else the vocabulary's own unknown piece */
                pushed = push_bytes(m, text, start, end, with_spans, start, end, out);
            if (pushed < 0 || (!pushed && push_token(out, with_spans, m->unk_id, start, end) < 0)) return -1;
            k = last;
            continue;
        }
        int pushed = push_bytes(m, text, e->start, e->end, with_spans, e->start, e->end, out);
        if (pushed < 0) return -1;
        if (pushed) {
            unknown_end = -1;
            continue;
        }
        if (m->unk_id < 0) {
            *unknown_at = e->start;
            return 1;
        }
        if (unknown_end == e->start) { /* a run of unknown characters: one token */
            if (with_spans) out->data[unk_token + 2] = e->end;
        } else {
            unk_token = out->length;
            if (push_token(out, with_spans, m->unk_id, e->start, e->end) < 0) return -1;
        }
        unknown_end = e->end;
    }
    return 0;
}

int
unigram_resolve(const UnigramModel *m, const CodePoints *text, const UnigramEdge *path, ptrdiff_t count,
                int with_spans, Int64s *out, ptrdiff_t *unknown_at)
{
    if (with_spans) return resolve_path(m, text, path, count, 1, out, unknown_at);
    return resolve_path(m, text, path, count, 0, out, unknown_at);
}

int
unigram_ids(const UnigramModel *m, UnigramPath *s, const CodePoints *text, Int64s *out, ptrdiff_t *unknown_at)
{
    ptrdiff_t n = text->length, count = 0;
    if (n == 0) return 0;
    if (n > INT32_MAX - 1 || unigram_path_fit(s, n) < 0) return -1;
    unigram_best_path(&m->trie, s, text, -1, m->unk_score, m->rule);
    for (ptrdiff_t q = n; q > 0; q = s->from[q]) count++;
    const int32_t unk_piece = m->rule == UNIGRAM_HUGGING_FACE ? m->unk_id : -1; /* as resolve_path reads it */
    if (int64s_reserve(out, count) < 0) return -1;
    ptrdiff_t k = count; /* the ids written back to front, while every edge is a known piece's */
    for (ptrdiff_t q = n; q > 0 && s->piece_at[q] >= 0 && s->piece_at[q] != unk_piece; q = s->from[q])
        out->data[out->length + --k] = s->piece_at[q];
    if (k == 0) return out->length += count, 0;
    if (count > s->path_capacity) {
        UnigramEdge *grown = realloc(s->path, sizeof(UnigramEdge) * (size_t)count);
        if (!grown) return -1;
        s->path = grown;
        s->path_capacity = count;
    }
    for (ptrdiff_t q = n, k = count; q > 0; q = s->from[q])
        s->path[--k] = (UnigramEdge){s->from[q], (int32_t)q, s->piece_at[q]};
    return resolve_path(m, text, s->path, count, 0, out, unknown_at);
}
