/* csrc/bpe_trainer.c: the merge loop of BPE training, for kvec/trainers/bpe.py.
 *
 *   bpe_merge_loop(ids, sizes, counts, vocab_size, current_size, min_frequency, max_length, add_merge)
 *       Hugging Face's BpeTrainer merge loop over words given as array('i') ids back to back and
 *       array('q') word lengths, calling back for each new token's id
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "subword.h"
#include "pair_map.h"

/* ------------------------------------------------------------------------------------------------ */
/* bpe_merge_loop: the merge loop of Hugging Face tokenizers' BpeTrainer                             */
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
        int32_t *items = PyMem_Realloc(v->spill, (size_t)capacity * sizeof(int32_t));
        if (!items) {
            PyErr_NoMemory();
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
    Py_ssize_t size, capacity;
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
        Py_ssize_t capacity = h->capacity ? h->capacity * 2 : 1024;
        HeapEntry *entries = PyMem_Realloc(h->entries, capacity * sizeof(HeapEntry));
        if (!entries) {
            PyErr_NoMemory();
            return -1;
        }
        h->entries = entries;
        h->capacity = capacity;
    }
    Py_ssize_t i = h->size++;
    while (i > 0) {
        Py_ssize_t parent = (i - 1) / 2;
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
    Py_ssize_t i = 0;
    for (;;) {
        Py_ssize_t child = 2 * i + 1;
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
    Py_ssize_t size, capacity;
} Pending;

static int
pending_add(Pending *p, uint64_t pair, int32_t word)
{
    PairSlot *slot = pairmap_slot(&p->index, pair);
    if (!slot) return -1;
    if (slot->value == 0) {
        if (p->size == p->capacity) {
            Py_ssize_t capacity = p->capacity ? p->capacity * 2 : 64;
            uint64_t *pairs = PyMem_Realloc(p->pairs, capacity * sizeof(uint64_t));
            if (!pairs) goto nomem;
            p->pairs = pairs;
            IntVec *lists = PyMem_Realloc(p->lists, capacity * sizeof(IntVec));
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
    PyErr_NoMemory();
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
    Py_ssize_t *start;
    int32_t *n0;
    int64_t *counts;
    Py_ssize_t n_words;
} Words;

/* An occurrence of a pair in a long word: the word and the index of the pair's left symbol. */
typedef struct {
    int32_t word, at;
} Place;

typedef struct {
    Place *items;
    Py_ssize_t size, capacity;
} PlaceVec;

/* pair -> the places it was formed at in long words (some since merged away: checked when read) */
typedef struct {
    PairMap index; /* pair -> position in lists + 1 */
    PlaceVec *lists;
    Py_ssize_t size, capacity;
} PlaceIndex;

static int
placevec_push(PlaceVec *v, Place p)
{
    if (v->size == v->capacity) {
        Py_ssize_t capacity = v->capacity ? v->capacity * 2 : 4;
        Place *items = PyMem_Realloc(v->items, capacity * sizeof(Place));
        if (!items) {
            PyErr_NoMemory();
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
            Py_ssize_t capacity = x->capacity ? x->capacity * 2 : 64;
            PlaceVec *lists = PyMem_Realloc(x->lists, capacity * sizeof(PlaceVec));
            if (!lists) {
                PyErr_NoMemory();
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
    for (Py_ssize_t i = 0; i < x->size; i++) PyMem_Free(x->lists[i].items);
    PyMem_Free(x->lists);
    PyMem_Free(x->index.slots);
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
    Py_ssize_t s = ws->start[w];
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
    Py_ssize_t n_found = 0;
    int any_long = 0;
    for (Py_ssize_t k = 0; k < words->size; k++)
        if (ws->n0[listed_words[k]] > LONG_WORD) listed[listed_words[k]] = any_long = 1;
    if (any_long) {
        int error;
        PlaceVec *v = places_of(st->places, PAIR(a, b), 0, &error);
        if (v && v->size) {
            found = PyMem_Malloc(v->size * sizeof(Place));
            if (!found) {
                PyErr_NoMemory();
                return -1;
            }
            Py_ssize_t kept = 0;
            for (Py_ssize_t k = 0; k < v->size; k++) {
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
    for (Py_ssize_t k = 0; ok && k < words->size; k++) {
        int32_t w = listed_words[k];
        if (ws->n0[w] <= LONG_WORD) {
            ok = merge_short_word(st, w, a, b, new_id) == 0;
            continue;
        }
        listed[w] = 0;
        /* this word's places: a run of the sorted list */
        Py_ssize_t lo = 0, hi = n_found;
        while (lo < hi) {
            Py_ssize_t mid = (lo + hi) / 2;
            if (found[mid].word < w) lo = mid + 1;
            else hi = mid;
        }
        for (; ok && lo < n_found && found[lo].word == w; lo++)
            if (pair_at(ws, w, found[lo].at, a, b)) /* not taken by the merge on its left (a == b) */
                ok = merge_at(st, w, found[lo].at, a, b, new_id) == 0;
    }
    for (Py_ssize_t k = 0; k < words->size; k++) listed[listed_words[k]] = 0;
    PyMem_Free(found);
    return ok ? 0 : -1;
}

/* The counts of a pair only grow by the occurrences merges make, at most three per symbol of the
 * words in all, each weighted by its word's count: with the sum of count x length below 2**61, no
 * count passes int64. */
#define WEIGHT_BOUND ((int64_t)1 << 61)

/* The k-th int64 of a buffer that need not be aligned (a memoryview may start at any byte). */
static inline int64_t
int64_at(const char *buffer, Py_ssize_t k)
{
    int64_t value;
    memcpy(&value, buffer + k * (Py_ssize_t)sizeof(int64_t), sizeof(value));
    return value;
}

/* Words from the symbol ids back to back (int32, >= 0), each word's length (int64) and a list of counts
 * (>= 0); the buffers need not be aligned. */
static int
load_words(const Py_buffer *ids, const Py_buffer *sizes, PyObject *counts, Words *ws)
{
    if (ids->len % sizeof(int32_t) || sizes->len % sizeof(int64_t)) {
        PyErr_SetString(PyExc_TypeError, "ids must be array('i') and sizes array('q')");
        return -1;
    }
    Py_ssize_t n = sizes->len / (Py_ssize_t)sizeof(int64_t), total = ids->len / (Py_ssize_t)sizeof(int32_t);
    const char *sizes_buf = sizes->buf;
    if (PyList_GET_SIZE(counts) != n) {
        PyErr_SetString(PyExc_ValueError, "sizes and counts differ in length");
        return -1;
    }
    if (n > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "more than 2**31 - 1 distinct words");
        return -1;
    }
    Py_ssize_t sum = 0;
    for (Py_ssize_t w = 0; w < n; w++) {
        int64_t size = int64_at(sizes_buf, w);
        if (size < 0 || size > INT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "a word must have 0 to 2**31 - 1 symbols");
            return -1;
        }
        sum += (Py_ssize_t)size;
    }
    if (sum != total) {
        PyErr_SetString(PyExc_ValueError, "the word sizes do not add up to the number of ids");
        return -1;
    }
    ws->n_words = n;
    ws->ids = PyMem_Malloc((total + 1) * sizeof(int32_t));
    ws->lengths = PyMem_Malloc((total + 1) * sizeof(int32_t));
    ws->next = PyMem_Malloc((total + 1) * sizeof(int32_t));
    ws->prev = PyMem_Malloc((total + 1) * sizeof(int32_t));
    ws->start = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t));
    ws->n0 = PyMem_Malloc((n + 1) * sizeof(int32_t));
    ws->counts = PyMem_Malloc((n + 1) * sizeof(int64_t));
    if (!ws->ids || !ws->lengths || !ws->next || !ws->prev || !ws->start || !ws->n0 || !ws->counts) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(ws->ids, ids->buf, total * sizeof(int32_t));
    for (Py_ssize_t i = 0; i < total; i++) {
        if (ws->ids[i] < 0) { /* -1 marks merged symbols, and a pair of them the pair map's empty key */
            PyErr_Format(PyExc_ValueError, "ids[%zd] = %d: ids must be >= 0", i, ws->ids[i]);
            return -1;
        }
    }
    Py_ssize_t at = 0;
    int64_t weight = 0;
    for (Py_ssize_t w = 0; w < n; w++) {
        int32_t length = (int32_t)int64_at(sizes_buf, w);
        ws->start[w] = at;
        ws->n0[w] = length;
        for (int32_t i = 0; i < length; i++) {
            ws->lengths[at] = 1;
            ws->next[at] = i + 1 < length ? i + 1 : -1;
            ws->prev[at++] = i - 1;
        }
        ws->counts[w] = PyLong_AsLongLong(PyList_GET_ITEM(counts, w));
        if (ws->counts[w] == -1 && PyErr_Occurred()) return -1;
        if (ws->counts[w] < 0 || (length && ws->counts[w] > (WEIGHT_BOUND - weight) / length)) {
            PyErr_Format(PyExc_ValueError, "counts[%zd] = %lld: counts must be >= 0, and add up, each times its "
                         "word's length, to less than 2**61", w, (long long)ws->counts[w]);
            return -1;
        }
        weight += ws->counts[w] * length;
    }
    return 0;
}

static void
words_free(Words *ws)
{
    PyMem_Free(ws->ids);
    PyMem_Free(ws->lengths);
    PyMem_Free(ws->next);
    PyMem_Free(ws->prev);
    PyMem_Free(ws->start);
    PyMem_Free(ws->n0);
    PyMem_Free(ws->counts);
}

PyObject *
bpe_merge_loop(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *counts, *add_merge;
    Py_buffer ids, sizes;
    Py_ssize_t vocab_size, current_size;
    long long min_frequency, max_length;
    if (!PyArg_ParseTuple(args, "y*y*O!nnLLO", &ids, &sizes, &PyList_Type, &counts, &vocab_size, &current_size,
                          &min_frequency, &max_length, &add_merge))
        return NULL;
    Words ws = {0};
    PairMap pair_counts = {0};
    Pending pending = {0};
    PlaceIndex places = {0};
    Heap heap = {0};
    uint8_t *listed = NULL;
    MergeState st = {&ws, &pair_counts, &pending, &places, max_length};
    PyObject *merges = PyList_New(0);
    int ok = merges && load_words(&ids, &sizes, counts, &ws) == 0 && pairmap_init(&pair_counts, 1024) == 0 &&
             pairmap_init(&pending.index, 1024) == 0 && pairmap_init(&places.index, 1024) == 0;
    PyBuffer_Release(&ids);
    PyBuffer_Release(&sizes);
    if (ok) {
        listed = PyMem_Calloc(ws.n_words + 1, 1);
        if (!listed) ok = (PyErr_NoMemory(), 0);
    }

    /* Count every pair and the words it occurs in (the initial entries). */
    for (Py_ssize_t w = 0; ok && w < ws.n_words; w++) {
        int32_t *ids = ws.ids + ws.start[w];
        for (int32_t i = 0; ok && i + 1 < ws.n0[w]; i++)
            ok = apply_change(&st, PAIR(ids[i], ids[i + 1]), 1, (int32_t)w, i) == 0;
    }
    for (Py_ssize_t k = 0; ok && k < pending.size; k++) {
        int64_t count = pairmap_slot(&pair_counts, pending.pairs[k])->value;
        if (count > 0) {
            ok = heap_push(&heap, (HeapEntry){count, pending.pairs[k], pending.lists[k]}) == 0;
            pending.lists[k] = (IntVec){0};
        } else {
            PyMem_Free(pending.lists[k].spill);
        }
    }
    if (ok) pending_clear(&pending);

    while (ok && current_size < vocab_size && heap.size) {
        HeapEntry top = heap_pop(&heap);
        int64_t current = pairmap_slot(&pair_counts, top.pair)->value;
        if (top.count != current) {
            top.count = current;
            ok = heap_push(&heap, top) == 0;
            continue;
        }
        if (current < 1 || min_frequency > current) {
            PyMem_Free(top.words.spill);
            break;
        }
        int32_t a = (int32_t)(top.pair >> 32), b = (int32_t)(top.pair & 0xffffffffu);
        PyObject *result = PyObject_CallFunction(add_merge, "ii", a, b);
        long new_id = -1;
        int answered = result && PyTuple_Check(result) && PyArg_ParseTuple(result, "ln", &new_id, &current_size);
        ok = answered && new_id >= 0 && new_id <= INT32_MAX;
        if (result && !ok && (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError))) {
            PyErr_Clear();
            PyErr_Format(answered ? PyExc_ValueError : PyExc_TypeError,
                         "add_merge(%d, %d) must give (new id >= 0, vocabulary size), got %R", a, b, result);
        }
        if (ok) {
            PyObject *pair = Py_BuildValue("(ii)", a, b);
            ok = pair && PyList_Append(merges, pair) == 0;
            Py_XDECREF(pair);
        }
        Py_XDECREF(result);
        if (ok) ok = merge_words(&st, &top.words, a, b, (int32_t)new_id, listed) == 0;
        PyMem_Free(top.words.spill);
        for (Py_ssize_t k = 0; ok && k < pending.size; k++) {
            int64_t count = pairmap_slot(&pair_counts, pending.pairs[k])->value;
            if (count > 0) {
                ok = heap_push(&heap, (HeapEntry){count, pending.pairs[k], pending.lists[k]}) == 0;
                pending.lists[k] = (IntVec){0};
            } else {
                PyMem_Free(pending.lists[k].spill);
            }
        }
        if (ok) pending_clear(&pending);
    }

    for (Py_ssize_t k = 0; k < heap.size; k++) PyMem_Free(heap.entries[k].words.spill);
    for (Py_ssize_t k = 0; k < pending.size; k++) PyMem_Free(pending.lists[k].spill);
    PyMem_Free(heap.entries);
    PyMem_Free(pending.index.slots);
    PyMem_Free(pending.pairs);
    PyMem_Free(pending.lists);
    PyMem_Free(pair_counts.slots);
    PyMem_Free(listed);
    placeindex_free(&places);
    words_free(&ws);
    if (!ok) {
        Py_XDECREF(merges);
        return NULL;
    }
    return merges;
}
