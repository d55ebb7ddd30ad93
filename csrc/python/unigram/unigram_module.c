/* csrc/python/unigram/unigram_module.c: the kvec._unigram extension: the hot loops of the Unigram language model
 * (Kudo 2018), for kvec/models/unigram.py and kvec/trainers/unigram.py.
 *
 *   Lattice(words, counts)   Unigram segmentation of a word list (and of any text) over a vocabulary
 *       .seed(chars, char_counts, max_length, classes, prefix_char, seed_size, rule, n_threads=1)
 *           the seed vocabulary: the given characters, then the best substrings by frequency x length (rule:
 *           0 Hugging Face's inner nodes, 1 sentencepiece's repeats; unigram.h)
 *       .set_pieces(pieces, scores) / .retain(indices, scores=None)     a vocabulary / a subset of it
 *       .rescore(scores)   new scores for the pieces as they are
 *       .pieces() / .scores()
 *       .char_counts() -> (chars, int64 bytes)   the words' characters and their weighted occurrences
 *       .expected_counts(n_threads) -> float64 bytes     E-step: forward-backward over every word
 *       .viterbi_counts(n_threads) -> float64 bytes      counts on the best segmentations
 *       .alternatives(n_threads) -> (scores, ids, lengths)   each piece's best split into others
 *       .segment(text, unk_score) -> [(piece or -1, start, end)]   the best segmentation
 *       .lattice(text, unk_score) -> [(start, end, piece or -1, score)]   every edge
 *       .configure(unk_score, unk_id, byte_ids, rule), .resolve(word, edges)
 *           the encoding model's rules (csrc/core/unigram_path.h: sentencepiece's or Hugging Face's best
 *           path), and a segmentation of one word with its unknown characters resolved
 *   release_free_memory()   the C heap's free pages back to the system, before a training's peak
 *
 * Seeds are the substrings that label nodes of the suffix tree of the corpus: a suffix array of the
 * distinct words (each position weighted by its word's count, so it stands for the corpus with every
 * word repeated), sorted on the first max_length + 1 characters, and its LCP intervals; a word suffix
 * that no other shares is a leaf and a candidate too.
 *
 * Positions are code points. A position that no one-character piece covers gets an unknown edge
 * (piece -1) scored `unk_score`, as in sentencepiece, so every text has a segmentation. The best
 * segmentation follows the configured rule's arithmetic (the trainer's lattices: sentencepiece's float
 * sums); at each end position the first best path in order of start position is kept.
 *
 * Counts are summed in fixed point (integers), so the results do not depend on how the words are
 * shared between threads: training is identical for every n_threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "unigram.h"
#include "module.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

/* ---- the Python type ---- */

/* The words and their counts into the lattice, the counts checked; -1 with an exception set. */
static int
lattice_load_words(Lattice *self, PyObject *words, PyObject *counts)
{
    if (texts_init_separated(&self->words, words, "words") < 0) return -1;
    self->counts = int64_array(counts, self->words.n, "counts");
    if (!self->counts) return -1;
    int64_t weight = 0; /* the corpus's characters: expected counts are summed in int64 units of 2^-24 */
    for (Py_ssize_t w = 0; w < self->words.n; w++) {
        if (self->counts[w] < 0) {
            PyErr_Format(PyExc_ValueError, "counts[%zd] is negative", w);
            return -1;
        }
        int64_t length = self->words.length[w] + 1;
        if (self->counts[w] > (COUNTS_BOUND - weight) / length) {
            PyErr_Format(PyExc_ValueError, "counts[%zd]: the counts, each times its word's length, add up to more "
                         "than 2**37", w);
            return -1;
        }
        weight += self->counts[w] * length;
    }
    return 0;
}

/* Lattice(words, counts): checks the two lists, then loads the words. */
static int
lattice_init(Lattice *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"words", "counts", NULL};
    PyObject *words, *counts;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!", kwlist, &PyList_Type, &words, &PyList_Type, &counts))
        return -1;
    if (PyList_GET_SIZE(counts) != PyList_GET_SIZE(words)) {
        PyErr_SetString(PyExc_ValueError, "words and counts differ in length");
        return -1;
    }
    return lattice_load_words(self, words, counts);
}

/* The pieces' offsets and lengths, and their own code points where they have them. */
static void
pieces_free(Lattice *L)
{
    PyMem_Free(L->pieces.at);
    PyMem_Free(L->pieces.length);
    PyMem_Free(L->pieces.sorted);
    PyMem_Free(L->piece_chars);
    memset(&L->pieces, 0, sizeof(L->pieces));
    L->piece_chars = NULL;
}

static void
lattice_dealloc(Lattice *self)
{
    texts_free(&self->words);
    pieces_free(self);
    unigram_model_free(&self->model);
    scratch_free(&self->scratch);
    PyMem_Free(self->counts);
    PyMem_Free(self->scores);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Room for n pieces' offsets and lengths, and their scores (each freed by the caller, whatever happens);
 * -1 with MemoryError set. */
int
pieces_alloc(Pieces *pieces, double **scores, Py_ssize_t n)
{
    pieces->at = PyMem_Malloc((n + 1) * sizeof(uint32_t));
    pieces->length = PyMem_Malloc((n + 1) * sizeof(uint16_t));
    pieces->sorted = PyMem_Malloc((n + 1) * sizeof(int32_t));
    *scores = PyMem_Malloc((n + 1) * sizeof(double));
    if (pieces->at && pieces->length && pieces->sorted && *scores) return 0;
    PyErr_NoMemory();
    return -1;
}

/* Install pieces, their code points and scores (all taken over; `chars` may be the lattice's own
 * piece_chars, kept, or NULL where the pieces lie in words.cps) and their trie. The old trie goes
 * before the new one is built: a training's first retain() would otherwise hold the trie of the
 * million seeds and that of the survivors at once, its peak. `sorted`: pieces.sorted holds the pieces'
 * order in the trie already (lattice_keep), so they are not sorted again. When out of memory the
 * lattice is left with no pieces. */
int
lattice_install(Lattice *L, Pieces pieces, uint32_t *chars, double *scores, int sorted)
{
    uint32_t *old_chars = L->piece_chars;
    L->piece_chars = NULL; /* kept when the new pieces lie in them too */
    pieces_free(L);
    if (old_chars != chars) PyMem_Free(old_chars);
    unigram_trie_free(&L->model.trie);
    PyMem_Free(L->scores);
    L->scores = NULL;
    pieces.cps = chars ? chars : L->words.cps;
    int built = unigram_trie_build_ordered(&L->model.trie, pieces.n, pieces.cps, pieces.at, pieces.length,
                                           pieces.sorted, sorted && pieces.sorted);
    if (built < 0) {
        PyMem_Free(pieces.at);
        PyMem_Free(pieces.length);
        PyMem_Free(pieces.sorted);
        PyMem_Free(chars);
        PyMem_Free(scores);
        if (built == -1) PyErr_NoMemory();
        else PyErr_SetString(PyExc_ValueError, "the pieces hold more than 2^32 - 1 characters");
        return -1;
    }
    /* the doubles of Hugging Face's rule only where it runs (configure() adds them when it is chosen);
     * a trie fresh from its build has their room, so this cannot fail */
    if (L->model.rule == UNIGRAM_HUGGING_FACE) (void)unigram_trie_set_scores(&L->model.trie, scores);
    else unigram_trie_set_float_scores(&L->model.trie, scores);
    L->pieces = pieces;
    L->piece_chars = chars;
    L->scores = scores;
    return 0;
}

/* Lists of pieces (str) and their scores, checked, installed as the vocabulary; -1 with an exception set. */
static int
lattice_take_pieces(Lattice *self, PyObject *pieces, PyObject *scores)
{
    Texts texts;
    if (texts_init(&texts, pieces, "pieces") < 0) return -1;
    Pieces spans = {NULL, PyMem_Malloc((texts.n + 1) * sizeof(uint32_t)), PyMem_Malloc((texts.n + 1) * sizeof(uint16_t)),
                    texts.n, texts.longest, NULL};
    double *values = PyMem_Malloc((texts.n + 1) * sizeof(double));
    if (!spans.at || !spans.length || !values) {
        PyErr_NoMemory();
        goto failed;
    }
    for (Py_ssize_t p = 0; p < texts.n; p++) {
        if (texts.length[p] > UNIGRAM_LONGEST_PIECE || texts.offset[p] + texts.length[p] > (Py_ssize_t)UINT32_MAX) {
            PyErr_Format(PyExc_ValueError, "pieces[%zd] is longer than %d characters, or the pieces hold more than "
                         "2^32 - 1", p, UNIGRAM_LONGEST_PIECE);
            goto failed;
        }
        spans.at[p] = (uint32_t)texts.offset[p];
        spans.length[p] = (uint16_t)texts.length[p];
        values[p] = PyFloat_AsDouble(PyList_GET_ITEM(scores, p));
        if (values[p] == -1.0 && PyErr_Occurred()) goto failed;
    }
    PyMem_Free(texts.offset);
    PyMem_Free(texts.length);
    return lattice_install(self, spans, texts.cps, values, 0);
failed:
    texts_free(&texts);
    PyMem_Free(spans.at);
    PyMem_Free(spans.length);
    PyMem_Free(values);
    return -1;
}

/* set_pieces(pieces, scores): checks the lists, then installs them as the vocabulary. */
static PyObject *
lattice_set_pieces(Lattice *self, PyObject *args)
{
    PyObject *pieces, *scores;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &pieces, &PyList_Type, &scores)) return NULL;
    if (PyList_GET_SIZE(pieces) != PyList_GET_SIZE(scores)) {
        PyErr_SetString(PyExc_ValueError, "pieces and scores differ in length");
        return NULL;
    }
    if (lattice_take_pieces(self, pieces, scores) < 0) return NULL;
    Py_RETURN_NONE;
}

/* The k-th int64 of a buffer that need not be aligned. */
static int64_t
int64_at(const Py_buffer *b, Py_ssize_t k)
{
    int64_t value;
    memcpy(&value, (const char *)b->buf + k * (Py_ssize_t)sizeof(int64_t), sizeof(value));
    return value;
}

/* Keeps the pieces at n int64 `indices`, in that order, with the float64 `values` as scores or (values
 * NULL) their own, both checked already; -1 with an exception set. */
static int
lattice_keep(Lattice *self, const Py_buffer *indices, const Py_buffer *values, Py_ssize_t n)
{
    int rc = -1;
    Pieces pieces = {0};
    double *scores = NULL;
    int ascending = self->pieces.sorted != NULL; /* then the old pieces' order, renumbered, is the new one's */
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t p = int64_at(indices, k);
        if (p < 0 || p >= self->pieces.n) {
            PyErr_Format(PyExc_IndexError, "indices[%zd] = %lld is not a piece", k, (long long)p);
            goto done;
        }
        if (k > 0 && p <= int64_at(indices, k - 1)) ascending = 0;
    }
    /* the trie goes first (lattice_install builds the new one): the old pieces are all the copy reads */
    unigram_trie_free(&self->model.trie);
    if (pieces_alloc(&pieces, &scores, n) < 0) {
        Pieces none = {0};
        lattice_install(self, none, NULL, NULL, 0); /* out of memory: the lattice is left with no pieces */
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) { /* the kept pieces are read where they lie already */
        int64_t p = int64_at(indices, k);
        pieces.at[k] = self->pieces.at[p];
        pieces.length[k] = self->pieces.length[p];
        if (pieces.length[k] > pieces.longest) pieces.longest = pieces.length[k];
        if (values) memcpy(&scores[k], (const char *)values->buf + k * (Py_ssize_t)sizeof(double), sizeof(double));
        else scores[k] = self->scores[p];
    }
    pieces.n = n;
    /* the new number of each old piece (-1: gone), over the old pieces' order; out of memory, a sort */
    int32_t *new_of = ascending ? PyMem_Malloc((self->pieces.n + 1) * sizeof(int32_t)) : NULL;
    int ordered = new_of != NULL;
    if (ordered) {
        Py_ssize_t m = 0, kept = 0;
        for (Py_ssize_t p = 0; p < self->pieces.n; p++) {
            new_of[p] = -1;
            m += self->pieces.length[p] > 0;
        }
        for (Py_ssize_t k = 0; k < n; k++) new_of[int64_at(indices, k)] = (int32_t)k;
        for (Py_ssize_t i = 0; i < m; i++)
            if (new_of[self->pieces.sorted[i]] >= 0) pieces.sorted[kept++] = new_of[self->pieces.sorted[i]];
        PyMem_Free(new_of);
    }
    rc = lattice_install(self, pieces, self->piece_chars, scores, ordered);
    memset(&pieces, 0, sizeof(pieces));
    scores = NULL;
done:
    PyMem_Free(pieces.at);
    PyMem_Free(pieces.length);
    PyMem_Free(pieces.sorted);
    PyMem_Free(scores);
    return rc;
}

/* retain(indices, scores=None): keep the pieces at `indices` (int64 buffer), in that order, with new
 * `scores` (float64 buffer) or, without them, their own; neither buffer need be aligned. Checks, then keeps. */
static PyObject *
lattice_retain(Lattice *self, PyObject *args)
{
    Py_buffer indices, values = {0};
    if (!PyArg_ParseTuple(args, "y*|y*", &indices, &values)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = indices.len / (Py_ssize_t)sizeof(int64_t);
    if (values.obj && values.len != n * (Py_ssize_t)sizeof(double))
        PyErr_SetString(PyExc_ValueError, "indices and scores differ in length");
    else if (lattice_keep(self, &indices, values.obj ? &values : NULL, n) == 0)
        result = Py_NewRef(Py_None);
    PyBuffer_Release(&indices);
    if (values.obj) PyBuffer_Release(&values);
    return result;
}

/* rescore(scores): new scores (float64 buffer, one per piece, need not be aligned) for the pieces as
 * they are, without building their trie again. */
static PyObject *
lattice_rescore(Lattice *self, PyObject *args)
{
    Py_buffer values;
    if (!PyArg_ParseTuple(args, "y*", &values)) return NULL;
    PyObject *result = NULL;
    if (values.len != self->pieces.n * (Py_ssize_t)sizeof(double)) {
        PyErr_Format(PyExc_ValueError, "scores must hold one float64 for each of the %zd pieces, got %zd bytes",
                     self->pieces.n, values.len);
    } else {
        if (values.len > 0) memcpy(self->scores, values.buf, (size_t)values.len);
        /* the trie has the doubles exactly where Hugging Face's rule runs: this cannot fail */
        if (self->model.trie.wide) (void)unigram_trie_set_scores(&self->model.trie, self->scores);
        else unigram_trie_set_float_scores(&self->model.trie, self->scores);
        result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&values);
    return result;
}

static PyObject *
lattice_pieces(Lattice *self, PyObject *Py_UNUSED(unused))
{
    PyObject *list = PyList_New(self->pieces.n);
    for (Py_ssize_t p = 0; list && p < self->pieces.n; p++) {
        PyObject *piece = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, self->pieces.cps + self->pieces.at[p],
                                                    self->pieces.length[p]);
        if (!piece) Py_CLEAR(list);
        else PyList_SET_ITEM(list, p, piece);
    }
    return list;
}

/* char_counts() -> (chars, counts): every character of the words, by code point, as one str, and how
 * often each occurs (int64 bytes): its occurrences times their words' counts. The sums fit int64: the
 * counts times the words' lengths add up to less than COUNTS_BOUND. */
static PyObject *
lattice_char_counts(Lattice *self, PyObject *Py_UNUSED(unused))
{
    const Py_ssize_t span = 0x110000;
    int64_t *weight = PyMem_Calloc(span, sizeof(int64_t)); /* untouched pages take no memory */
    uint8_t *seen = PyMem_Calloc(span, 1);
    uint32_t *chars = NULL;
    PyObject *text = NULL, *counts = NULL, *result = NULL;
    if (!weight || !seen) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t n = 0;
    for (Py_ssize_t w = 0; w < self->words.n; w++) {
        const uint32_t *cps = self->words.cps + self->words.offset[w];
        for (Py_ssize_t k = 0; k < self->words.length[w]; k++) {
            uint32_t cp = cps[k]; /* a str's code point: below 0x110000 */
            n += !seen[cp];
            seen[cp] = 1;
            weight[cp] += self->counts[w];
        }
    }
    chars = PyMem_Malloc((n + 1) * sizeof(uint32_t));
    counts = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    if (!chars || !counts) {
        if (!chars) PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t k = 0;
    for (Py_ssize_t cp = 0; cp < span && k < n; cp++) {
        if (!seen[cp]) continue;
        chars[k] = (uint32_t)cp;
        memcpy(PyBytes_AS_STRING(counts) + k * (Py_ssize_t)sizeof(int64_t), &weight[cp], sizeof(int64_t));
        k++;
    }
    text = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, chars, n);
    if (text) result = PyTuple_Pack(2, text, counts);
done:
    PyMem_Free(weight);
    PyMem_Free(seen);
    PyMem_Free(chars);
    Py_XDECREF(text);
    Py_XDECREF(counts);
    return result;
}

static PyObject *
lattice_scores(Lattice *self, PyObject *Py_UNUSED(unused))
{
    return PyBytes_FromStringAndSize((const char *)self->scores, self->pieces.n * sizeof(double));
}

/* Per-piece sums of `task` as float64 bytes (divided by `scale`). The sums are added up in the bytes
 * object itself, as int64, then turned into doubles in place: one array per piece, not two. */
static PyObject *
piece_sums(Lattice *self, int task, double scale, int n_threads, int with_unknown)
{
    Py_ssize_t n = self->pieces.n;
    if (n == 0) return PyBytes_FromStringAndSize(NULL, 0);
    /* one more slot: the unknown edges (the best paths' only), returned when asked; expected counts by
     * Hugging Face's rule have as many again, their low bits (unigram_lattice.c) */
    int fine = task == EXPECTED && self->model.rule == UNIGRAM_HUGGING_FACE;
    Py_ssize_t slots = fine ? 2 * (n + 1) : n + 1;
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, slots * (Py_ssize_t)sizeof(int64_t));
    if (!bytes) return NULL;
    char *data = PyBytes_AS_STRING(bytes);
    memset(data, 0, slots * sizeof(int64_t));
    int64_t *sums = (int64_t *)data; /* bytes objects' data is aligned for 8 bytes */
    if (run_jobs(self, task, n_threads, sums, NULL, NULL, NULL) < 0) {
        Py_DECREF(bytes);
        return NULL;
    }
    Py_ssize_t pieces = n;
    if (with_unknown) n++;
    for (Py_ssize_t p = 0; p < n; p++) {
        double value = (double)sums[p] / scale;
        if (fine) value += (double)sums[pieces + 1 + p] / (scale * FIXED_ONE);
        memcpy(data + p * sizeof(double), &value, sizeof(double));
    }
    if (n < slots && _PyBytes_Resize(&bytes, n * (Py_ssize_t)sizeof(double)) < 0) return NULL;
    return bytes;
}

/* (n_threads=1, with_unknown=False) of the counting methods: reads them, then sums `task` per piece. */
static PyObject *
lattice_sums(Lattice *self, PyObject *args, int task, double scale)
{
    int n_threads = 1, with_unknown = 0;
    if (!PyArg_ParseTuple(args, "|ip", &n_threads, &with_unknown)) return NULL;
    return piece_sums(self, task, scale, n_threads, with_unknown);
}

static PyObject *
lattice_expected_counts(Lattice *self, PyObject *args)
{
    return lattice_sums(self, args, EXPECTED, FIXED_ONE);
}

static PyObject *
lattice_viterbi_counts(Lattice *self, PyObject *args)
{
    return lattice_sums(self, args, BEST_PATHS, 1.0);
}

/* Each piece's best split into others, on n_threads threads: (float64 scores, int32 ids, int32 lengths). */
static PyObject *
piece_alternatives(Lattice *self, int n_threads)
{
    Py_ssize_t n = self->pieces.n, slots = self->pieces.longest;
    double *scores = PyMem_Malloc((n + 1) * sizeof(double));
    int32_t *ids = PyMem_Malloc((n * slots + 1) * sizeof(int32_t));
    int32_t *lengths = PyMem_Malloc((n + 1) * sizeof(int32_t));
    PyObject *result = NULL;
    if (!scores || !ids || !lengths) {
        PyErr_NoMemory();
        goto done;
    }
    if (run_jobs(self, ALTERNATIVES, n_threads, NULL, scores, ids, lengths) < 0) goto done;
    Py_ssize_t total = 0;
    for (Py_ssize_t p = 0; p < n; p++) {
        memmove(ids + total, ids + p * slots, lengths[p] * sizeof(int32_t));
        total += lengths[p];
    }
    result = Py_BuildValue("(y#y#y#)", (const char *)scores, n * sizeof(double), (const char *)ids,
                           total * sizeof(int32_t), (const char *)lengths, n * sizeof(int32_t));
done:
    PyMem_Free(scores);
    PyMem_Free(ids);
    PyMem_Free(lengths);
    return result;
}

/* alternatives(n_threads=1): reads the thread count, then splits every piece. */
static PyObject *
lattice_alternatives(Lattice *self, PyObject *args)
{
    int n_threads = 1;
    if (!PyArg_ParseTuple(args, "|i", &n_threads)) return NULL;
    return piece_alternatives(self, n_threads);
}

/* The edges of the text in args (text, unk_score) in self->scratch; returns their count (-1: error). */
static Py_ssize_t
edges_of_argument(Lattice *self, PyObject *args, Py_ssize_t *n, double *unk_score)
{
    PyObject *text;
    if (!PyArg_ParseTuple(args, "Ud", &text, unk_score)) return -1;
    uint32_t *cps = str_code_points(text, "text", n);
    if (!cps) return -1;
    Py_ssize_t n_edges = scratch_fit(&self->scratch, *n) < 0 ? -1 : build_edges(self, &self->scratch, cps, *n, -1);
    PyMem_Free(cps);
    if (n_edges < 0) PyErr_NoMemory();
    return n_edges;
}

/* The best path in self->scratch that ends at position n, as [(piece or -1, start, end), ...]. */
static PyObject *
best_path_list(const Lattice *self, Py_ssize_t n)
{
    const UnigramPath *s = &self->scratch.path;
    Py_ssize_t count = 0;
    for (Py_ssize_t q = n; q > 0; q = s->from[q]) count++;
    PyObject *result = PyList_New(count);
    for (Py_ssize_t q = n; result && q > 0; q = s->from[q]) {
        PyObject *item = Py_BuildValue("(iin)", s->piece_at[q], s->from[q], q);
        if (!item) Py_CLEAR(result);
        else PyList_SET_ITEM(result, --count, item);
    }
    return result;
}

/* segment(text, unk_score) -> [(piece or -1, start, end), ...]: finds the best segmentation, then lists it */
static PyObject *
lattice_segment(Lattice *self, PyObject *args)
{
    PyObject *text;
    double unk_score;
    if (!PyArg_ParseTuple(args, "Ud", &text, &unk_score)) return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (n > INT32_MAX - 1 || scratch_fit(&self->scratch, n) < 0) return PyErr_NoMemory();
    CodePoints view = {PyUnicode_KIND(text), PyUnicode_DATA(text), n};
    unigram_best_path(&self->model.trie, &self->scratch.path, &view, -1, unk_score, self->model.rule);
    return best_path_list(self, n);
}

/* configure(unk_score, unk_id, byte_ids, rule=0): the unknown-character rules of the encoding methods,
 * and the rule of the best path (csrc/core/unigram_path.h: 0 sentencepiece, 1 Hugging Face) */
static PyObject *
lattice_configure(Lattice *self, PyObject *args)
{
    double unk_score;
    int unk_id, rule = UNIGRAM_SENTENCEPIECE;
    Py_buffer bytes;
    if (!PyArg_ParseTuple(args, "diy*|i", &unk_score, &unk_id, &bytes, &rule)) return NULL;
    PyObject *result = NULL;
    if (rule != UNIGRAM_SENTENCEPIECE && rule != UNIGRAM_HUGGING_FACE) {
        PyErr_Format(PyExc_ValueError, "rule must be 0 (sentencepiece) or 1 (Hugging Face), got %d", rule);
    } else if (bytes.len != 0 && bytes.len != 256 * (Py_ssize_t)sizeof(int32_t)) {
        PyErr_SetString(PyExc_ValueError, "byte_ids must be empty or 256 int32 values");
    } else if (unk_id < -1 || unk_id >= self->pieces.n) {
        PyErr_Format(PyExc_ValueError, "unk_id %d is not an id of the vocabulary", unk_id);
    } else if (rule == UNIGRAM_HUGGING_FACE && !self->model.trie.wide &&
               unigram_trie_set_scores(&self->model.trie, self->scores) < 0) {
        PyErr_NoMemory();
    } else {
        self->model.unk_score = unk_score;
        self->model.unk_id = unk_id;
        self->model.rule = rule;
        self->model.has_bytes = bytes.len != 0;
        if (self->model.has_bytes) memcpy(self->model.byte_ids, bytes.buf, sizeof(self->model.byte_ids));
        result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&bytes);
    return result;
}

/* The tokens of path[0, count) through text (unigram_resolve) as a list of (id, start, end); NULL with
 * MemoryError, or ValueError naming the character that has no piece when the model has no unk_id. */
static PyObject *
resolved_list(const Lattice *L, PyObject *text, const Edge *path, Py_ssize_t count)
{
    CodePoints view = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    Int64s tokens = {0};
    ptrdiff_t unknown_at = 0;
    int status = unigram_resolve(&L->model, &view, path, count, 1, &tokens, &unknown_at);
    PyObject *result = NULL, *c = status > 0 ? PyUnicode_Substring(text, unknown_at, unknown_at + 1) : NULL;
    if (status < 0) PyErr_NoMemory();
    else if (c) PyErr_Format(PyExc_ValueError, "%R is not in the vocabulary and the model has no unk_id", c);
    else if (status == 0) {
        result = PyList_New(tokens.length / 3);
        for (Py_ssize_t k = 0; result && k < tokens.length / 3; k++) {
            const int64_t *t = tokens.data + 3 * k;
            PyObject *item = Py_BuildValue("(LLL)", (long long)t[0], (long long)t[1], (long long)t[2]);
            if (!item) Py_CLEAR(result);
            else PyList_SET_ITEM(result, k, item);
        }
    }
    Py_XDECREF(c);
    int64s_free(&tokens);
    return result;
}

/* edges[k], a (piece or -1, start, end) tuple checked against vocabulary and text, into *out; -1: error. */
static int
edge_of(const Lattice *self, PyObject *text, PyObject *edge, Py_ssize_t k, Edge *out)
{
    int piece, start, end;
    if (!PyTuple_Check(edge) || !PyArg_ParseTuple(edge, "iii", &piece, &start, &end)) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "edges[%zd] must be a (piece, start, end) tuple", k);
    } else if (piece >= self->pieces.n) {
        PyErr_Format(PyExc_ValueError, "edges[%zd] names piece %d, not in the vocabulary", k, piece);
    } else if (start < 0 || end > PyUnicode_GET_LENGTH(text) || start >= end) {
        PyErr_Format(PyExc_ValueError, "edge (%d, %d) is outside the text", start, end);
    } else {
        *out = (Edge){start, end, piece < 0 ? -1 : piece};
        return 0;
    }
    return -1;
}

/* The list of edges through text, each checked, resolved as a path; NULL with an exception set. */
static PyObject *
resolved_edges(const Lattice *self, PyObject *text, PyObject *edges)
{
    Py_ssize_t count = PyList_GET_SIZE(edges), k = 0;
    Edge *path = PyMem_Malloc((size_t)(count ? count : 1) * sizeof(Edge));
    if (!path) return PyErr_NoMemory();
    while (k < count && edge_of(self, text, PyList_GET_ITEM(edges, k), k, &path[k]) == 0) k++;
    PyObject *result = k == count ? resolved_list(self, text, path, count) : NULL;
    PyMem_Free(path);
    return result;
}

/* resolve(word, edges) -> [(id, start, end), ...]: a path of (piece or -1, start, end), resolved */
static PyObject *
lattice_resolve(Lattice *self, PyObject *args)
{
    PyObject *text, *edges;
    if (!PyArg_ParseTuple(args, "UO!", &text, &PyList_Type, &edges)) return NULL;
    return resolved_edges(self, text, edges);
}

/* lattice(text, unk_score) -> [(start, end, piece or -1, score), ...] ordered by start then end */
static PyObject *
lattice_edges(Lattice *self, PyObject *args)
{
    Py_ssize_t n;
    double unk_score;
    Py_ssize_t n_edges = edges_of_argument(self, args, &n, &unk_score);
    if (n_edges < 0) return NULL;
    const Scratch *s = &self->scratch;
    PyObject *result = PyList_New(n_edges);
    for (Py_ssize_t k = 0; result && k < n_edges; k++) {
        const Edge *e = &s->edges[k];
        PyObject *item = Py_BuildValue("(iiid)", e->start, e->end, e->piece, edge_score(self, e, unk_score));
        if (!item) Py_CLEAR(result);
        else PyList_SET_ITEM(result, k, item);
    }
    return result;
}

static PyMethodDef lattice_methods[] = {
    {"seed", (PyCFunction)lattice_seed, METH_VARARGS,
     "seed(chars, char_counts, max_length, classes, prefix_char, seed_size, rule, n_threads=1) -> "
     "number of pieces; rule: 0 Hugging Face's inner nodes, 1 sentencepiece's repeats"},
    {"set_pieces", (PyCFunction)lattice_set_pieces, METH_VARARGS, "set_pieces(pieces, scores): the vocabulary"},
    {"retain", (PyCFunction)lattice_retain, METH_VARARGS,
     "retain(indices, scores=None): keep those pieces (int64 buffer) with new scores (float64 buffer) or their "
     "own"},
    {"rescore", (PyCFunction)lattice_rescore, METH_VARARGS,
     "rescore(scores): new scores (float64 buffer, one per piece) for the pieces as they are"},
    {"pieces", (PyCFunction)lattice_pieces, METH_NOARGS, "pieces() -> list of str"},
    {"scores", (PyCFunction)lattice_scores, METH_NOARGS, "scores() -> float64 bytes"},
    {"char_counts", (PyCFunction)lattice_char_counts, METH_NOARGS,
     "char_counts() -> (str, int64 bytes): every character of the words by code point, and its occurrences "
     "weighted by the words' counts"},
    {"expected_counts", (PyCFunction)lattice_expected_counts, METH_VARARGS,
     "expected_counts(n_threads=1) -> float64 bytes: forward-backward counts of each piece over the words"},
    {"viterbi_counts", (PyCFunction)lattice_viterbi_counts, METH_VARARGS,
     "viterbi_counts(n_threads=1, with_unknown=False) -> float64 bytes: counts of each piece on the best "
     "segmentations (then of the unknown edges, when asked)"},
    {"alternatives", (PyCFunction)lattice_alternatives, METH_VARARGS,
     "alternatives(n_threads=1) -> (float64 scores, int32 ids, int32 lengths): each piece's best split into "
     "others (score NaN: none)"},
    {"segment", (PyCFunction)lattice_segment, METH_VARARGS,
     "segment(text, unk_score) -> [(piece, start, end)]: the best segmentation (piece -1: unknown)"},
    {"configure", (PyCFunction)lattice_configure, METH_VARARGS,
     "configure(unk_score, unk_id, byte_ids, rule=0): unknown characters score unk_score and become byte pieces "
     "(byte_ids: 256 int32, -1 for none; empty: no byte fallback) or the unk_id token (-1: none); rule: the best "
     "path's arithmetic and how unknown runs resolve (0 sentencepiece, 1 Hugging Face)"},
    {"resolve", (PyCFunction)lattice_resolve, METH_VARARGS,
     "resolve(word, edges) -> [(id, start, end), ...]: a path of (piece or -1, start, end) with unknown "
     "characters resolved"},
    {"lattice", (PyCFunction)lattice_edges, METH_VARARGS,
     "lattice(text, unk_score) -> [(start, end, piece, score)]: every edge, by start then end"},
    {NULL}};

static PyTypeObject LatticeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._unigram.Lattice",
    .tp_basicsize = sizeof(Lattice),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Lattice(words, counts): Unigram segmentation of a word list over a vocabulary.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)lattice_init,
    .tp_dealloc = (destructor)lattice_dealloc,
    .tp_methods = lattice_methods,
};

/* release_free_memory() -> bool: the C heap's free pages back to the system (glibc's malloc_trim; False
 * where there is none to call, or nothing went back). A training that has let go of its word counts
 * calls it before its peak: the counts' memory, freed in between the blocks still in use, would stay
 * resident otherwise. */
static PyObject *
release_free_memory(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(unused))
{
    int released = 0;
#ifdef __GLIBC__
    Py_BEGIN_ALLOW_THREADS
    released = malloc_trim(0);
    Py_END_ALLOW_THREADS
#endif
    return PyBool_FromLong(released);
}

static PyMethodDef unigram_functions[] = {
    {"release_free_memory", release_free_memory, METH_NOARGS,
     "release_free_memory() -> bool: the C heap's free pages back to the system (glibc's malloc_trim)"},
    {NULL}};

static struct PyModuleDef unigram_module = {
    PyModuleDef_HEAD_INIT, "kvec._unigram", "The hot loops of the Unigram language model.", -1, unigram_functions,
    NULL, NULL, NULL, NULL};

static const ModuleType types[] = {{"Lattice", &LatticeType}};

PyMODINIT_FUNC
PyInit__unigram(void)
{
    return create_module(&unigram_module, types, sizeof(types) / sizeof(types[0]));
}
