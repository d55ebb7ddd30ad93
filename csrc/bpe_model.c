/* csrc/bpe_model.c: a BPE model's merging of one word, for kvec/models/bpe.py.
 *
 *   BpeRanks(merges)   .merge(ids, starts=True, dropout=0.0) -> (ids, starts): merges applied in rank order;
 *                      with dropout, each merge taken from the queue is skipped with that probability
 *                      (BPE-dropout), drawn from the generator .seed(state) set (random.Random.getstate()[1])
 *   BpeSymbols(ranks, chars, spelled, byte_ids, unk_id, fuse_unk, prefix, suffix)
 *                      a word's first symbols as kvec.models.BPE makes them, then the merges:
 *       chars: {kind << 32 | code point: id}, kind 1 for a character after the first (the
 *           continuing prefix before it), 2 for the last (the end-of-word suffix after it), 3 both;
 *       spelled: None, or 1024 ids (kind * 256 + byte): words are spelled byte by byte (byte-level);
 *       byte_ids: None, or the 256 ids of <0x00>..<0xFF> (-1: missing) for byte fallback;
 *       unk_id: -1 for none (then a word with an unknown character is left to Python, which raises);
 *       prefix, suffix: the continuing prefix and end-of-word suffix, as UTF-8 bytes;
 *       dropout: as in BpeRanks.merge, drawing from the ranks' generator;
 *       whole: None, or {token: id} of the vocabulary for ignore_merges (a word that is a token is that
 *           token), with spelling: the 256 characters bytes are spelled with, for byte-level words.
 *       .word_model() -> the capsule of csrc/word_model.h: the segmentation without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "int64s.h"
#include "native.h"
#include "pair_map.h"
#include "twister.h"
#include "utf8.h"
#include "word_model.h"
#include "words.h"

/* ------------------------------------------------------------------------------------------------ */
/* BpeRanks: a model's merges, applied lowest rank first, leftmost on ties                          */

typedef struct {
    PyObject_HEAD
    PairMap ranks; /* (a, b) -> (rank << 32) | new_id */
    Twister twister; /* dropout's draws, one at a time under draw_lock (callers may not hold the GIL) */
    pthread_mutex_t draw_lock;
    int lock_ready;
} BpeRanks;

static int
BpeRanks_init(BpeRanks *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"merges", NULL};
    PyObject *merges;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!", kwlist, &PyList_Type, &merges)) return -1;
    if (!self->lock_ready) {
        if (pthread_mutex_init(&self->draw_lock, NULL) != 0) {
            PyErr_SetString(PyExc_RuntimeError, "could not create the dropout generator's lock");
            return -1;
        }
        self->lock_ready = 1;
        self->twister.index = TWISTER_N; /* an all-zero state until seed() */
    }
    PyMem_Free(self->ranks.slots);
    if (pairmap_init(&self->ranks, (size_t)PyList_GET_SIZE(merges)) < 0) return -1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(merges); i++) {
        long a, b, new_id;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(merges, i), "lll", &a, &b, &new_id)) return -1;
        PairSlot *slot = pairmap_slot(&self->ranks, PAIR(a, b));
        if (!slot) return -1;
        slot->value = ((int64_t)i << 32) | (uint32_t)new_id;
    }
    return 0;
}

static void
BpeRanks_dealloc(BpeRanks *self)
{
    if (self->lock_ready) pthread_mutex_destroy(&self->draw_lock);
    PyMem_Free(self->ranks.slots);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The value stored for the pair (a, b) (a merge's rank and new id, a symbol's id), or -1. */
static inline int64_t
pair_value(const PairMap *ranks, int32_t a, int32_t b)
{
    size_t i = pair_hash(PAIR(a, b)) & ranks->mask;
    uint64_t key = PAIR(a, b);
    while (ranks->slots[i].key != EMPTY_KEY) {
        if (ranks->slots[i].key == key) return ranks->slots[i].value;
        i = (i + 1) & ranks->mask;
    }
    return -1;
}

static void
minheap_push(uint64_t *heap, Py_ssize_t *size, uint64_t x)
{
    Py_ssize_t i = (*size)++;
    while (i > 0 && heap[(i - 1) / 2] > x) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = x;
}

static uint64_t
minheap_pop(uint64_t *heap, Py_ssize_t *size)
{
    uint64_t top = heap[0], last = heap[--*size];
    Py_ssize_t i = 0;
    for (;;) {
        Py_ssize_t child = 2 * i + 1;
        if (child >= *size) break;
        if (child + 1 < *size && heap[child + 1] < heap[child]) child++;
        if (heap[child] >= last) break;
        heap[i] = heap[child];
        i = child;
    }
    if (*size) heap[i] = last;
    return top;
}

/* A draw of dropout's generator: 1 when the merge is skipped. */
static int
dropped(BpeRanks *owner, double dropout)
{
    pthread_mutex_lock(&owner->draw_lock);
    double draw = twister_random(&owner->twister);
    pthread_mutex_unlock(&owner->draw_lock);
    return draw < dropout;
}

/* The merges of `owner` applied to ids[0 .. n) in place, lowest rank first and leftmost on ties; alive[i]
 * says which symbols start a token. With dropout, each merge taken from the queue is skipped with that
 * probability, and the skipped ones go back in the queue once a merge is not skipped (as
 * kvec.models.BPE always did). Raw allocations: runs without the GIL. Returns -1 when out of memory. */
static int
bpe_merge(BpeRanks *owner, int32_t *ids, Py_ssize_t n, char *alive, double dropout)
{
    const PairMap *ranks = &owner->ranks;
    Py_ssize_t *next = PyMem_RawMalloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    Py_ssize_t *prev = PyMem_RawMalloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    uint64_t *heap = PyMem_RawMalloc((size_t)(3 * n + 1) * sizeof(uint64_t)); /* n initial + at most 2 per merge */
    uint64_t *skipped = dropout > 0.0 ? PyMem_RawMalloc((size_t)(3 * n + 1) * sizeof(uint64_t)) : NULL;
    Py_ssize_t size = 0, n_skipped = 0;
    int status = -1;
    if (!next || !prev || !heap || (dropout > 0.0 && !skipped)) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        next[i] = i + 1 < n ? i + 1 : -1;
        prev[i] = i - 1;
        alive[i] = 1;
    }
    for (Py_ssize_t i = 0; i + 1 < n; i++) {
        int64_t r = pair_value(ranks, ids[i], ids[i + 1]);
        if (r >= 0) minheap_push(heap, &size, ((uint64_t)(r >> 32) << 32) | (uint64_t)i);
    }
    while (size) {
        uint64_t top = minheap_pop(heap, &size);
        if (dropout > 0.0) {
            if (dropped(owner, dropout)) {
                skipped[n_skipped++] = top;
                continue;
            }
            for (Py_ssize_t k = 0; k < n_skipped; k++) minheap_push(heap, &size, skipped[k]);
            n_skipped = 0;
        }
        Py_ssize_t pos = (Py_ssize_t)(top & 0xffffffffu);
        int64_t rank = (int64_t)(top >> 32);
        Py_ssize_t right = next[pos];
        if (!alive[pos] || right == -1) continue;
        int64_t r = pair_value(ranks, ids[pos], ids[right]);
        if (r < 0 || (r >> 32) != rank) continue; /* an expired entry */
        ids[pos] = (int32_t)(r & 0xffffffff);
        alive[right] = 0;
        next[pos] = next[right];
        if (next[pos] != -1) prev[next[pos]] = pos;
        if (prev[pos] != -1) {
            int64_t rp = pair_value(ranks, ids[prev[pos]], ids[pos]);
            if (rp >= 0) minheap_push(heap, &size, ((uint64_t)(rp >> 32) << 32) | (uint64_t)prev[pos]);
        }
        if (next[pos] != -1) {
            int64_t rn = pair_value(ranks, ids[pos], ids[next[pos]]);
            if (rn >= 0) minheap_push(heap, &size, ((uint64_t)(rn >> 32) << 32) | (uint64_t)pos);
        }
    }
    status = 0;
done:
    PyMem_RawFree(next);
    PyMem_RawFree(prev);
    PyMem_RawFree(heap);
    PyMem_RawFree(skipped);
    return status;
}

/* merge(ids) -> (merged ids, the first symbol index of each merged token) */
static PyObject *
BpeRanks_merge(BpeRanks *self, PyObject *args)
{
    PyObject *symbols;
    int with_starts = 1;
    double dropout = 0.0;
    if (!PyArg_ParseTuple(args, "O!|pd", &PyList_Type, &symbols, &with_starts, &dropout)) return NULL;
    if (!self->lock_ready) {
        PyErr_SetString(PyExc_RuntimeError, "BpeRanks.__init__ was not called");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(symbols);
    int32_t *ids = PyMem_Malloc((size_t)(n + 1) * sizeof(int32_t));
    char *alive = PyMem_Malloc((size_t)n + 1);
    PyObject *out_ids = NULL, *out_starts = NULL, *result = NULL;
    if (!ids || !alive) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long id = PyLong_AsLong(PyList_GET_ITEM(symbols, i));
        if (id == -1 && PyErr_Occurred()) goto done;
        ids[i] = (int32_t)id;
    }
    if (bpe_merge(self, ids, n, alive, dropout) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    out_ids = PyList_New(0);
    if (!out_ids) goto done;
    if (!with_starts) {
        for (Py_ssize_t i = 0; i < n; i++) {
            if (!alive[i]) continue;
            PyObject *id = PyLong_FromLong(ids[i]);
            int rc = id ? PyList_Append(out_ids, id) : -1;
            Py_XDECREF(id);
            if (rc < 0) goto done;
        }
        result = Py_NewRef(out_ids);
        goto done;
    }
    out_starts = PyList_New(0);
    if (!out_starts) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!alive[i]) continue;
        PyObject *id = PyLong_FromLong(ids[i]), *start = PyLong_FromSsize_t(i);
        int rc = id && start ? (PyList_Append(out_ids, id) | PyList_Append(out_starts, start)) : -1;
        Py_XDECREF(id);
        Py_XDECREF(start);
        if (rc < 0) goto done;
    }
    result = PyTuple_Pack(2, out_ids, out_starts);
done:
    Py_XDECREF(out_ids);
    Py_XDECREF(out_starts);
    PyMem_Free(ids);
    PyMem_Free(alive);
    return result;
}

/* seed(state): the dropout generator set to random.Random's state (getstate()[1]: 624 words, then
 * the position in them) */
static PyObject *
BpeRanks_seed(BpeRanks *self, PyObject *state)
{
    if (!self->lock_ready) {
        PyErr_SetString(PyExc_RuntimeError, "BpeRanks.__init__ was not called");
        return NULL;
    }
    if (!PyTuple_Check(state) || PyTuple_GET_SIZE(state) != TWISTER_N + 1) {
        PyErr_SetString(PyExc_ValueError, "state must be random.Random().getstate()[1]: a tuple of 625 ints");
        return NULL;
    }
    Twister twister;
    for (Py_ssize_t i = 0; i <= TWISTER_N; i++) {
        unsigned long word = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(state, i));
        if (word == (unsigned long)-1 && PyErr_Occurred()) return NULL;
        if (i < TWISTER_N) twister.state[i] = (uint32_t)word;
        else twister.index = word > TWISTER_N ? TWISTER_N : (int)word;
    }
    pthread_mutex_lock(&self->draw_lock);
    self->twister = twister;
    pthread_mutex_unlock(&self->draw_lock);
    Py_RETURN_NONE;
}

static PyMethodDef BpeRanks_methods[] = {
    {"merge", (PyCFunction)BpeRanks_merge, METH_VARARGS,
     "merge(ids, starts=True, dropout=0.0) -> (ids, starts): apply the merges lowest rank first, leftmost on "
     "ties; starts[k] is the index of the first input symbol of output token k. With starts=False, only the "
     "ids. With dropout, each merge is skipped with that probability (the generator of seed())."},
    {"seed", (PyCFunction)BpeRanks_seed, METH_O,
     "seed(state): the dropout generator set to random.Random(seed).getstate()[1]"},
    {NULL}};

PyTypeObject BpeRanksType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._native.BpeRanks",
    .tp_basicsize = sizeof(BpeRanks),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "BpeRanks(merges): merges as (left id, right id, new id), highest priority first.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)BpeRanks_init,
    .tp_dealloc = (destructor)BpeRanks_dealloc,
    .tp_methods = BpeRanks_methods,
};

/* ------------------------------------------------------------------------------------------------ */
/* BpeSymbols: a word's first symbols, then the merges, without the GIL (the word encoder's model)    */

enum { UNK_DROPPED = -1, UNK_LEFT_TO_PYTHON = -2 };

typedef struct {
    PyObject_HEAD
    BpeRanks *ranks;
    PairMap chars;       /* kind << 32 | code point -> id */
    int32_t *spelled;    /* kind * 256 + byte -> id, or NULL */
    int32_t byte_ids[256]; /* <0xNN> (-1: missing) */
    int byte_fallback, fuse_unk, has_prefix, has_suffix;
    int64_t unk_id;      /* or UNK_DROPPED, UNK_LEFT_TO_PYTHON */
    double dropout;
    Py_buffer prefix, suffix; /* UTF-8 */
    WordTable whole;          /* ignore_merges: token -> id (in slot); entries NULL without */
    Py_UCS4 spelling[256];
    int ready;
} BpeSymbols;

/* The vocabulary for ignore_merges, and the byte spelling its byte-level words are looked up in; -1
 * with an exception set. */
static int
bpe_symbols_whole(BpeSymbols *self, PyObject *whole, PyObject *spelling, int spelled)
{
    if (whole == Py_None) return 0;
    if (!PyDict_Check(whole) || (spelled && (!PyUnicode_Check(spelling) || PyUnicode_GET_LENGTH(spelling) != 256))) {
        PyErr_SetString(PyExc_TypeError, "whole must be a dict, with spelling a str of 256 characters for spelled words");
        return -1;
    }
    if (spelled)
        for (int b = 0; b < 256; b++) self->spelling[b] = PyUnicode_READ_CHAR(spelling, b);
    if (table_init(&self->whole, (size_t)PyDict_GET_SIZE(whole)) < 0) return -1;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(whole, &pos, &key, &value)) {
        long id = PyLong_Check(value) ? PyLong_AsLong(value) : -1;
        if (!PyUnicode_Check(key) || id < 0 || id > INT32_MAX) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "whole maps %R to %R: ids are int32 >= 0", key, value);
            return -1;
        }
        Span w = {PyUnicode_KIND(key), PyUnicode_DATA(key), 0, PyUnicode_GET_LENGTH(key), key};
        uint64_t h = hash_code_points(w.kind, w.data, 0, w.length);
        Entry *e = table_probe(&self->whole, &w, h);
        if (e->word) continue;
        if (table_fill(&self->whole, e, h, Py_NewRef(key), NULL, id) < 0) return -1;
    }
    return 0;
}

/* With ignore_merges, the id of the token the whole word is (spelled byte by byte for byte-level
 * words), or -1; -2 when out of memory. */
static int64_t
whole_word_id(const BpeSymbols *self, const Span *word)
{
    if (!self->whole.entries) return -1;
    if (!self->spelled) {
        Entry *e = table_probe((WordTable *)&self->whole, word, hash_code_points(word->kind, word->data, word->start, word->length));
        return e->word ? e->slot : -1;
    }
    Py_UCS4 *chars = PyMem_RawMalloc(sizeof(Py_UCS4) * (size_t)(4 * word->length + 1));
    if (!chars) return -2;
    Py_ssize_t n = 0;
    unsigned char bytes[4];
    for (Py_ssize_t i = 0; i < word->length; i++) {
        int m = utf8_of(PyUnicode_READ(word->kind, word->data, word->start + i), bytes);
        for (int k = 0; k < m; k++) chars[n++] = self->spelling[bytes[k]];
    }
    Span spelled = {PyUnicode_4BYTE_KIND, chars, 0, n, NULL};
    Entry *e = table_probe((WordTable *)&self->whole, &spelled, hash_code_points(spelled.kind, chars, 0, n));
    int64_t id = e->word ? e->slot : -1;
    PyMem_RawFree(chars);
    return id;
}

static int
BpeSymbols_init(BpeSymbols *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"ranks", "chars", "spelled", "byte_ids", "unk_id", "fuse_unk",
                             "prefix", "suffix", "dropout", "whole", "spelling", NULL};
    PyObject *ranks, *chars, *spelled, *byte_ids;
    long long unk_id;
    int fuse_unk;
    if (self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "a BpeSymbols is initialized once"); /* read without the GIL */
        return -1;
    }
    double dropout = 0.0;
    PyObject *whole = Py_None, *spelling = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!OOLpy*y*|dOO", kwlist, &BpeRanksType, &ranks, &PyDict_Type,
                                     &chars, &spelled, &byte_ids, &unk_id, &fuse_unk, &self->prefix, &self->suffix,
                                     &dropout, &whole, &spelling))
        return -1;
    self->ready = 1; /* the buffers are held from here on: dealloc releases them */
    self->ranks = (BpeRanks *)Py_NewRef(ranks);
    self->dropout = dropout;
    if (bpe_symbols_whole(self, whole, spelling, spelled != Py_None) < 0) return -1;
    if (!self->ranks->lock_ready) {
        PyErr_SetString(PyExc_RuntimeError, "BpeRanks.__init__ was not called");
        return -1;
    }
    self->unk_id = unk_id < UNK_LEFT_TO_PYTHON || unk_id > INT32_MAX ? UNK_LEFT_TO_PYTHON : unk_id;
    self->fuse_unk = fuse_unk;
    self->has_prefix = self->prefix.len > 0;
    self->has_suffix = self->suffix.len > 0;
    if (pairmap_init(&self->chars, (size_t)PyDict_GET_SIZE(chars)) < 0) return -1;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(chars, &pos, &key, &value)) {
        unsigned long long k = PyLong_AsUnsignedLongLong(key);
        long id = PyLong_AsLong(value);
        if ((k == (unsigned long long)-1 || id == -1) && PyErr_Occurred()) return -1;
        if (id < 0 || id > INT32_MAX || k == EMPTY_KEY) {
            PyErr_Format(PyExc_ValueError, "chars maps %R to %R: ids are int32 >= 0", key, value);
            return -1;
        }
        PairSlot *slot = pairmap_slot(&self->chars, (uint64_t)k);
        if (!slot) return -1;
        slot->value = id;
    }
    struct {
        PyObject *list;
        int32_t *into;
        Py_ssize_t size;
        const char *name;
    } tables[2] = {{spelled, NULL, 1024, "spelled"}, {byte_ids, self->byte_ids, 256, "byte_ids"}};
    if (spelled != Py_None && !(self->spelled = tables[0].into = PyMem_Malloc(sizeof(int32_t) * 1024))) {
        PyErr_NoMemory();
        return -1;
    }
    self->byte_fallback = byte_ids != Py_None;
    for (int t = 0; t < 2; t++) {
        if (tables[t].list == Py_None) continue;
        if (!PyList_Check(tables[t].list) || PyList_GET_SIZE(tables[t].list) != tables[t].size) {
            PyErr_Format(PyExc_ValueError, "%s must be None or a list of %zd ids", tables[t].name, tables[t].size);
            return -1;
        }
        for (Py_ssize_t i = 0; i < tables[t].size; i++) {
            long id = PyLong_AsLong(PyList_GET_ITEM(tables[t].list, i));
            if (id == -1 && PyErr_Occurred()) return -1;
            tables[t].into[i] = id < 0 || id > INT32_MAX ? -1 : (int32_t)id;
        }
    }
    return 0;
}

static void
BpeSymbols_dealloc(BpeSymbols *self)
{
    if (self->ready) {
        PyBuffer_Release(&self->prefix);
        PyBuffer_Release(&self->suffix);
    }
    Py_XDECREF(self->ranks);
    PyMem_Free(self->chars.slots);
    PyMem_Free(self->spelled);
    table_free(&self->whole);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The byte-fallback ids of a symbol that is not in the vocabulary: the bytes of prefix + c + suffix as
 * the symbol spells it; 0 when some byte has no id (or c is a lone surrogate, which Python's strict
 * UTF-8 refuses). */
static int
fallback_bytes(const BpeSymbols *self, uint32_t c, int kind, Int64s *symbols, int *pushed)
{
    unsigned char own[4];
    int n = utf8_of(c, own);
    *pushed = 0;
    if (c >= 0xD800 && c < 0xE000) return 0;
    const Py_buffer *parts[3] = {kind & 1 ? &self->prefix : NULL, NULL, kind & 2 ? &self->suffix : NULL};
    for (int pass = 0; pass < 2; pass++) { /* check every byte, then push them */
        for (int p = 0; p < 3; p++) {
            const unsigned char *bytes = p == 1 ? own : parts[p] ? parts[p]->buf : NULL;
            Py_ssize_t length = p == 1 ? n : parts[p] ? parts[p]->len : 0;
            for (Py_ssize_t k = 0; k < length; k++) {
                if (self->byte_ids[bytes[k]] < 0) return 0;
                if (pass && int64s_push(symbols, self->byte_ids[bytes[k]]) < 0) return -1;
            }
        }
    }
    *pushed = 1;
    return 0;
}

/* The first symbols of a word, as kvec.models.BPE._symbols makes them; 1 when only Python can say (a
 * missing unk token raises there), -1 when out of memory. */
static int
first_symbols(const BpeSymbols *self, const Span *word, Int64s *symbols)
{
    Py_ssize_t n = word->length;
    if (self->spelled) { /* byte-level: the UTF-8 bytes, each one symbol */
        unsigned char bytes[4];
        Py_ssize_t total = 0, at = 0;
        for (Py_ssize_t i = 0; i < n; i++) total += utf8_of(PyUnicode_READ(word->kind, word->data, word->start + i), bytes);
        for (Py_ssize_t i = 0; i < n; i++) {
            int m = utf8_of(PyUnicode_READ(word->kind, word->data, word->start + i), bytes);
            for (int k = 0; k < m; k++, at++) {
                int kind = (at > 0 && self->has_prefix) | (at == total - 1 && self->has_suffix) << 1;
                if (int64s_push(symbols, self->spelled[kind * 256 + bytes[k]]) < 0) return -1;
            }
        }
        return 0;
    }
    int64_t pending = -1; /* an unknown symbol not emitted yet (fused runs are one) */
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t c = PyUnicode_READ(word->kind, word->data, word->start + i);
        int kind = (i > 0 && self->has_prefix) | (i == n - 1 && self->has_suffix) << 1;
        int64_t id = pair_value(&self->chars, kind, (int32_t)c);
        if (id >= 0) {
            if ((pending >= 0 && int64s_push(symbols, pending) < 0) || int64s_push(symbols, id) < 0) return -1;
            pending = -1;
            continue;
        }
        int pushed = 0;
        if (self->byte_fallback && fallback_bytes(self, c, kind, symbols, &pushed) < 0) return -1;
        if (pushed) continue; /* as in the library, a pending unknown comes after these */
        if (self->unk_id == UNK_DROPPED) continue;
        if (self->unk_id == UNK_LEFT_TO_PYTHON) return 1;
        if (pending >= 0 && self->fuse_unk) continue;
        if (pending >= 0 && int64s_push(symbols, pending) < 0) return -1;
        pending = self->unk_id;
    }
    if (pending >= 0 && int64s_push(symbols, pending) < 0) return -1;
    return 0;
}

/* WordModel.word_ids (csrc/word_model.h). */
static int
bpe_word_ids(PyObject *model, const Span *word, Int64s *out)
{
    const BpeSymbols *self = (const BpeSymbols *)model;
    int64_t whole = whole_word_id(self, word);
    if (whole != -1) return whole < 0 ? -1 : int64s_push(out, whole);
    Int64s symbols = {0};
    int32_t *ids = NULL;
    char *alive = NULL;
    int status = first_symbols(self, word, &symbols);
    if (status != 0) goto done;
    status = -1;
    Py_ssize_t n = symbols.length;
    ids = PyMem_RawMalloc(sizeof(int32_t) * (size_t)(n + 1));
    alive = PyMem_RawMalloc((size_t)n + 1);
    if (!ids || !alive) goto done;
    for (Py_ssize_t i = 0; i < n; i++) ids[i] = (int32_t)symbols.data[i];
    if (bpe_merge(self->ranks, ids, n, alive, self->dropout) < 0) goto done;
    for (Py_ssize_t i = 0; i < n; i++)
        if (alive[i] && int64s_push(out, ids[i]) < 0) goto done;
    status = 0;
done:
    PyMem_RawFree(symbols.data);
    PyMem_RawFree(ids);
    PyMem_RawFree(alive);
    return status;
}

static const WordModel bpe_word_model = {bpe_word_ids};

static PyObject *
BpeSymbols_word_model(BpeSymbols *self, PyObject *Py_UNUSED(ignored))
{
    if (!self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "BpeSymbols.__init__ was not called");
        return NULL;
    }
    return word_model_capsule((PyObject *)self, &bpe_word_model);
}

static PyMethodDef BpeSymbols_methods[] = {
    {"word_model", (PyCFunction)BpeSymbols_word_model, METH_NOARGS,
     "word_model() -> a capsule of the segmentation for the word encoder (csrc/word_model.h)"},
    {NULL}};

PyTypeObject BpeSymbolsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._native.BpeSymbols",
    .tp_basicsize = sizeof(BpeSymbols),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "BpeSymbols(ranks, chars, spelled, byte_ids, unk_id, fuse_unk, prefix, suffix): a BPE model's "
              "segmentation of one word, for the word encoder.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)BpeSymbols_init,
    .tp_dealloc = (destructor)BpeSymbols_dealloc,
    .tp_methods = BpeSymbols_methods,
};
