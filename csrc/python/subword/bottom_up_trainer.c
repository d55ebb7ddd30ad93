/* csrc/python/subword/bottom_up_trainer.c: the rounds of Google's bottom-up WordPiece learner, for
 * kvec/trainers/bottom_up.py.
 *
 *   BottomUpLearner(words, counts, joiner)  .tokens(thresh, rounds)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "subword.h"
#include "hash.h"
#include "texts.h"

/* ------------------------------------------------------------------------------------------------ */
/* BottomUpLearner: the rounds of Google's bottom-up WordPiece learner for one word list             */
/*                                                                                                   */
/* A token is (joined, code points): a substring of a word, marked "joined" when it starts inside the */
/* word and the joiner is in use. Callers guarantee no word contains the joiner, so joined and plain  */
/* tokens never spell the same string.                                                               */

typedef struct {
    uint64_t hash;
    int64_t count;
    int32_t word, start, end; /* the code points words[word][start:end] */
    int8_t joined;
    int8_t used;
} TokenSlot;

typedef struct {
    TokenSlot *slots;
    size_t mask, used;
    Py_ssize_t *order;  /* slot indices in insertion order */
    Py_ssize_t longest; /* the most code points of any entry */
} TokenTable;

typedef struct {
    PyObject_HEAD
    Texts words;
    int64_t *counts;
    PyObject *joiner; /* str or None */
    int has_joiner;
    TokenTable first_round; /* discounted counts of round one (threshold-independent) */
    int first_ready;
} BottomUpLearner;

static inline uint64_t
token_hash_step(uint64_t h, uint32_t c)
{
    return (h ^ c) * 0x100000001b3ULL;
}

static inline uint64_t
token_hash_start(int joined)
{
    return 0xcbf29ce484222325ULL ^ (joined ? 0x9e3779b97f4a7c15ULL : 0);
}

static int
tokentable_init(TokenTable *t, size_t capacity)
{
    size_t size = 1024;
    while (size < capacity * 2) size <<= 1;
    t->slots = PyMem_Calloc(size, sizeof(TokenSlot));
    t->order = PyMem_Malloc((size / 2 + 1) * sizeof(Py_ssize_t));
    if (!t->slots || !t->order) {
        PyErr_NoMemory();
        return -1;
    }
    t->mask = size - 1;
    t->used = 0;
    t->longest = 0;
    return 0;
}

static void
tokentable_free(TokenTable *t)
{
    PyMem_Free(t->slots);
    PyMem_Free(t->order);
    t->slots = NULL;
    t->order = NULL;
}

static inline int
same_token(BottomUpLearner *L, const TokenSlot *slot, int joined, const uint32_t *cps, Py_ssize_t n)
{
    if (slot->joined != joined || slot->end - slot->start != n) return 0;
    return memcmp(L->words.cps + L->words.offset[slot->word] + slot->start, cps, n * sizeof(uint32_t)) == 0;
}

static int tokentable_grow(TokenTable *t);

/* The slot for (joined, words[w][start:end]) with the given hash; inserted (count 0) if `insert`. */
static TokenSlot *
tokentable_find(BottomUpLearner *L, TokenTable *t, uint64_t hash, int joined, Py_ssize_t w, Py_ssize_t start,
                Py_ssize_t end, int insert)
{
    const uint32_t *cps = L->words.cps + L->words.offset[w] + start;
    size_t i = (size_t)mix64(hash) & t->mask;
    while (t->slots[i].used) {
        if (t->slots[i].hash == hash && same_token(L, &t->slots[i], joined, cps, end - start)) return &t->slots[i];
        i = (i + 1) & t->mask;
    }
    if (!insert) return NULL;
    if ((t->used + 1) * 2 > t->mask) {
        if (tokentable_grow(t) < 0) return NULL;
        return tokentable_find(L, t, hash, joined, w, start, end, insert);
    }
    TokenSlot *slot = &t->slots[i];
    *slot = (TokenSlot){hash, 0, (int32_t)w, (int32_t)start, (int32_t)end, (int8_t)joined, 1};
    t->order[t->used++] = (Py_ssize_t)i;
    if (end - start > t->longest) t->longest = end - start;
    return slot;
}

static int
tokentable_grow(TokenTable *t)
{
    TokenTable bigger;
    if (tokentable_init(&bigger, t->mask + 1) < 0) return -1;
    for (size_t k = 0; k < t->used; k++) {
        TokenSlot *old = &t->slots[t->order[k]];
        size_t i = (size_t)mix64(old->hash) & bigger.mask;
        while (bigger.slots[i].used) i = (i + 1) & bigger.mask;
        bigger.slots[i] = *old;
        bigger.order[bigger.used++] = (Py_ssize_t)i;
    }
    bigger.longest = t->longest;
    tokentable_free(t);
    *t = bigger;
    return 0;
}

/* The rounds' discounted counts, without the discounting.
 *
 * A round counts c(v), the occurrences of token v starting at a wordpiece start, then walks tokens
 * longest first subtracting each one's (already discounted) count d(u) from its shorter prefixes. The
 * table is closed under prefixes, so by induction from the longest tokens the counts in the subtree
 * under v add up to c(v), and d(v) = c(v) - sum of c over v's one-longer extensions: the occurrences
 * of v that reach the end of their word. So a round only adds each word's count to the suffixes that
 * start at its piece starts, one table probe per start instead of one per substring plus a discount.
 * Tokens that are never such a suffix have d = 0; they matter only for a threshold <= 0, and
 * `with_prefixes` then also enters every shorter substring with count 0.
 *
 * The starts are every position when `tokens` is NULL, else those of the greedy longest-match split by
 * `tokens` (words that cannot be split are skipped). */
static int
count_suffixes(BottomUpLearner *L, TokenTable *tokens, int with_prefixes, TokenTable *table)
{
    Py_ssize_t *starts = NULL;
    uint64_t *hashes = NULL;
    Py_ssize_t longest = L->words.longest;
    starts = PyMem_Malloc((longest + 1) * sizeof(Py_ssize_t));
    hashes = PyMem_Malloc((longest + 2) * sizeof(uint64_t));
    if (!starts || !hashes) {
        PyMem_Free(starts);
        PyMem_Free(hashes);
        PyErr_NoMemory();
        return -1;
    }
    int rc = 0;
    for (Py_ssize_t w = 0; rc == 0 && w < L->words.n; w++) {
        Py_ssize_t n = L->words.length[w], n_starts = 0;
        const uint32_t *cps = L->words.cps + L->words.offset[w];
        if (!tokens) {
            for (Py_ssize_t i = 0; i < n; i++) starts[n_starts++] = i;
        } else {
            Py_ssize_t start = 0;
            while (start < n) {
                int joined = start > 0 && L->has_joiner;
                /* nothing longer than the longest token can match, so the search starts there */
                Py_ssize_t end = start + tokens->longest < n ? start + tokens->longest : n;
                uint64_t h = token_hash_start(joined);
                for (Py_ssize_t i = start + 1; i <= end; i++) hashes[i] = h = token_hash_step(h, cps[i - 1]);
                while (end > start && !tokentable_find(L, tokens, hashes[end], joined, w, start, end, 0)) end--;
                if (end == start) {
                    n_starts = -1;
                    break;
                }
                starts[n_starts++] = start;
                start = end;
            }
            if (n_starts < 0) continue;
        }
        for (Py_ssize_t k = 0; rc == 0 && k < n_starts; k++) {
            Py_ssize_t start = starts[k];
            int joined = start > 0 && L->has_joiner;
            uint64_t h = token_hash_start(joined);
            for (Py_ssize_t end = start + 1; end <= n; end++) {
                h = token_hash_step(h, cps[end - 1]);
                if (end < n && !with_prefixes) continue;
                TokenSlot *slot = tokentable_find(L, table, h, joined, w, start, end, 1);
                if (!slot) {
                    rc = -1;
                    break;
                }
                if (end == n) slot->count += L->counts[w];
            }
        }
    }
    PyMem_Free(starts);
    PyMem_Free(hashes);
    return rc;
}

/* tokens := entries of `table` counted at least `thresh`, plus every character (and joined
 * character) with count 1 when absent. */
static int
select_tokens(BottomUpLearner *L, TokenTable *table, int64_t thresh, TokenTable *tokens)
{
    if (table) {
        for (size_t k = 0; k < table->used; k++) {
            TokenSlot *slot = &table->slots[table->order[k]];
            if (slot->count < thresh) continue;
            TokenSlot *kept = tokentable_find(L, tokens, slot->hash, slot->joined, slot->word, slot->start, slot->end, 1);
            if (!kept) return -1;
            kept->count = slot->count;
        }
    }
    for (Py_ssize_t w = 0; w < L->words.n; w++) {
        const uint32_t *cps = L->words.cps + L->words.offset[w];
        for (Py_ssize_t i = 0; i < L->words.length[w]; i++) {
            for (int joined = 0; joined <= L->has_joiner; joined++) {
                uint64_t h = token_hash_step(token_hash_start(joined), cps[i]);
                size_t before = tokens->used;
                TokenSlot *slot = tokentable_find(L, tokens, h, joined, w, i, i + 1, 1);
                if (!slot) return -1;
                if (tokens->used != before) slot->count = 1; /* absent: added with count 1 */
            }
        }
    }
    return 0;
}

/* 0 when the counts are >= 0 and add up to less than 2**63 (a token's count is at most their sum). */
static int
check_counts(const int64_t *counts, Py_ssize_t n)
{
    int64_t total = 0;
    for (Py_ssize_t w = 0; w < n; w++) {
        if (counts[w] < 0 || counts[w] > INT64_MAX - total) {
            PyErr_Format(PyExc_ValueError, "counts[%zd] = %lld: counts must be >= 0 and add up to less than 2**63", w,
                         (long long)counts[w]);
            return -1;
        }
        total += counts[w];
    }
    return 0;
}

static int
BottomUpLearner_init(BottomUpLearner *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"words", "counts", "joiner", NULL};
    PyObject *words, *counts, *joiner;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!O", kwlist, &PyList_Type, &words, &PyList_Type, &counts,
                                     &joiner))
        return -1;
    if (PyList_GET_SIZE(counts) != PyList_GET_SIZE(words)) {
        PyErr_SetString(PyExc_ValueError, "words and counts differ in length");
        return -1;
    }
    /* a second __init__ starts afresh: the first round's counts are of the words before */
    texts_free(&self->words);
    PyMem_Free(self->counts);
    self->counts = NULL;
    tokentable_free(&self->first_round);
    self->first_ready = 0;
    Py_CLEAR(self->joiner);
    if (texts_init(&self->words, words, "words") < 0) return -1;
    self->counts = int64_array(counts, self->words.n, "counts");
    if (!self->counts) return -1;
    if (check_counts(self->counts, self->words.n) < 0) return -1;
    Py_INCREF(joiner);
    self->joiner = joiner;
    self->has_joiner = joiner != Py_None;
    return 0;
}

static void
BottomUpLearner_dealloc(BottomUpLearner *self)
{
    texts_free(&self->words);
    PyMem_Free(self->counts);
    Py_XDECREF(self->joiner);
    tokentable_free(&self->first_round);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
token_str(BottomUpLearner *L, const TokenSlot *slot)
{
    PyObject *piece = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, L->words.cps + L->words.offset[slot->word] + slot->start,
                                                slot->end - slot->start);
    if (!piece || !slot->joined) return piece;
    PyObject *joined = PyUnicode_Concat(L->joiner, piece);
    Py_DECREF(piece);
    return joined;
}

/* The tokens kept after `iterations` rounds of counting and selection at `thresh`, characters included,
 * into `tokens`; 0, or -1 with an exception set. */
static int
learn_tokens(BottomUpLearner *self, long long thresh, int iterations, TokenTable *tokens)
{
    TokenTable table = {0};
    int rc = -1;
    if (tokentable_init(tokens, 1024) < 0) goto done;
    if (select_tokens(self, NULL, 0, tokens) < 0) goto done;
    /* a threshold <= 0 also keeps tokens counted 0, so those rounds enter every prefix (not cached) */
    int with_prefixes = thresh <= 0;
    for (int round = 0; round < iterations; round++) {
        TokenTable *counted;
        if (round == 0 && !with_prefixes) {
            if (!self->first_ready) {
                if (tokentable_init(&self->first_round, 1024) < 0 ||
                    count_suffixes(self, NULL, 0, &self->first_round) < 0)
                    goto done;
                self->first_ready = 1;
            }
            counted = &self->first_round;
        } else {
            if (tokentable_init(&table, tokens->used) < 0 ||
                count_suffixes(self, round ? tokens : NULL, with_prefixes, &table) < 0)
                goto done;
            counted = &table;
        }
        tokentable_free(tokens);
        if (tokentable_init(tokens, counted->used) < 0 || select_tokens(self, counted, thresh, tokens) < 0) goto done;
        if (counted == &table) tokentable_free(&table);
    }
    rc = 0;
done:
    tokentable_free(&table);
    return rc;
}

/* {token: count} of a table's tokens, in its order. */
static PyObject *
token_dict(BottomUpLearner *self, const TokenTable *tokens)
{
    PyObject *result = PyDict_New();
    for (size_t k = 0; result && k < tokens->used; k++) {
        TokenSlot *slot = &tokens->slots[tokens->order[k]];
        PyObject *key = token_str(self, slot), *value = PyLong_FromLongLong(slot->count);
        if (!key || !value || PyDict_SetItem(result, key, value) < 0) Py_CLEAR(result);
        Py_XDECREF(key);
        Py_XDECREF(value);
    }
    return result;
}

/* tokens(thresh, num_iterations) -> {token: count} after the rounds, characters included */
static PyObject *
BottomUpLearner_tokens(BottomUpLearner *self, PyObject *args)
{
    long long thresh;
    int iterations;
    if (!PyArg_ParseTuple(args, "Li", &thresh, &iterations)) return NULL;
    TokenTable tokens = {0};
    PyObject *result = learn_tokens(self, thresh, iterations, &tokens) == 0 ? token_dict(self, &tokens) : NULL;
    tokentable_free(&tokens);
    return result;
}

static PyMethodDef BottomUpLearner_methods[] = {
    {"tokens", (PyCFunction)BottomUpLearner_tokens, METH_VARARGS,
     "tokens(thresh, num_iterations) -> {token: count} after the learning rounds, characters included"},
    {NULL}};

PyTypeObject BottomUpLearnerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._subword.BottomUpLearner",
    .tp_basicsize = sizeof(BottomUpLearner),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "BottomUpLearner(words, counts, joiner): the rounds of the bottom-up WordPiece learner.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)BottomUpLearner_init,
    .tp_dealloc = (destructor)BottomUpLearner_dealloc,
    .tp_methods = BottomUpLearner_methods,
};
