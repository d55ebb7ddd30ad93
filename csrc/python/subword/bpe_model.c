/* csrc/python/subword/bpe_model.c: the Python binding of BPE (csrc/core/bpe.c), for kvec/models/bpe.py.
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
 *       .word_model() -> the capsule of csrc/python/word_model.h: the segmentation without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "bpe.h"
#include "int64s.h"
#include "subword.h"
#include "pair_map.h"
#include "twister.h"
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

/* One merge (left id, right id, new id) of the list. */
static int
read_merge(PyObject *merge, Py_ssize_t i, long *a, long *b, long *new_id)
{
    if (!PyTuple_Check(merge)) {
        PyErr_Format(PyExc_TypeError, "merges[%zd] must be a tuple (left id, right id, new id), got %.100s", i,
                     Py_TYPE(merge)->tp_name);
        return -1;
    }
    return PyArg_ParseTuple(merge, "lll", a, b, new_id) ? 0 : -1;
}

/* The ranks of a list of merges, highest priority first. */
static int
read_ranks(PairMap *ranks, PyObject *merges)
{
    if (pairmap_init(ranks, (size_t)PyList_GET_SIZE(merges)) < 0) return -1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(merges); i++) {
        long a, b, new_id;
        if (read_merge(PyList_GET_ITEM(merges, i), i, &a, &b, &new_id) < 0) return -1;
        PairSlot *slot = pairmap_slot(ranks, PAIR(a, b));
        if (!slot) return -1;
        slot->value = ((int64_t)i << 32) | (uint32_t)new_id;
    }
    return 0;
}

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
    self->ranks.slots = NULL;
    return read_ranks(&self->ranks, merges);
}

static void
BpeRanks_dealloc(BpeRanks *self)
{
    if (self->lock_ready) pthread_mutex_destroy(&self->draw_lock);
    PyMem_Free(self->ranks.slots);
    Py_TYPE(self)->tp_free((PyObject *)self);
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

/* BpeDropout.skip over the ranks' generator; `dropout` the probability (see bpe_dropout) */
typedef struct {
    BpeRanks *owner;
    double dropout;
} Draws;

static int
skip_merge(void *context)
{
    Draws *draws = context;
    return dropped(draws->owner, draws->dropout);
}

/* core's bpe_merge with this model's ranks and, when dropout > 0, its generator */
static int
ranks_merge(BpeRanks *owner, int32_t *ids, Py_ssize_t n, char *alive, double dropout)
{
    Draws draws = {owner, dropout};
    BpeDropout skipping = {skip_merge, &draws};
    return bpe_merge(&owner->ranks, ids, n, alive, dropout > 0.0 ? &skipping : NULL);
}

/* The symbols of a list merged, as the ids left, with the first symbol index of each when asked. */
static PyObject *
merged_symbols(BpeRanks *self, PyObject *symbols, int with_starts, double dropout)
{
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
    if (ranks_merge(self, ids, n, alive, dropout) < 0) {
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
    return merged_symbols(self, symbols, with_starts, dropout);
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
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._subword.BpeRanks",
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

typedef struct {
    PyObject_HEAD
    BpeRanks *ranks;
    BpeWords words; /* the core's model of a word's first symbols */
    double dropout;
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
        for (int b = 0; b < 256; b++) self->words.spelling[b] = PyUnicode_READ_CHAR(spelling, b);
    if (piece_map_init(&self->words.whole, (size_t)PyDict_GET_SIZE(whole)) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    self->words.has_whole = 1;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(whole, &pos, &key, &value)) {
        long id = PyLong_Check(value) ? PyLong_AsLong(value) : -1;
        if (!PyUnicode_Check(key) || id < 0 || id > INT32_MAX) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "whole maps %R to %R: ids are int32 >= 0", key, value);
            return -1;
        }
        CodePoints token = {PyUnicode_KIND(key), PyUnicode_DATA(key), PyUnicode_GET_LENGTH(key)};
        if (token.length && piece_map_add(&self->words.whole, &token, code_points_hash(&token), id) < 0) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

/* a copy of a bytes-like argument, in the core's allocation; -1 with an exception set */
static int
copy_bytes(PyObject *source, unsigned char **into, size_t *length)
{
    Py_buffer view;
    if (PyObject_GetBuffer(source, &view, PyBUF_SIMPLE) < 0) return -1;
    *into = malloc((size_t)view.len + 1);
    if (*into) memcpy(*into, view.buf, (size_t)view.len);
    *length = (size_t)view.len;
    PyBuffer_Release(&view);
    if (!*into) PyErr_NoMemory();
    return *into ? 0 : -1;
}

/* The words' tables from Python: chars (code point, or a spelled byte's key, to id), and the lists of
 * spelled ids (1024, or None) and byte ids (256, or None: no byte fallback). */
static int
read_symbol_tables(BpeWords *words, PyObject *chars, PyObject *spelled, PyObject *byte_ids)
{
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
        PairSlot *slot = pairmap_slot(&words->chars, (uint64_t)k);
        if (!slot) return -1;
        slot->value = id;
    }
    struct {
        PyObject *list;
        int32_t *into;
        Py_ssize_t size;
        const char *name;
    } tables[2] = {{spelled, NULL, 1024, "spelled"}, {byte_ids, words->byte_ids, 256, "byte_ids"}};
    if (spelled != Py_None && !(words->spelled = tables[0].into = malloc(sizeof(int32_t) * 1024))) {
        PyErr_NoMemory();
        return -1;
    }
    words->byte_fallback = byte_ids != Py_None;
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

static int
BpeSymbols_init(BpeSymbols *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"ranks", "chars", "spelled", "byte_ids", "unk_id", "fuse_unk",
                             "prefix", "suffix", "dropout", "whole", "spelling", NULL};
    PyObject *ranks, *chars, *spelled, *byte_ids, *prefix, *suffix;
    long long unk_id;
    int fuse_unk;
    if (self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "a BpeSymbols is initialized once"); /* read without the GIL */
        return -1;
    }
    double dropout = 0.0;
    PyObject *whole = Py_None, *spelling = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!OOLpOO|dOO", kwlist, &BpeRanksType, &ranks, &PyDict_Type,
                                     &chars, &spelled, &byte_ids, &unk_id, &fuse_unk, &prefix, &suffix, &dropout,
                                     &whole, &spelling))
        return -1;
    if (bpe_words_init(&self->words, (size_t)PyDict_GET_SIZE(chars)) < 0) return -1;
    self->ready = 1; /* dealloc frees the words from here on */
    self->ranks = (BpeRanks *)Py_NewRef(ranks);
    self->dropout = dropout;
    BpeWords *words = &self->words;
    if (copy_bytes(prefix, &words->prefix, &words->prefix_length) < 0 ||
        copy_bytes(suffix, &words->suffix, &words->suffix_length) < 0)
        return -1;
    if (bpe_symbols_whole(self, whole, spelling, spelled != Py_None) < 0) return -1;
    if (!self->ranks->lock_ready) {
        PyErr_SetString(PyExc_RuntimeError, "BpeRanks.__init__ was not called");
        return -1;
    }
    words->unk_id = unk_id < BPE_UNK_MISSING || unk_id > INT32_MAX ? BPE_UNK_MISSING : unk_id;
    words->fuse_unk = fuse_unk;
    return read_symbol_tables(words, chars, spelled, byte_ids);
}

static void
BpeSymbols_dealloc(BpeSymbols *self)
{
    if (self->ready) bpe_words_free(&self->words);
    Py_XDECREF(self->ranks);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* WordModel.word_ids (csrc/python/word_model.h): the core's segmentation, with this model's dropout. */
static int
bpe_word_model_ids(PyObject *model, const Span *word, Int64s *out)
{
    BpeSymbols *self = (BpeSymbols *)model;
    CodePoints w = {word->kind, (const char *)word->data + word->start * word->kind, word->length};
    Draws draws = {self->ranks, self->dropout};
    BpeDropout skipping = {skip_merge, &draws};
    return bpe_word_ids(&self->words, &self->ranks->ranks, self->dropout > 0.0 ? &skipping : NULL, &w, out);
}

static const WordModel bpe_word_model = {bpe_word_model_ids};

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
     "word_model() -> a capsule of the segmentation for the word encoder (csrc/python/word_model.h)"},
    {NULL}};

PyTypeObject BpeSymbolsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._subword.BpeSymbols",
    .tp_basicsize = sizeof(BpeSymbols),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "BpeSymbols(ranks, chars, spelled, byte_ids, unk_id, fuse_unk, prefix, suffix): a BPE model's "
              "segmentation of one word, for the word encoder.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)BpeSymbols_init,
    .tp_dealloc = (destructor)BpeSymbols_dealloc,
    .tp_methods = BpeSymbols_methods,
};
