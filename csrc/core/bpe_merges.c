/* csrc/core/bpe_merges.c: the merge loop of BPE training (see bpe_merges.h). */
#ifdef KVEC_WITH_PYTHON
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define BPE_MERGES_MALLOC PyMem_Malloc
#define BPE_MERGES_CALLOC PyMem_Calloc
#define BPE_MERGES_REALLOC PyMem_Realloc
#define BPE_MERGES_FREE PyMem_Free
#define BPE_MERGES_NO_MEMORY() PyErr_NoMemory()
#else
#include <stdlib.h>
#define BPE_MERGES_MALLOC malloc
#define BPE_MERGES_CALLOC calloc
#define BPE_MERGES_REALLOC realloc
#define BPE_MERGES_FREE free
#define BPE_MERGES_NO_MEMORY() ((void)0)
#endif
#include <stdint.h>
#include <string.h>

#include "bpe_merges.h"
#include "pair_map.h"

/* ------------------------------------------------------------------------------------------------ */
/* The merge loop of Hugging Face tokenizers' BpeTrainer                                             */
/*                                                                                                   */
/* Words are linked lists of symbol ids (with each symbol's length in characters). Pair counts are    */
/* 64-bit and kept up to date from the deltas of every word merge. A max-heap orders entries by       */
/* count, then by the smallest (a, b); every entry carries the words it was pushed for, a stale count */
/* is refreshed and pushed back, and a merge never decrements the merged pair's own count: all as the */
/* library does.                                                                                     */

/* Word indices. Most heap entries name one or two words, which stay inline (no allocation); a longer
 * list spills to the heap. */
#define INTVEC_INLINE 2

typedef struct {
    int32_t *spill; /* NULL while the items are inline */
    int32_t size, capacity;
    int32_t inline_items[INTVEC_INLINE];
} IntVec;

static inline int32_t *
intvec_items(const IntVec *v)
{
    return v->spill ? v->spill : (int32_t *)v->inline_items;
}

static int
intvec_push(IntVec *v, int32_t x)
{
    if (!v->spill && v->size < INTVEC_INLINE) {
        v->inline_items[v->size++] = x;
        return 0;
    }
    if (!v->spill || v->size == v->capacity) {
        int32_t capacity = v->spill ? v->capacity * 2 : 4 * INTVEC_INLINE;
        int32_t *items = BPE_MERGES_REALLOC(v->spill, (size_t)capacity * sizeof(int32_t));
        if (!items) {
            BPE_MERGES_NO_MEMORY();
            return -1;
        }
        if (!v->spill) memcpy(items, v->inline_items, sizeof(v->inline_items));
        v->spill = items;
        v->capacity = capacity;
    }
    v->spill[v->size++] = x;
    return 0;
}

typedef struct {
    int64_t count;
    uint64_t pair;
    IntVec words;
} HeapEntry;

typedef struct {
    HeapEntry *entries;
    ptrdiff_t size, capacity;
} Heap;

/* Higher count first; on equal counts the smaller (a, b) first. */
static inline int
heap_before(const HeapEntry *x, const HeapEntry *y)
{
    if (x->count != y->count) return x->count > y->count;
    return x->pair < y->pair;
}

static int
heap_push(Heap *h, HeapEntry e)
{
    if (h->size == h->capacity) {
        ptrdiff_t capacity = h->capacity ? h->capacity * 2 : 1024;
        HeapEntry *entries = BPE_MERGES_REALLOC(h->entries, capacity * sizeof(HeapEntry));
        if (!entries) {
            BPE_MERGES_NO_MEMORY();
            return -1;
        }
        h->entries = entries;
        h->capacity = capacity;
    }
    ptrdiff_t i = h->size++;
    while (i > 0) {
        ptrdiff_t parent = (i - 1) / 2;
        if (!heap_before(&e, &h->entries[parent])) break;
        h->entries[i] = h->entries[parent];
        i = parent;
    }
    h->entries[i] = e;
    return 0;
}

static HeapEntry
heap_pop(Heap *h)
{
    HeapEntry top = h->entries[0];
    HeapEntry last = h->entries[--h->size];
    ptrdiff_t i = 0;
    for (;;) {
        ptrdiff_t child = 2 * i + 1;
        if (child >= h->size) break;
        if (child + 1 < h->size && heap_before(&h->entries[child + 1], &h->entries[child])) child++;
        if (!heap_before(&h->entries[child], &last)) break;
        h->entries[i] = h->entries[child];
        i = child;
    }
    if (h->size) h->entries[i] = last;
    return top;
}

/* Pairs whose count grew in one merge round, with the words they grew in. */
typedef struct {
    PairMap index; /* pair -> position in lists + 1 */
    uint64_t *pairs;
    IntVec *lists;
    ptrdiff_t size, capacity;
} Pending;

static int
pending_add(Pending *p, uint64_t pair, int32_t word)
{
    PairSlot *slot = pairmap_slot(&p->index, pair);
    if (!slot) return -1;
    if (slot->value == 0) {
        if (p->size == p->capacity) {
            ptrdiff_t capacity = p->capacity ? p->capacity * 2 : 64;
            uint64_t *pairs = BPE_MERGES_REALLOC(p->pairs, capacity * sizeof(uint64_t));
            if (!pairs) goto nomem;
            p->pairs = pairs;
            IntVec *lists = BPE_MERGES_REALLOC(p->lists, capacity * sizeof(IntVec));
            if (!lists) goto nomem;
            p->lists = lists;
            p->capacity = capacity;
        }
        p->pairs[p->size] = pair;
        p->lists[p->size] = (IntVec){0};
        slot->value = ++p->size;
    }
    IntVec *list = &p->lists[slot->value - 1];
    if (list->size && intvec_items(list)[list->size - 1] == word) return 0; /* same word, same round */
    return intvec_push(list, word);
nomem:
    BPE_MERGES_NO_MEMORY();
    return -1;
}

static void
pending_clear(Pending *p)
{
    for (size_t i = 0; i <= p->index.mask; i++) p->index.slots[i].key = EMPTY_KEY;
    p->index.used = 0;
    p->size = 0;
}

/* Words as linked lists of symbols. Word w's symbols live at [start[w], start[w] + n0[w]) (n0: its
 * length in characters); next/prev link the symbols still present, as indices inside the word (-1: none),
 * and a symbol merged into its left neighbour gets the id -1. The first symbol is never removed.
 *
 * A short word is merged by walking it. A long word (more than LONG_WORD characters) would make every
 * merge cost its whole length, so the occurrences of each pair in long words are indexed: a merge visits
 * only the occurrences of its pair, and training time grows with the word's length, not its square. */
#define LONG_WORD 64

typedef struct {
    int32_t *ids;
    int32_t *lengths; /* characters per symbol */
    int32_t *next, *prev;
    ptrdiff_t *start;
    int32_t *n0;
    int64_t *counts;
    ptrdiff_t n_words;
} Words;

/* An occurrence of a pair in a long word: the word and the index of the pair's left symbol. */
typedef struct {
    int32_t word, at;
} Place;

typedef struct {
    Place *items;
    ptrdiff_t size, capacity;
} PlaceVec;

/* pair -> the places it was formed at in long words (some since merged away: checked when read) */
typedef struct {
    PairMap index; /* pair -> position in lists + 1 */
    PlaceVec *lists;
    ptrdiff_t size, capacity;
} PlaceIndex;

static int
placevec_push(PlaceVec *v, Place p)
{
    if (v->size == v->capacity) {
        ptrdiff_t capacity = v->capacity ? v->capacity * 2 : 4;
        Place *items = BPE_MERGES_REALLOC(v->items, capacity * sizeof(Place));
        if (!items) {
            BPE_MERGES_NO_MEMORY();
            return -1;
        }
        v->items = items;
        v->capacity = capacity;
    }
    v->items[v->size++] = p;
    return 0;
}

/* The place list of pair; created empty when missing (create) or NULL when missing (!create). */
static PlaceVec *
places_of(PlaceIndex *x, uint64_t pair, int create, int *error)
{
    *error = 0;
    if (!create) {
        size_t i = pair_hash(pair) & x->index.mask;
        while (x->index.slots[i].key != EMPTY_KEY && x->index.slots[i].key != pair) i = (i + 1) & x->index.mask;
        return x->index.slots[i].key == pair ? &x->lists[x->index.slots[i].value - 1] : NULL;
    }
    PairSlot *slot = pairmap_slot(&x->index, pair);
    if (!slot) goto fail;
    if (slot->value == 0) {
        if (x->size == x->capacity) {
            ptrdiff_t capacity = x->capacity ? x->capacity * 2 : 64;
            PlaceVec *lists = BPE_MERGES_REALLOC(x->lists, capacity * sizeof(PlaceVec));
            if (!lists) {
                BPE_MERGES_NO_MEMORY();
                goto fail;
            }
            x->lists = lists;
            x->capacity = capacity;
        }
        x->lists[x->size] = (PlaceVec){NULL, 0, 0};
        slot->value = ++x->size;
    }
    return &x->lists[slot->value - 1];
fail:
    *error = 1;
    return NULL;
}

static void
placeindex_free(PlaceIndex *x)
{
    for (ptrdiff_t i = 0; i < x->size; i++) BPE_MERGES_FREE(x->lists[i].items);
    BPE_MERGES_FREE(x->lists);
    BPE_MERGES_FREE(x->index.slots);
}

typedef struct {
    Words *ws;
    PairMap *pair_counts;
    Pending *pending;
    PlaceIndex *places;
    int64_t max_length;
} MergeState;

/* Count a change of the pair formed at symbol `at` of word w; new pairs of long words are indexed. */
static int
apply_change(MergeState *st, uint64_t pair, int delta, int32_t w, int32_t at)
{
    PairSlot *slot = pairmap_slot(st->pair_counts, pair);
    if (!slot) return -1;
    slot->value += delta * st->ws->counts[w];
    if (delta < 0) return 0;
    if (st->ws->n0[w] > LONG_WORD) {
        int error;
        PlaceVec *v = places_of(st->places, pair, 1, &error);
        if (error || placevec_push(v, (Place){w, at}) < 0) return -1;
    }
    return pending_add(st->pending, pair, w);
}

/* Whether (a, b) is formed at symbol i of word w. */
static inline int
pair_at(const Words *ws, int32_t w, int32_t i, int32_t a, int32_t b)
{
    const int32_t *ids = ws->ids + ws->start[w];
    int32_t j = ws->next[ws->start[w] + i];
    return ids[i] == a && j >= 0 && ids[j] == b;
}

/* Merge (a, b) formed at symbol i of word w into new_id, reporting the count changes around it as
 * Hugging Face's Word::merge does. */
static int
merge_at(MergeState *st, int32_t w, int32_t i, int32_t a, int32_t b, int32_t new_id)
{
    Words *ws = st->ws;
    ptrdiff_t s = ws->start[w];
    int32_t *ids = ws->ids + s, *lens = ws->lengths + s, *next = ws->next + s, *prev = ws->prev + s;
    int32_t j = next[i];
    int64_t length = (int64_t)lens[i] + lens[j];
    int32_t before = prev[i];
    if (before >= 0) {
        if (apply_change(st, PAIR(ids[before], a), -1, w, before) < 0) return -1;
        if (lens[before] + length < st->max_length && apply_change(st, PAIR(ids[before], new_id), 1, w, before) < 0)
            return -1;
    }
    ids[i] = new_id;
    lens[i] = (int32_t)length;
    ids[j] = -1;
    next[i] = next[j];
    if (next[i] >= 0) prev[next[i]] = i;
    int32_t after = next[i];
    if (after >= 0) {
        if (apply_change(st, PAIR(b, ids[after]), -1, w, i) < 0) return -1;
        if (lens[after] + length < st->max_length && apply_change(st, PAIR(new_id, ids[after]), 1, w, i) < 0)
            return -1;
    }
    return 0;
}

/* Merge every non-overlapping (a, b) of a short word, left to right. */
static int
merge_short_word(MergeState *st, int32_t w, int32_t a, int32_t b, int32_t new_id)
{
    const Words *ws = st->ws;
    for (int32_t i = 0; i >= 0; i = ws->next[ws->start[w] + i])
        if (pair_at(ws, w, i, a, b) && merge_at(st, w, i, a, b, new_id) < 0) return -1;
    return 0;
}

static int
compare_places(const void *x, const void *y)
{
    const Place *p = x, *q = y;
    if (p->word != q->word) return p->word < q->word ? -1 : 1;
    return (p->at > q->at) - (p->at < q->at);
}

/* Merge (a, b) in the given words, each word left to right, in the order given. Places of the pair in
 * long words that are listed are taken out of the index (merged or found stale); the others stay. */
static int
merge_words(MergeState *st, const IntVec *words, int32_t a, int32_t b, int32_t new_id, uint8_t *listed)
{
    Words *ws = st->ws;
    const int32_t *listed_words = intvec_items(words);
    Place *found = NULL;
    ptrdiff_t n_found = 0;
    int any_long = 0;
    for (ptrdiff_t k = 0; k < words->size; k++)
        if (ws->n0[listed_words[k]] > LONG_WORD) listed[listed_words[k]] = any_long = 1;
    if (any_long) {
        int error;
        PlaceVec *v = places_of(st->places, PAIR(a, b), 0, &error);
        if (v && v->size) {
            found = BPE_MERGES_MALLOC(v->size * sizeof(Place));
            if (!found) {
                BPE_MERGES_NO_MEMORY();
                return -1;
            }
            ptrdiff_t kept = 0;
            for (ptrdiff_t k = 0; k < v->size; k++) {
                Place p = v->items[k];
                if (!pair_at(ws, p.word, p.at, a, b)) continue; /* merged away since */
                if (listed[p.word]) found[n_found++] = p;
                else v->items[kept++] = p;
            }
            v->size = kept;
            qsort(found, n_found, sizeof(Place), compare_places);
        }
    }
    int ok = 1;
    for (ptrdiff_t k = 0; ok && k < words->size; k++) {
        int32_t w = listed_words[k];
        if (ws->n0[w] <= LONG_WORD) {
            ok = merge_short_word(st, w, a, b, new_id) == 0;
            continue;
        }
        listed[w] = 0;
        /* this word's places: a run of the sorted list */
        ptrdiff_t lo = 0, hi = n_found;
        while (lo < hi) {
            ptrdiff_t mid = (lo + hi) / 2;
            if (found[mid].word < w) lo = mid + 1;
            else hi = mid;
        }
        for (; ok && lo < n_found && found[lo].word == w; lo++)
            if (pair_at(ws, w, found[lo].at, a, b)) /* not taken by the merge on its left (a == b) */
                ok = merge_at(st, w, found[lo].at, a, b, new_id) == 0;
    }
    for (ptrdiff_t k = 0; k < words->size; k++) listed[listed_words[k]] = 0;
    BPE_MERGES_FREE(found);
    return ok ? 0 : -1;
}

/* The words of a corpus as linked lists of symbols of one character each. */
static int
words_build(const BpeCorpus *corpus, Words *ws)
{
    ptrdiff_t n = corpus->n_words, total = 0;
    for (ptrdiff_t w = 0; w < n; w++) total += (ptrdiff_t)corpus->sizes[w];
    ws->n_words = n;
    ws->ids = BPE_MERGES_MALLOC((total + 1) * sizeof(int32_t));
    ws->lengths = BPE_MERGES_MALLOC((total + 1) * sizeof(int32_t));
    ws->next = BPE_MERGES_MALLOC((total + 1) * sizeof(int32_t));
    ws->prev = BPE_MERGES_MALLOC((total + 1) * sizeof(int32_t));
    ws->start = BPE_MERGES_MALLOC((n + 1) * sizeof(ptrdiff_t));
    ws->n0 = BPE_MERGES_MALLOC((n + 1) * sizeof(int32_t));
    ws->counts = BPE_MERGES_MALLOC((n + 1) * sizeof(int64_t));
    if (!ws->ids || !ws->lengths || !ws->next || !ws->prev || !ws->start || !ws->n0 || !ws->counts) {
        BPE_MERGES_NO_MEMORY();
        return -1;
    }
    if (total) memcpy(ws->ids, corpus->ids, total * sizeof(int32_t));
    ptrdiff_t at = 0;
    for (ptrdiff_t w = 0; w < n; w++) {
        int32_t length = (int32_t)corpus->sizes[w];
        ws->start[w] = at;
        ws->n0[w] = length;
        ws->counts[w] = corpus->counts[w];
        for (int32_t i = 0; i < length; i++) {
            ws->lengths[at] = 1;
            ws->next[at] = i + 1 < length ? i + 1 : -1;
            ws->prev[at++] = i - 1;
        }
    }
    return 0;
}

static void
words_free(Words *ws)
{
    BPE_MERGES_FREE(ws->ids);
    BPE_MERGES_FREE(ws->lengths);
    BPE_MERGES_FREE(ws->next);
    BPE_MERGES_FREE(ws->prev);
    BPE_MERGES_FREE(ws->start);
    BPE_MERGES_FREE(ws->n0);
    BPE_MERGES_FREE(ws->counts);
}

/* Push the pairs whose counts changed (with the words they changed in) onto the heap. */
static int
push_pending(Heap *heap, Pending *pending, PairMap *pair_counts)
{
    int ok = 1;
    for (ptrdiff_t k = 0; k < pending->size; k++) {
        int64_t count = pairmap_slot(pair_counts, pending->pairs[k])->value;
        if (ok && count > 0) {
            ok = heap_push(heap, (HeapEntry){count, pending->pairs[k], pending->lists[k]}) == 0;
            if (ok) pending->lists[k] = (IntVec){0};
        }
        BPE_MERGES_FREE(pending->lists[k].spill);
    }
    pending_clear(pending);
    return ok ? 0 : -1;
}

int
bpe_merges(const BpeCorpus *corpus, int64_t vocab_size, int64_t current_size, int64_t min_frequency,
           int64_t max_length, BpeNewToken new_token, void *context)
{
    Words ws = {0};
    PairMap pair_counts = {0};
    Pending pending = {0};
    PlaceIndex places = {0};
    Heap heap = {0};
    uint8_t *listed = NULL;
    MergeState st = {&ws, &pair_counts, &pending, &places, max_length};
    int ok = words_build(corpus, &ws) == 0 && pairmap_init(&pair_counts, 1024) == 0 &&
             pairmap_init(&pending.index, 1024) == 0 && pairmap_init(&places.index, 1024) == 0;
    if (ok) {
        listed = BPE_MERGES_CALLOC(ws.n_words + 1, 1);
        if (!listed) ok = (BPE_MERGES_NO_MEMORY(), 0);
    }

    /* Count every pair and the words it occurs in (the initial entries). */
    for (ptrdiff_t w = 0; ok && w < ws.n_words; w++) {
        int32_t *ids = ws.ids + ws.start[w];
        for (int32_t i = 0; ok && i + 1 < ws.n0[w]; i++)
            ok = apply_change(&st, PAIR(ids[i], ids[i + 1]), 1, (int32_t)w, i) == 0;
    }
    if (ok) ok = push_pending(&heap, &pending, &pair_counts) == 0;

    while (ok && current_size < vocab_size && heap.size) {
        HeapEntry top = heap_pop(&heap);
        int64_t current = pairmap_slot(&pair_counts, top.pair)->value;
        if (top.count != current) {
            top.count = current;
            ok = heap_push(&heap, top) == 0;
            continue;
        }
        if (current < 1 || min_frequency > current) {
            BPE_MERGES_FREE(top.words.spill);
            break;
        }
        int32_t a = (int32_t)(top.pair >> 32), b = (int32_t)(top.pair & 0xffffffffu), new_id = -1;
        ok = new_token(context, a, b, &new_id, &current_size) == 0;
        if (ok) ok = merge_words(&st, &top.words, a, b, new_id, listed) == 0;
        BPE_MERGES_FREE(top.words.spill);
        if (ok) ok = push_pending(&heap, &pending, &pair_counts) == 0;
    }

    for (ptrdiff_t k = 0; k < heap.size; k++) BPE_MERGES_FREE(heap.entries[k].words.spill);
    for (ptrdiff_t k = 0; k < pending.size; k++) BPE_MERGES_FREE(pending.lists[k].spill);
    BPE_MERGES_FREE(heap.entries);
    PAIRMAP_FREE(pending.index.slots);
    BPE_MERGES_FREE(pending.pairs);
    BPE_MERGES_FREE(pending.lists);
    PAIRMAP_FREE(pair_counts.slots);
    BPE_MERGES_FREE(listed);
    placeindex_free(&places);
    words_free(&ws);
    return ok ? 0 : -1;
}
