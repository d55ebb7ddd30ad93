/* csrc/core/jieba_cut.c: see jieba_cut.h. */
#include "jieba_cut.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- character classes (jieba's regular expressions) ---- */

/* Python's str.isspace, which `\s` of jieba's expressions matches */
static int
is_space(uint32_t c)
{
    if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
    if (c < 0x85) return 0;
    return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
           c == 0x202f || c == 0x205f || c == 0x3000;
}

/* [a-zA-Z0-9] */
static int
is_ascii_alnum(uint32_t c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

static int
is_ascii_digit(uint32_t c)
{
    return c >= '0' && c <= '9';
}

/* [\u4E00-\u9FD5a-zA-Z0-9+#&\._%\-]: what a block is made of */
static int
is_block(uint32_t c)
{
    return jieba_is_hmm_han(c) || is_ascii_alnum(c) || c == '+' || c == '#' || c == '&' || c == '.' || c == '_' ||
           c == '%' || c == '-';
}

/* ---- the two dictionaries walked together ---- */

typedef struct {
    uint32_t dict, user;
} Walk;

static Walk
walk_start(const JiebaCutter *c)
{
    Walk w = {0, c->user ? 0 : JIEBA_NONE};
    return w;
}

/* One more code point; 0 once the fragment is in neither dictionary. */
static int
walk_step(const JiebaCutter *c, Walk *w, uint32_t cp)
{
    if (w->dict != JIEBA_NONE) w->dict = jieba_dict_child(c->dict, w->dict, cp);
    if (w->user != JIEBA_NONE) w->user = jieba_dict_child(c->user, w->user, cp);
    return w->dict != JIEBA_NONE || w->user != JIEBA_NONE;
}

/* The count of the fragment walked (the user's if it has one), and its log in *log_count. */
static int64_t
walk_count(const JiebaCutter *c, const Walk *w, double *log_count)
{
    if (w->user != JIEBA_NONE && c->user->counts[w->user] != JIEBA_NO_COUNT) {
        *log_count = c->user->log_counts[w->user];
        return c->user->counts[w->user];
    }
    if (w->dict != JIEBA_NONE) {
        *log_count = c->dict->log_counts[w->dict];
        return c->dict->counts[w->dict];
    }
    *log_count = 0.0;
    return 0;
}

int64_t
jieba_count(const JiebaCutter *c, const uint32_t *cps, ptrdiff_t n)
{
    Walk w = walk_start(c);
    for (ptrdiff_t i = 0; i < n; i++)
        if (!walk_step(c, &w, cps[i])) return -1;
    double unused;
    return n > 0 ? walk_count(c, &w, &unused) : -1;
}

/* the word cps[0 .. n) is one jieba's HMM must not give whole (added with count 0) */
static int
is_split(const JiebaCutter *c, const uint32_t *cps, ptrdiff_t n)
{
    if (!c->user || !c->user->n_split) return 0;
    uint32_t node = jieba_dict_find(c->user, cps, n);
    return node != JIEBA_NONE && c->user->split[node];
}

/* ---- output ---- */

static int
emit(Int64s *spans, ptrdiff_t start, ptrdiff_t end)
{
    if (int64s_reserve(spans, 2) < 0) return -1;
    spans->data[spans->length++] = start;
    spans->data[spans->length++] = end;
    return 0;
}

static int
emit_chars(Int64s *spans, ptrdiff_t start, ptrdiff_t end)
{
    for (ptrdiff_t k = start; k < end; k++)
        if (emit(spans, k, k + 1) < 0) return -1;
    return 0;
}

void
jieba_scratch_free(JiebaScratch *s)
{
    free(s->dag_first);
    free(s->dag_ends);
    free(s->dag_logs);
    free(s->route_scores);
    free(s->route_next);
    free(s->states);
    int64s_free(&s->words);
    int64s_free(&s->pieces);
    jieba_viterbi_free(&s->viterbi);
    memset(s, 0, sizeof(*s));
}

static int
reserve_block(JiebaScratch *s, ptrdiff_t n)
{
    if (n + 1 <= s->block_capacity) return 0;
    ptrdiff_t capacity = s->block_capacity ? s->block_capacity : 256;
    while (capacity < n + 1) capacity *= 2;
    if ((size_t)capacity > INT32_MAX) return -1;
    int32_t *first = realloc(s->dag_first, sizeof(int32_t) * (size_t)capacity);
    if (first) s->dag_first = first;
    double *scores = first ? realloc(s->route_scores, sizeof(double) * (size_t)capacity) : NULL;
    if (scores) s->route_scores = scores;
    int32_t *next = scores ? realloc(s->route_next, sizeof(int32_t) * (size_t)capacity) : NULL;
    if (next) s->route_next = next;
    uint8_t *states = next ? realloc(s->states, (size_t)capacity) : NULL;
    if (!states) return -1;
    s->states = states;
    s->block_capacity = capacity;
    return 0;
}

static int
push_dag(JiebaScratch *s, int32_t *used, ptrdiff_t end, double log_count)
{
    if (*used >= s->dag_capacity) {
        ptrdiff_t capacity = s->dag_capacity ? s->dag_capacity * 2 : 1024;
        if ((size_t)capacity > INT32_MAX) return -1;
        int32_t *ends = realloc(s->dag_ends, sizeof(int32_t) * (size_t)capacity);
        if (ends) s->dag_ends = ends;
        double *logs = ends ? realloc(s->dag_logs, sizeof(double) * (size_t)capacity) : NULL;
        if (!logs) return -1;
        s->dag_logs = logs;
        s->dag_capacity = capacity;
    }
    s->dag_ends[*used] = (int32_t)end;
    s->dag_logs[*used] = log_count;
    (*used)++;
    return 0;
}

/* ---- a block ---- */

/* jieba's get_DAG: for each start k, the ends of the dictionary words there (k itself when none). */
static int
build_dag(const JiebaCutter *c, const uint32_t *b, ptrdiff_t n, JiebaScratch *s)
{
    if (reserve_block(s, n) < 0) return -1;
    int32_t used = 0;
    for (ptrdiff_t k = 0; k < n; k++) {
        s->dag_first[k] = used;
        Walk w = walk_start(c);
        for (ptrdiff_t i = k; i < n && walk_step(c, &w, b[i]); i++) {
            double log_count;
            if (walk_count(c, &w, &log_count) > 0 && push_dag(s, &used, i, log_count) < 0) return -1;
        }
        if (used == s->dag_first[k] && push_dag(s, &used, k, 0.0) < 0) return -1; /* log(1) */
    }
    s->dag_first[n] = used;
    return 0;
}

/* jieba's calc: the best route from each start, by dynamic programming from the end. */
static void
find_route(const JiebaCutter *c, ptrdiff_t n, JiebaScratch *s)
{
    int64_t total = c->dict->total + (c->user ? c->user->total : 0);
    double log_total = log((double)total);
    s->route_scores[n] = 0.0;
    for (ptrdiff_t k = n - 1; k >= 0; k--) {
        double best = 0.0;
        int32_t best_end = -1;
        for (int32_t e = s->dag_first[k]; e < s->dag_first[k + 1]; e++) {
            int32_t end = s->dag_ends[e];
            double score = s->dag_logs[e] - log_total + s->route_scores[end + 1];
            if (best_end < 0 || score > best || (score == best && end > best_end)) {
                best = score;
                best_end = end;
            }
        }
        s->route_scores[k] = best;
        s->route_next[k] = best_end;
    }
}

/* finalseg's cut of text that is not Han: [a-zA-Z0-9]+(\.\d+)?%? words and what lies between */
static int
cut_ascii(const uint32_t *b, ptrdiff_t from, ptrdiff_t to, ptrdiff_t offset, Int64s *spans)
{
    ptrdiff_t gap = from;
    for (ptrdiff_t k = from; k < to;) {
        if (!is_ascii_alnum(b[k])) {
            k++;
            continue;
        }
        ptrdiff_t end = k;
        while (end < to && is_ascii_alnum(b[end])) end++;
        if (end + 1 < to && b[end] == '.' && is_ascii_digit(b[end + 1])) {
            end += 2;
            while (end < to && is_ascii_digit(b[end])) end++;
        }
        if (end < to && b[end] == '%') end++;
        if (k > gap && emit(spans, offset + gap, offset + k) < 0) return -1;
        if (emit(spans, offset + k, offset + end) < 0) return -1;
        k = gap = end;
    }
    return gap < to ? emit(spans, offset + gap, offset + to) : 0;
}

/* finalseg's cut: Han runs tagged by the HMM, the rest by cut_ascii */
static int
cut_hmm(const JiebaCutter *c, const uint32_t *b, ptrdiff_t from, ptrdiff_t to, ptrdiff_t offset, Int64s *spans,
        JiebaScratch *s)
{
    for (ptrdiff_t i = from, j; i < to; i = j) {
        int han = jieba_is_hmm_han(b[i]);
        for (j = i + 1; j < to && jieba_is_hmm_han(b[j]) == han;) j++;
        if (!han) {
            if (cut_ascii(b, i, j, offset, spans) < 0) return -1;
            continue;
        }
        if (jieba_viterbi(c->hmm, b + i, j - i, s->states + i, &s->viterbi) < 0) return -1;
        ptrdiff_t begin = i, next = i;
        for (ptrdiff_t t = i; t < j; t++) {
            ptrdiff_t word = -1; /* the start of a word that ends at t */
            if (s->states[t] == JIEBA_B) begin = t;
            else if (s->states[t] == JIEBA_E) word = begin;
            else if (s->states[t] == JIEBA_S) word = t;
            if (word < 0) continue;
            int status = is_split(c, b + word, t + 1 - word) ? emit_chars(spans, offset + word, offset + t + 1)
                                                            : emit(spans, offset + word, offset + t + 1);
            if (status < 0) return -1;
            next = t + 1;
        }
        if (next < j) {
            int status = is_split(c, b + next, j - next) ? emit_chars(spans, offset + next, offset + j)
                                                        : emit(spans, offset + next, offset + j);
            if (status < 0) return -1;
        }
    }
    return 0;
}

/* __cut_DAG's handling of a stretch of single characters on the route */
static int
flush_singles(const JiebaCutter *c, const uint32_t *b, ptrdiff_t from, ptrdiff_t to, ptrdiff_t offset, Int64s *spans,
              JiebaScratch *s)
{
    if (to - from == 1) return emit(spans, offset + from, offset + to);
    if (jieba_count(c, b + from, to - from) > 0) return emit_chars(spans, offset + from, offset + to);
    return cut_hmm(c, b, from, to, offset, spans, s);
}

static int
cut_route(const JiebaCutter *c, const uint32_t *b, ptrdiff_t n, ptrdiff_t offset, Int64s *spans, JiebaScratch *s)
{
    ptrdiff_t singles = -1; /* where the stretch of single characters (or, without the HMM, letters) began */
    for (ptrdiff_t x = 0, y; x < n; x = y) {
        y = s->route_next[x] + 1;
        int single = c->use_hmm ? y - x == 1 : y - x == 1 && is_ascii_alnum(b[x]);
        if (single) {
            if (singles < 0) singles = x;
            continue;
        }
        if (singles >= 0) {
            int status = c->use_hmm ? flush_singles(c, b, singles, x, offset, spans, s)
                                    : emit(spans, offset + singles, offset + x);
            if (status < 0) return -1;
            singles = -1;
        }
        if (emit(spans, offset + x, offset + y) < 0) return -1;
    }
    if (singles < 0) return 0;
    return c->use_hmm ? flush_singles(c, b, singles, n, offset, spans, s) : emit(spans, offset + singles, offset + n);
}

/* the letters full mode gathered, as one word (pieces after a gap marked as continuing it) */
static int
emit_pieces(Int64s *spans, const Int64s *pieces)
{
    for (ptrdiff_t k = 0; k < pieces->length; k += 2) {
        int64_t start = pieces->data[k];
        if (k > 0 && start == spans->data[spans->length - 1]) { /* adjacent: the same span goes on */
            spans->data[spans->length - 1] = pieces->data[k + 1];
            continue;
        }
        if (emit(spans, k > 0 ? -1 - start : start, pieces->data[k + 1]) < 0) return -1;
    }
    return 0;
}

/* jieba's __cut_all */
static int
cut_all(const uint32_t *b, ptrdiff_t n, ptrdiff_t offset, Int64s *spans, JiebaScratch *s)
{
    ptrdiff_t last_end = -1;
    int letters = 0;
    for (ptrdiff_t k = 0; k < n; k++) {
        int32_t first = s->dag_first[k], count = s->dag_first[k + 1] - first;
        if (letters && !is_ascii_alnum(b[k])) {
            letters = 0;
            if (emit_pieces(spans, &s->pieces) < 0) return -1;
        }
        if (count == 1 && k > last_end) {
            ptrdiff_t end = s->dag_ends[first];
            if (is_ascii_alnum(b[k])) {
                if (!letters) s->pieces.length = 0;
                letters = 1;
                if (int64s_push(&s->pieces, offset + k) < 0 || int64s_push(&s->pieces, offset + end + 1) < 0) return -1;
            }
            if (!letters && emit(spans, offset + k, offset + end + 1) < 0) return -1;
            last_end = end;
            continue;
        }
        for (int32_t e = first; e < first + count; e++) {
            ptrdiff_t end = s->dag_ends[e];
            if (end <= k) continue;
            if (emit(spans, offset + k, offset + end + 1) < 0) return -1;
            last_end = end;
        }
    }
    return letters ? emit_pieces(spans, &s->pieces) : 0;
}

static int
cut_block(const JiebaCutter *c, const uint32_t *b, ptrdiff_t n, ptrdiff_t offset, Int64s *spans, JiebaScratch *s)
{
    if (build_dag(c, b, n, s) < 0) return -1;
    if (c->mode == JIEBA_FULL) return cut_all(b, n, offset, spans, s);
    find_route(c, n, s);
    return cut_route(c, b, n, offset, spans, s);
}

/* the length of the whitespace at cps[k] as jieba's (\r\n|\s) matches it, or 0 */
static ptrdiff_t
space_at(const uint32_t *cps, ptrdiff_t k, ptrdiff_t to)
{
    if (!is_space(cps[k])) return 0;
    return cps[k] == '\r' && k + 1 < to && cps[k + 1] == '\n' ? 2 : 1;
}

/* full mode keeping whitespace: jieba's re.split by whitespace, so the stretches around each space are
 * given even when empty */
static int
cut_between_full(const uint32_t *cps, ptrdiff_t from, ptrdiff_t to, Int64s *spans)
{
    ptrdiff_t stretch = from;
    for (ptrdiff_t k = from; k < to;) {
        ptrdiff_t space = space_at(cps, k, to);
        if (!space) {
            k++;
            continue;
        }
        if (emit(spans, stretch, k) < 0 || emit(spans, k, k + space) < 0) return -1;
        stretch = k = k + space;
    }
    return emit(spans, stretch, to);
}

/* the characters between blocks: each one a word (in full mode each stretch), whitespace left out
 * unless the cutter keeps it */
static int
cut_between(const JiebaCutter *c, const uint32_t *cps, ptrdiff_t from, ptrdiff_t to, Int64s *spans)
{
    int full = c->mode == JIEBA_FULL;
    if (full && c->keep_space) return cut_between_full(cps, from, to, spans);
    for (ptrdiff_t k = from; k < to;) {
        ptrdiff_t space = space_at(cps, k, to);
        if (space) {
            ptrdiff_t end = k + space;
            if (c->keep_space && emit(spans, k, end) < 0) return -1;
            k = end;
            continue;
        }
        ptrdiff_t end = k + 1;
        while (full && end < to && !is_space(cps[end])) end++;
        if (emit(spans, k, end) < 0) return -1;
        k = end;
    }
    return 0;
}

/* search mode: before each word of more than two characters, its dictionary words of two and three */
static int
add_search_words(const JiebaCutter *c, const uint32_t *cps, const Int64s *words, Int64s *spans)
{
    for (ptrdiff_t k = 0; k < words->length; k += 2) {
        ptrdiff_t start = words->data[k], end = words->data[k + 1], length = end - start;
        for (ptrdiff_t size = 2; size <= 3; size++) {
            if (length <= size) break;
            for (ptrdiff_t i = start; i + size <= end; i++)
                if (jieba_count(c, cps + i, size) > 0 && emit(spans, i, i + size) < 0) return -1;
        }
        if (emit(spans, start, end) < 0) return -1;
    }
    return 0;
}

int
jieba_cut(const JiebaCutter *c, const uint32_t *cps, ptrdiff_t n, Int64s *spans, JiebaScratch *s)
{
    Int64s *out = spans;
    if (c->mode == JIEBA_SEARCH) {
        s->words.length = 0;
        out = &s->words;
    }
    for (ptrdiff_t i = 0, j; i < n; i = j) {
        int block = is_block(cps[i]);
        for (j = i + 1; j < n && is_block(cps[j]) == block;) j++;
        int status = block ? cut_block(c, cps + i, j - i, i, out, s) : cut_between(c, cps, i, j, out);
        if (status < 0) return -1;
    }
    return c->mode == JIEBA_SEARCH ? add_search_words(c, cps, &s->words, spans) : 0;
}
