/* csrc/core/bpe.c: see bpe.h. */
#include "bpe.h"

#include <stdlib.h>
#include <string.h>

#include "utf8.h"

static void
minheap_push(uint64_t *heap, ptrdiff_t *size, uint64_t x)
{
    ptrdiff_t i = (*size)++;
    while (i > 0 && heap[(i - 1) / 2] > x) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = x;
}

static uint64_t
minheap_pop(uint64_t *heap, ptrdiff_t *size)
{
    uint64_t top = heap[0], last = heap[--*size];
    ptrdiff_t i = 0;
    for (;;) {
        ptrdiff_t child = 2 * i + 1;
        if (child >= *size) break;
        if (child + 1 < *size && heap[child + 1] < heap[child]) child++;
        if (heap[child] >= last) break;
        heap[i] = heap[child];
        i = child;
    }
    if (*size) heap[i] = last;
    return top;
}

/* a queue entry: the merge's rank above, the position of its left symbol below */
static inline uint64_t
entry(int64_t value, ptrdiff_t position)
{
    return ((uint64_t)(value >> 32) << 32) | (uint64_t)position;
}

int
bpe_merge(const PairMap *ranks, int32_t *ids, ptrdiff_t n, char *alive, const BpeDropout *dropout)
{
    ptrdiff_t *next = malloc((size_t)(n + 1) * sizeof(ptrdiff_t));
    ptrdiff_t *prev = malloc((size_t)(n + 1) * sizeof(ptrdiff_t));
    uint64_t *heap = malloc((size_t)(3 * n + 1) * sizeof(uint64_t)); /* n initial + at most 2 per merge */
    uint64_t *skipped = dropout ? malloc((size_t)(3 * n + 1) * sizeof(uint64_t)) : NULL;
    ptrdiff_t size = 0, n_skipped = 0;
    int status = -1;
    if (!next || !prev || !heap || (dropout && !skipped)) goto done;
    for (ptrdiff_t i = 0; i < n; i++) {
        next[i] = i + 1 < n ? i + 1 : -1;
        prev[i] = i - 1;
        alive[i] = 1;
    }
    for (ptrdiff_t i = 0; i + 1 < n; i++) {
        int64_t r = pair_value(ranks, ids[i], ids[i + 1]);
        if (r >= 0) minheap_push(heap, &size, entry(r, i));
    }
    while (size) {
        uint64_t top = minheap_pop(heap, &size);
        if (dropout) {
            if (dropout->skip(dropout->context)) {
                skipped[n_skipped++] = top;
                continue;
            }
            for (ptrdiff_t k = 0; k < n_skipped; k++) minheap_push(heap, &size, skipped[k]);
            n_skipped = 0;
        }
        ptrdiff_t pos = (ptrdiff_t)(top & 0xffffffffu);
        int64_t rank = (int64_t)(top >> 32);
        ptrdiff_t right = next[pos];
        if (!alive[pos] || right == -1) continue;
        int64_t r = pair_value(ranks, ids[pos], ids[right]);
        if (r < 0 || (r >> 32) != rank) continue; /* an expired entry */
        ids[pos] = (int32_t)(r & 0xffffffff);
        alive[right] = 0;
        next[pos] = next[right];
        if (next[pos] != -1) prev[next[pos]] = pos;
        if (prev[pos] != -1) {
            int64_t rp = pair_value(ranks, ids[prev[pos]], ids[pos]);
            if (rp >= 0) minheap_push(heap, &size, entry(rp, prev[pos]));
        }
        if (next[pos] != -1) {
            int64_t rn = pair_value(ranks, ids[pos], ids[next[pos]]);
            if (rn >= 0) minheap_push(heap, &size, entry(rn, pos));
        }
    }
    status = 0;
done:
    free(next);
    free(prev);
    free(heap);
    free(skipped);
    return status;
}

int
bpe_words_init(BpeWords *words, size_t expected_chars)
{
    memset(words, 0, sizeof(*words));
    words->unk_id = BPE_UNK_DROPPED;
    for (int b = 0; b < 256; b++) words->byte_ids[b] = -1;
    return pairmap_init(&words->chars, expected_chars);
}

void
bpe_words_free(BpeWords *words)
{
    PAIRMAP_FREE(words->chars.slots);
    free(words->spelled);
    free(words->prefix);
    free(words->suffix);
    if (words->has_whole) piece_map_free(&words->whole);
    memset(words, 0, sizeof(*words));
}

/* With ignore_merges, the id of the token the whole word is (spelled byte by byte for byte-level
 * words), or -1; -2 when out of memory. */
static int64_t
whole_word_id(const BpeWords *words, const CodePoints *word)
{
    if (!words->has_whole) return -1;
    if (!words->spelled) {
        const int64_t *id = piece_map_get(&words->whole, word, code_points_hash(word));
        return id ? *id : -1;
    }
    uint32_t *chars = malloc(sizeof(uint32_t) * (size_t)(4 * word->length + 1));
    if (!chars) return -2;
    ptrdiff_t n = 0;
    unsigned char bytes[4];
    for (ptrdiff_t i = 0; i < word->length; i++) {
        int m = utf8_of(code_point_at(word->kind, word->data, i), bytes);
        for (int k = 0; k < m; k++) chars[n++] = words->spelling[bytes[k]];
    }
    CodePoints spelled = {4, chars, n};
    const int64_t *id = piece_map_get(&words->whole, &spelled, code_points_hash(&spelled));
    int64_t found = id ? *id : -1;
    free(chars);
    return found;
}

/* The byte-fallback ids of a symbol that is not in the vocabulary: the bytes of prefix + c + suffix as
 * the symbol spells it; none (*pushed 0) when some byte has no id, or c is a lone surrogate, which
 * Python's strict UTF-8 refuses. */
static int
fallback_bytes(const BpeWords *words, uint32_t c, int kind, Int64s *symbols, int *pushed)
{
    unsigned char own[4];
    int n = utf8_of(c, own);
    *pushed = 0;
    if (c >= 0xD800 && c < 0xE000) return 0;
    const unsigned char *parts[3] = {kind & 1 ? words->prefix : NULL, own, kind & 2 ? words->suffix : NULL};
    size_t lengths[3] = {kind & 1 ? words->prefix_length : 0, (size_t)n, kind & 2 ? words->suffix_length : 0};
    for (int pass = 0; pass < 2; pass++) { /* check every byte, then push them */
        for (int p = 0; p < 3; p++) {
            for (size_t k = 0; k < lengths[p]; k++) {
                if (words->byte_ids[parts[p][k]] < 0) return 0;
                if (pass && int64s_push(symbols, words->byte_ids[parts[p][k]]) < 0) return -1;
            }
        }
    }
    *pushed = 1;
    return 0;
}

/* The first symbols of a word, as kvec.models.BPE._symbols makes them; 1 when the unknown token or a
 * byte symbol is missing, -1 when out of memory. */
static int
first_symbols(const BpeWords *words, const CodePoints *word, Int64s *symbols)
{
    ptrdiff_t n = word->length;
    int has_prefix = words->prefix_length > 0, has_suffix = words->suffix_length > 0;
    if (words->spelled) { /* byte-level: the UTF-8 bytes, each one symbol */
        unsigned char bytes[4];
        ptrdiff_t total = 0, at = 0;
        for (ptrdiff_t i = 0; i < n; i++) total += utf8_of(code_point_at(word->kind, word->data, i), bytes);
        for (ptrdiff_t i = 0; i < n; i++) {
            int m = utf8_of(code_point_at(word->kind, word->data, i), bytes);
            for (int k = 0; k < m; k++, at++) {
                int kind = (at > 0 && has_prefix) | (at == total - 1 && has_suffix) << 1;
                int32_t id = words->spelled[kind * 256 + bytes[k]];
                if (id < 0) return 1; /* a byte symbol the vocabulary lacks */
                if (int64s_push(symbols, id) < 0) return -1;
            }
        }
        return 0;
    }
    int64_t pending = -1; /* an unknown symbol not emitted yet (fused runs are one) */
    for (ptrdiff_t i = 0; i < n; i++) {
        uint32_t c = code_point_at(word->kind, word->data, i);
        int kind = (i > 0 && has_prefix) | (i == n - 1 && has_suffix) << 1;
        int64_t id = pair_value(&words->chars, kind, (int32_t)c);
        if (id >= 0) {
            if ((pending >= 0 && int64s_push(symbols, pending) < 0) || int64s_push(symbols, id) < 0) return -1;
            pending = -1;
            continue;
        }
        int pushed = 0;
        if (words->byte_fallback && fallback_bytes(words, c, kind, symbols, &pushed) < 0) return -1;
        if (pushed) continue; /* as in the library, a pending unknown comes after these */
        if (words->unk_id == BPE_UNK_DROPPED) continue;
        if (words->unk_id == BPE_UNK_MISSING) return 1;
        if (pending >= 0 && words->fuse_unk) continue;
        if (pending >= 0 && int64s_push(symbols, pending) < 0) return -1;
        pending = words->unk_id;
    }
    if (pending >= 0 && int64s_push(symbols, pending) < 0) return -1;
    return 0;
}

int
bpe_word_ids(const BpeWords *words, const PairMap *ranks, const BpeDropout *dropout, const CodePoints *word,
             Int64s *out)
{
    int64_t whole = whole_word_id(words, word);
    if (whole != -1) return whole < 0 ? -1 : int64s_push(out, whole);
    Int64s symbols = {0};
    int32_t *ids = NULL;
    char *alive = NULL;
    int status = first_symbols(words, word, &symbols);
    if (status != 0) goto done;
    status = -1;
    ptrdiff_t n = symbols.length;
    ids = malloc(sizeof(int32_t) * (size_t)(n + 1));
    alive = malloc((size_t)n + 1);
    if (!ids || !alive) goto done;
    for (ptrdiff_t i = 0; i < n; i++) ids[i] = (int32_t)symbols.data[i];
    if (bpe_merge(ranks, ids, n, alive, dropout) < 0) goto done;
    if (int64s_reserve(out, n) < 0) goto done;
    for (ptrdiff_t i = 0; i < n; i++)
        if (alive[i]) out->data[out->length++] = ids[i];
    status = 0;
done:
    int64s_free(&symbols);
    free(ids);
    free(alive);
    return status;
}
