/* csrc/python/subword/bpe_trainer.c: the merge loop of BPE training, for kvec/trainers/bpe.py: the arguments read and
 * checked here, the loop in csrc/core/bpe_merges.c.
 *
 *   bpe_merge_loop(ids, sizes, counts, vocab_size, current_size, min_frequency, max_length, add_merge)
 *       Hugging Face's BpeTrainer merge loop over words given as array('i') ids back to back and
 *       array('q') word lengths, calling back for each new token's id
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "bpe_merges.h"
#include "subword.h"

/* The counts of a pair only grow by the occurrences merges make, at most three per symbol of the
 * words in all, each weighted by its word's count: with the sum of count x length below 2**61, no
 * count passes int64. */
#define WEIGHT_BOUND ((int64_t)1 << 61)

/* A corpus in C arrays, owned (the buffers' bytes copied: a memoryview may start at any byte). */
typedef struct {
    int32_t *ids;
    int64_t *sizes, *counts;
    Py_ssize_t n_words;
} Corpus;

static void
corpus_free(Corpus *c)
{
    PyMem_Free(c->ids);
    PyMem_Free(c->sizes);
    PyMem_Free(c->counts);
}

/* The sizes' total, or -1 with ValueError when a size is out of range. */
static Py_ssize_t
checked_total(const int64_t *sizes, Py_ssize_t n)
{
    Py_ssize_t sum = 0;
    for (Py_ssize_t w = 0; w < n; w++) {
        if (sizes[w] < 0 || sizes[w] > INT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "a word must have 0 to 2**31 - 1 symbols");
            return -1;
        }
        sum += (Py_ssize_t)sizes[w];
    }
    return sum;
}

/* 0 when every id is >= 0 (-1 marks merged symbols, and a pair of them the pair map's empty key). */
static int
check_ids(const int32_t *ids, Py_ssize_t total)
{
    for (Py_ssize_t i = 0; i < total; i++) {
        if (ids[i] < 0) {
            PyErr_Format(PyExc_ValueError, "ids[%zd] = %d: ids must be >= 0", i, ids[i]);
            return -1;
        }
    }
    return 0;
}

/* Each count of the list as int64: >= 0, and adding up, each times its word's size, to less than 2**61. */
static int
read_counts(PyObject *counts, Corpus *c)
{
    int64_t weight = 0;
    for (Py_ssize_t w = 0; w < c->n_words; w++) {
        c->counts[w] = PyLong_AsLongLong(PyList_GET_ITEM(counts, w));
        if (c->counts[w] == -1 && PyErr_Occurred()) return -1;
        int64_t length = c->sizes[w];
        if (c->counts[w] < 0 || (length && c->counts[w] > (WEIGHT_BOUND - weight) / length)) {
            PyErr_Format(PyExc_ValueError, "counts[%zd] = %lld: counts must be >= 0, and add up, each times its "
                         "word's length, to less than 2**61", w, (long long)c->counts[w]);
            return -1;
        }
        weight += c->counts[w] * length;
    }
    return 0;
}

/* The words from the symbol ids back to back (int32, >= 0), each word's length (int64) and a list of
 * counts (>= 0); the buffers need not be aligned. */
static int
load_corpus(const Py_buffer *ids, const Py_buffer *sizes, PyObject *counts, Corpus *c)
{
    if (ids->len % sizeof(int32_t) || sizes->len % sizeof(int64_t)) {
        PyErr_SetString(PyExc_TypeError, "ids must be array('i') and sizes array('q')");
        return -1;
    }
    Py_ssize_t n = sizes->len / (Py_ssize_t)sizeof(int64_t), total = ids->len / (Py_ssize_t)sizeof(int32_t);
    if (PyList_GET_SIZE(counts) != n) {
        PyErr_SetString(PyExc_ValueError, "sizes and counts differ in length");
        return -1;
    }
    if (n > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "more than 2**31 - 1 distinct words");
        return -1;
    }
    c->n_words = n;
    c->sizes = PyMem_Malloc((n + 1) * sizeof(int64_t));
    c->counts = PyMem_Malloc((n + 1) * sizeof(int64_t));
    c->ids = PyMem_Malloc((total + 1) * sizeof(int32_t));
    if (!c->sizes || !c->counts || !c->ids) {
        PyErr_NoMemory();
        return -1;
    }
    if (n) memcpy(c->sizes, sizes->buf, n * sizeof(int64_t));
    if (total) memcpy(c->ids, ids->buf, total * sizeof(int32_t));
    Py_ssize_t sum = checked_total(c->sizes, n);
    if (sum < 0) return -1;
    if (sum != total) {
        PyErr_SetString(PyExc_ValueError, "the word sizes do not add up to the number of ids");
        return -1;
    }
    if (check_ids(c->ids, total) < 0) return -1;
    return read_counts(counts, c);
}

/* What the loop calls back with: Python's add_merge, and the list of the merges made. */
typedef struct {
    PyObject *add_merge, *merges;
} Callback;

/* The new token of (a, b) from add_merge(a, b) -> (new id, vocabulary size), (a, b) appended to merges. */
static int
new_token(void *context, int32_t a, int32_t b, int32_t *new_id, int64_t *vocab_size)
{
    Callback *callback = context;
    PyObject *result = PyObject_CallFunction(callback->add_merge, "ii", a, b);
    long id = -1;
    Py_ssize_t size = 0;
    int answered = result && PyTuple_Check(result) && PyArg_ParseTuple(result, "ln", &id, &size);
    int ok = answered && id >= 0 && id <= INT32_MAX;
    if (result && !ok && (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError))) {
        PyErr_Clear();
        PyErr_Format(answered ? PyExc_ValueError : PyExc_TypeError,
                     "add_merge(%d, %d) must give (new id >= 0, vocabulary size), got %R", a, b, result);
    }
    if (ok) {
        PyObject *pair = Py_BuildValue("(ii)", a, b);
        ok = pair && PyList_Append(callback->merges, pair) == 0;
        Py_XDECREF(pair);
    }
    Py_XDECREF(result);
    *new_id = (int32_t)id;
    *vocab_size = size;
    return ok ? 0 : -1;
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
    Corpus corpus = {0};
    Callback callback = {add_merge, PyList_New(0)};
    int ok = callback.merges && load_corpus(&ids, &sizes, counts, &corpus) == 0;
    PyBuffer_Release(&ids);
    PyBuffer_Release(&sizes);
    BpeCorpus words = {corpus.ids, corpus.sizes, corpus.counts, corpus.n_words};
    if (ok) ok = bpe_merges(&words, vocab_size, current_size, min_frequency, max_length, new_token, &callback) == 0;
    corpus_free(&corpus);
    if (!ok) {
        Py_XDECREF(callback.merges);
        return NULL;
    }
    return callback.merges;
}
