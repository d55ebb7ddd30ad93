/* kvec._unigram: the hot loops of the Unigram language model (Kudo 2018).
 *
 *   Lattice(words, counts)   Unigram segmentation of a word list (and of any text) over a vocabulary
 *       .seed(chars, char_counts, max_length, classes, prefix_char, seed_size)
 *           the seed vocabulary: the given characters, then the best substrings by frequency x length
 *       .set_pieces(pieces, scores) / .retain(indices, scores)     a vocabulary / a subset of it
 *       .pieces() / .scores()
 *       .expected_counts(n_threads) -> float64 bytes     E-step: forward-backward over every word
 *       .viterbi_counts(n_threads) -> float64 bytes      counts on the best segmentations
 *       .alternatives(n_threads) -> (scores, ids, lengths)   each piece's best split into others
 *       .segment(text, unk_score) -> [(piece or -1, start, end)]   the best segmentation
 *       .lattice(text, unk_score) -> [(start, end, piece or -1, score)]   every edge
 *
 * Seeds are the substrings that label nodes of the suffix tree of the corpus: a suffix array of the
 * distinct words (each position weighted by its word's count, so it stands for the corpus with every
 * word repeated), sorted on the first max_length + 1 characters, and its LCP intervals; a word suffix
 * that no other shares is a leaf and a candidate too.
 *
 * Positions are code points. A position that no one-character piece covers gets an unknown edge
 * (piece -1) scored `unk_score`, as in sentencepiece, so every text has a segmentation. The best
 * segmentation follows sentencepiece's float arithmetic and tie order: at each end position the first
 * best path in order of start position is kept.
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

#include "_texts.h"

static uint32_t *
code_points(PyObject *text, Py_ssize_t *len)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be a str, got %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    *len = PyUnicode_GET_LENGTH(text);
    uint32_t *cps = PyMem_Malloc((*len + 1) * sizeof(uint32_t));
    if (!cps) {
        PyErr_NoMemory();
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t k = 0; k < *len; k++) cps[k] = PyUnicode_READ(kind, data, k);
    return cps;
}

/* ------------------------------------------------------------------------------------------------ */
/* Seeds: LCP intervals of a weighted suffix array                                                   */

static const uint32_t *sort_text; /* the text the comparators read (the GIL is held throughout) */
static Py_ssize_t sort_depth;

static int
compare_suffixes(const void *a, const void *b)
{
    Py_ssize_t i = *(const int32_t *)a, j = *(const int32_t *)b;
    for (Py_ssize_t k = 0; k < sort_depth; k++) {
        uint32_t x = sort_text[i + k], y = sort_text[j + k];
        if (x != y) return x < y ? -1 : 1;
        if (x == 0) break; /* both reached the boundary */
    }
    return i < j ? -1 : (i > j); /* equal on the compared depth: a fixed order */
}

typedef struct {
    uint32_t *cp; /* sorted code points that have a class */
    int32_t *cls;
    Py_ssize_t n;
} Classes;

static int
class_of(const Classes *c, uint32_t cp)
{
    Py_ssize_t lo = 0, hi = c->n;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (c->cp[mid] < cp) lo = mid + 1;
        else hi = mid;
    }
    return lo < c->n && c->cp[lo] == cp ? c->cls[lo] : 0;
}

typedef struct {
    uint32_t cp;
    int32_t cls;
} ClassEntry;

static int
compare_class_entries(const void *x, const void *y)
{
    uint32_t a = ((const ClassEntry *)x)->cp, b = ((const ClassEntry *)y)->cp;
    return (a > b) - (a < b);
}

/* The {code point: class} map as two arrays sorted by code point (a million characters sort in
 * well under a second). */
static int
classes_init(Classes *c, PyObject *map)
{
    Py_ssize_t n = PyDict_GET_SIZE(map), pos = 0, k = 0;
    ClassEntry *entries = PyMem_Malloc((n + 1) * sizeof(ClassEntry));
    c->cp = PyMem_Malloc((n + 1) * sizeof(uint32_t));
    c->cls = PyMem_Malloc((n + 1) * sizeof(int32_t));
    c->n = 0;
    if (!entries || !c->cp || !c->cls) {
        PyMem_Free(entries);
        PyErr_NoMemory();
        return -1;
    }
    PyObject *key, *value;
    while (PyDict_Next(map, &pos, &key, &value)) {
        long cp = PyLong_AsLong(key), cls = PyLong_AsLong(value);
        if ((cp == -1 || cls == -1) && PyErr_Occurred()) {
            PyMem_Free(entries);
            return -1;
        }
        entries[k++] = (ClassEntry){(uint32_t)cp, (int32_t)cls};
    }
    qsort(entries, (size_t)k, sizeof(ClassEntry), compare_class_entries);
    for (Py_ssize_t i = 0; i < k; i++) {
        c->cp[i] = entries[i].cp;
        c->cls[i] = entries[i].cls;
    }
    PyMem_Free(entries);
    c->n = k;
    return 0;
}

/* A piece may start with the prefix character but not contain it later, and its characters must share
 * one class (class 0 goes with any; a negative class is in no piece). */
static int
valid_piece(const uint32_t *s, Py_ssize_t n, const Classes *classes, int64_t prefix_char)
{
    int current = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        if ((int64_t)s[k] == prefix_char) {
            if (k > 0) return 0;
            continue;
        }
        int c = class_of(classes, s[k]);
        if (c < 0) return 0;
        if (c == 0) continue;
        if (current != 0 && c != current) return 0;
        current = c;
    }
    return 1;
}

typedef struct {
    int64_t score; /* frequency x length */
    int32_t at;    /* where the substring starts in the seed text */
    int32_t length;
} Seed;

static int
compare_seeds(const void *a, const void *b)
{
    const Seed *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    Py_ssize_t n = x->length < y->length ? x->length : y->length;
    for (Py_ssize_t k = 0; k < n; k++) {
        uint32_t p = sort_text[x->at + k], q = sort_text[y->at + k];
        if (p != q) return p < q ? -1 : 1;
    }
    return x->length < y->length ? -1 : (x->length > y->length);
}

/* The best `capacity` seeds so far, in a heap whose root is the worst of them. */
typedef struct {
    Seed *items;
    Py_ssize_t n, capacity;
} Seeds;

static void
seeds_sift_down(Seeds *seeds, Py_ssize_t at)
{
    for (;;) {
        Py_ssize_t worst = at, left = 2 * at + 1, right = left + 1;
        if (left < seeds->n && compare_seeds(&seeds->items[left], &seeds->items[worst]) > 0) worst = left;
        if (right < seeds->n && compare_seeds(&seeds->items[right], &seeds->items[worst]) > 0) worst = right;
        if (worst == at) return;
        Seed swap = seeds->items[at];
        seeds->items[at] = seeds->items[worst];
        seeds->items[worst] = swap;
        at = worst;
    }
}

static void
seeds_add(Seeds *seeds, const uint32_t *text, Py_ssize_t at, Py_ssize_t length, int64_t frequency,
          Py_ssize_t max_length, const Classes *classes, int64_t prefix_char)
{
    if (seeds->capacity == 0 || length < 2 || length > max_length || !valid_piece(text + at, length, classes, prefix_char))
        return;
    Seed seed = {frequency * length, (int32_t)at, (int32_t)length};
    if (seeds->n < seeds->capacity) { /* sift up */
        Py_ssize_t k = seeds->n++;
        while (k > 0 && compare_seeds(&seed, &seeds->items[(k - 1) / 2]) > 0) {
            seeds->items[k] = seeds->items[(k - 1) / 2];
            k = (k - 1) / 2;
        }
        seeds->items[k] = seed;
    } else if (compare_seeds(&seed, &seeds->items[0]) < 0) { /* better than the worst kept */
        seeds->items[0] = seed;
        seeds_sift_down(seeds, 0);
    }
}

/* The best seeds of `words` (as many as `seeds` holds), best first; `text` receives the joined words. */
static int
find_seeds(const Texts *words, const int64_t *counts, Py_ssize_t max_length, const Classes *classes,
           int64_t prefix_char, uint32_t **text_out, Seeds *seeds)
{
    Py_ssize_t n = 0;
    for (Py_ssize_t w = 0; w < words->n; w++) n += words->length[w] + 1;
    if (n > INT32_MAX || max_length > 250) {
        PyErr_SetString(PyExc_ValueError, "corpus or max_piece_length too large for the seed search");
        return -1;
    }
    int rc = -1;
    uint32_t *text = PyMem_Malloc((n + max_length + 2) * sizeof(uint32_t));
    int32_t *sa = PyMem_Malloc((n + 1) * sizeof(int32_t));
    uint8_t *lcp = PyMem_Malloc(n + 2);
    int64_t *weight = PyMem_Malloc((n + 1) * sizeof(int64_t)); /* freed once summed into `cumulative` */
    int64_t *cumulative = PyMem_Malloc((n + 1) * sizeof(int64_t));
    Py_ssize_t *stack_lcp = PyMem_Malloc((max_length + 3) * sizeof(Py_ssize_t));
    Py_ssize_t *stack_lb = PyMem_Malloc((max_length + 3) * sizeof(Py_ssize_t));
    if (!text || !sa || !lcp || !weight || !cumulative || !stack_lcp || !stack_lb) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t at = 0;
    for (Py_ssize_t w = 0; w < words->n; w++) {
        for (Py_ssize_t k = 0; k < words->length[w]; k++) {
            weight[at] = counts[w];
            text[at++] = words->cps[words->offset[w] + k]; /* a NUL acts as a boundary */
        }
        weight[at] = 0;
        text[at++] = 0;
    }
    for (Py_ssize_t k = 0; k < max_length + 2; k++) text[n + k] = 0;
    for (Py_ssize_t k = 0; k < n; k++) sa[k] = (int32_t)k;
    Py_ssize_t depth = max_length + 1; /* deeper nodes are too long to be pieces */
    sort_text = text;
    sort_depth = depth;
    qsort(sa, n, sizeof(int32_t), compare_suffixes);
    lcp[0] = lcp[n] = 0;
    cumulative[0] = 0;
    for (Py_ssize_t k = 0; k < n; k++) cumulative[k + 1] = cumulative[k] + weight[sa[k]];
    PyMem_Free(weight);
    weight = NULL;
    for (Py_ssize_t k = 1; k < n; k++) {
        const uint32_t *a = text + sa[k - 1], *b = text + sa[k];
        Py_ssize_t h = 0;
        while (h < depth && a[h] == b[h] && a[h] != 0) h++;
        lcp[k] = (uint8_t)h;
    }
    /* an interval [lb, rb] of the suffix array with lcp h is the node spelling h characters */
    Py_ssize_t top = 0;
    stack_lcp[0] = 0;
    stack_lb[0] = 0;
    for (Py_ssize_t k = 1; k <= n; k++) {
        /* suffix k - 1, up to its word's end, is a leaf when no neighbour shares all of it */
        Py_ssize_t leaf = 0;
        while (text[sa[k - 1] + leaf] != 0 && leaf <= max_length) leaf++;
        if (leaf > lcp[k - 1] && leaf > lcp[k])
            seeds_add(seeds, text, sa[k - 1], leaf, cumulative[k] - cumulative[k - 1], max_length, classes, prefix_char);
        Py_ssize_t h = lcp[k], lb = k - 1;
        while (h < stack_lcp[top]) {
            Py_ssize_t node = stack_lcp[top], node_lb = stack_lb[top--];
            lb = node_lb;
            seeds_add(seeds, text, sa[node_lb], node, cumulative[k] - cumulative[node_lb], max_length, classes,
                      prefix_char);
        }
        if (h > stack_lcp[top]) {
            top++;
            stack_lcp[top] = h;
            stack_lb[top] = lb;
        }
    }
    qsort(seeds->items, seeds->n, sizeof(Seed), compare_seeds);
    *text_out = text;
    text = NULL;
    rc = 0;
done:
    PyMem_Free(text);
    PyMem_Free(sa);
    PyMem_Free(lcp);
    PyMem_Free(weight);
    PyMem_Free(cumulative);
    PyMem_Free(stack_lcp);
    PyMem_Free(stack_lb);
    return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* The pieces' trie: (node, code point) -> child in one open-addressing table                        */

typedef struct {
    uint64_t *keys; /* (parent << 32 | code point) + 1; 0 marks an empty slot */
    int32_t *children;
    size_t mask;
    int32_t *piece; /* node -> piece id or -1 */
    Py_ssize_t n_nodes;
} Trie;

static inline size_t
trie_slot(uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key;
}

static inline int32_t
trie_child(const Trie *t, int32_t node, uint32_t cp)
{
    uint64_t key = (((uint64_t)node << 32) | cp) + 1;
    for (size_t i = trie_slot(key) & t->mask;; i = (i + 1) & t->mask) {
        if (t->keys[i] == key) return t->children[i];
        if (t->keys[i] == 0) return -1;
    }
}

static void
trie_free(Trie *t)
{
    PyMem_Free(t->keys);
    PyMem_Free(t->children);
    PyMem_Free(t->piece);
    memset(t, 0, sizeof(*t));
}

/* Room for one more node: the table doubles past half full, the node array as needed. */
static int
trie_reserve(Trie *t, Py_ssize_t *node_capacity)
{
    if (t->n_nodes + 1 > *node_capacity) {
        Py_ssize_t capacity = *node_capacity * 2;
        int32_t *piece = PyMem_Realloc(t->piece, capacity * sizeof(int32_t));
        if (!piece) return -1;
        t->piece = piece;
        *node_capacity = capacity;
    }
    if ((size_t)(t->n_nodes + 1) * 2 <= t->mask + 1) return 0;
    size_t size = (t->mask + 1) * 2;
    uint64_t *keys = PyMem_Calloc(size, sizeof(uint64_t));
    int32_t *children = PyMem_Malloc(size * sizeof(int32_t));
    if (!keys || !children) {
        PyMem_Free(keys);
        PyMem_Free(children);
        return -1;
    }
    for (size_t i = 0; i <= t->mask; i++) {
        if (t->keys[i] == 0) continue;
        size_t j = trie_slot(t->keys[i]) & (size - 1);
        while (keys[j] != 0) j = (j + 1) & (size - 1);
        keys[j] = t->keys[i];
        children[j] = t->children[i];
    }
    PyMem_Free(t->keys);
    PyMem_Free(t->children);
    t->keys = keys;
    t->children = children;
    t->mask = size - 1;
    return 0;
}

static int
trie_build(Trie *t, const Texts *pieces)
{
    size_t size = 1024;
    Py_ssize_t node_capacity = 1024;
    t->keys = PyMem_Calloc(size, sizeof(uint64_t));
    t->children = PyMem_Malloc(size * sizeof(int32_t));
    t->piece = PyMem_Malloc(node_capacity * sizeof(int32_t));
    if (!t->keys || !t->children || !t->piece) goto failed;
    t->mask = size - 1;
    t->n_nodes = 1;
    t->piece[0] = -1;
    for (Py_ssize_t p = 0; p < pieces->n; p++) {
        int32_t node = 0;
        const uint32_t *s = pieces->cps + pieces->offset[p];
        for (Py_ssize_t k = 0; k < pieces->length[p]; k++) {
            int32_t child = trie_child(t, node, s[k]);
            if (child < 0) {
                if (trie_reserve(t, &node_capacity) < 0) goto failed;
                uint64_t key = (((uint64_t)node << 32) | s[k]) + 1;
                size_t i = trie_slot(key) & t->mask;
                while (t->keys[i] != 0) i = (i + 1) & t->mask;
                t->keys[i] = key;
                child = t->children[i] = (int32_t)t->n_nodes;
                t->piece[t->n_nodes++] = -1;
            }
            node = child;
        }
        if (pieces->length[p] > 0 && t->piece[node] < 0) t->piece[node] = (int32_t)p; /* the first of duplicates */
    }
    return 0;
failed:
    trie_free(t);
    PyErr_NoMemory();
    return -1;
}

/* ------------------------------------------------------------------------------------------------ */
/* Lattices                                                                                          */

#define FIXED_ONE 16777216.0 /* counts are summed as integers in units of 2^-24 */

typedef struct {
    int32_t start, end, piece; /* piece -1: an unknown character */
} Edge;

/* One thread's working memory (raw allocations: threads run without the GIL). */
typedef struct {
    Edge *edges;
    Py_ssize_t capacity, positions;
    double *alpha, *beta;
    float *best;
    Py_ssize_t *back;
} Scratch;

static void
scratch_free(Scratch *s)
{
    PyMem_RawFree(s->edges);
    PyMem_RawFree(s->alpha);
    PyMem_RawFree(s->beta);
    PyMem_RawFree(s->best);
    PyMem_RawFree(s->back);
    memset(s, 0, sizeof(*s));
}

/* Room for a text of n positions; -1 when out of memory. */
static int
scratch_fit(Scratch *s, Py_ssize_t n)
{
    if (n + 1 <= s->positions) return 0;
    Py_ssize_t size = s->positions ? s->positions : 64;
    while (size < n + 1) size *= 2;
    double *alpha = PyMem_RawRealloc(s->alpha, size * sizeof(double));
    if (alpha) s->alpha = alpha;
    double *beta = PyMem_RawRealloc(s->beta, size * sizeof(double));
    if (beta) s->beta = beta;
    float *best = PyMem_RawRealloc(s->best, size * sizeof(float));
    if (best) s->best = best;
    Py_ssize_t *back = PyMem_RawRealloc(s->back, size * sizeof(Py_ssize_t));
    if (back) s->back = back;
    if (!alpha || !beta || !best || !back) return -1;
    s->positions = size;
    return 0;
}

static int
scratch_push(Scratch *s, Py_ssize_t count)
{
    if (count < s->capacity) return 0;
    Py_ssize_t capacity = s->capacity ? s->capacity * 2 : 256;
    Edge *edges = PyMem_RawRealloc(s->edges, capacity * sizeof(Edge));
    if (!edges) return -1;
    s->edges = edges;
    s->capacity = capacity;
    return 0;
}

typedef struct {
    PyObject_HEAD
    Texts words;
    int64_t *counts;
    Texts pieces;
    double *scores;
    Trie trie;
    Scratch scratch; /* for calls on one text */
} Lattice;

static double
unknown_score(const Lattice *L)
{
    double lowest = 0.0;
    for (Py_ssize_t p = 0; p < L->pieces.n; p++)
        if (p == 0 || L->scores[p] < lowest) lowest = L->scores[p];
    return lowest - 10.0;
}

/* Every edge of the text into s->edges, ordered by start then end; returns the count (-1: out of
 * memory). With `skip_piece` >= 0, that piece spanning the whole text is left out. */
static Py_ssize_t
build_edges(const Lattice *L, Scratch *s, const uint32_t *cps, Py_ssize_t n, int32_t skip_piece)
{
    Py_ssize_t count = 0;
    for (Py_ssize_t start = 0; start < n; start++) {
        int32_t node = 0;
        Py_ssize_t stop = start + L->pieces.longest < n ? start + L->pieces.longest : n, first = count;
        int single = 0;
        for (Py_ssize_t end = start + 1; end <= stop; end++) {
            node = trie_child(&L->trie, node, cps[end - 1]);
            if (node < 0) break;
            int32_t piece = L->trie.piece[node];
            if (piece < 0) continue;
            if (end == start + 1) single = 1;
            if (piece == skip_piece && start == 0 && end == n) continue;
            if (scratch_push(s, count + 1) < 0) return -1;
            s->edges[count++] = (Edge){(int32_t)start, (int32_t)end, piece};
        }
        if (!single) { /* an unknown character: the shortest edge from here */
            if (scratch_push(s, count + 1) < 0) return -1;
            memmove(s->edges + first + 1, s->edges + first, (count - first) * sizeof(Edge));
            s->edges[first] = (Edge){(int32_t)start, (int32_t)(start + 1), -1};
            count++;
        }
    }
    return count;
}

static inline double
edge_score(const Lattice *L, const Edge *e, double unk_score)
{
    return e->piece < 0 ? unk_score : L->scores[e->piece];
}

/* The best path into s->best / s->back (back[q]: the edge ending the best path to q); returns its
 * score. Float arithmetic and first-best ties, as sentencepiece. */
static float
viterbi(const Lattice *L, Scratch *s, Py_ssize_t n_edges, Py_ssize_t n, double unk_score)
{
    for (Py_ssize_t q = 0; q <= n; q++) s->back[q] = -1;
    s->best[0] = 0.0f;
    for (Py_ssize_t k = 0; k < n_edges; k++) {
        const Edge *e = &s->edges[k];
        if (e->start > 0 && s->back[e->start] < 0) continue; /* unreachable */
        float score = s->best[e->start] + (float)edge_score(L, e, unk_score);
        if (s->back[e->end] < 0 || score > s->best[e->end]) {
            s->best[e->end] = score;
            s->back[e->end] = k;
        }
    }
    return s->best[n];
}

static inline double
log_add(double a, double b)
{
    if (a < b) {
        double t = a;
        a = b;
        b = t;
    }
    return b == -INFINITY ? a : a + log1p(exp(b - a));
}

static inline int64_t
fixed(double x)
{
    return (int64_t)(x * FIXED_ONE + 0.5);
}

/* ---- the work of one thread: words (or pieces) [first, last) ---- */

enum { EXPECTED, BEST_PATHS, ALTERNATIVES };

typedef struct {
    const Lattice *L;
    int task;
    Py_ssize_t first, last;
    double unk_score;
    int64_t *sums;       /* EXPECTED, BEST_PATHS: per piece */
    double *alt_score;   /* ALTERNATIVES: per piece (NAN: none) */
    int32_t *alt_ids;    /* ALTERNATIVES: pieces.longest slots per piece */
    int32_t *alt_length; /* ALTERNATIVES: per piece */
    int failed;
} Job;

static void
expected_counts_of(Job *job, Scratch *s, const uint32_t *cps, Py_ssize_t n, int64_t count)
{
    const Lattice *L = job->L;
    Py_ssize_t n_edges = build_edges(L, s, cps, n, -1);
    if (n_edges < 0) {
        job->failed = 1;
        return;
    }
    double *alpha = s->alpha, *beta = s->beta;
    for (Py_ssize_t q = 0; q <= n; q++) alpha[q] = beta[q] = -INFINITY;
    alpha[0] = beta[n] = 0.0;
    for (Py_ssize_t k = 0; k < n_edges; k++) {
        const Edge *e = &s->edges[k];
        alpha[e->end] = log_add(alpha[e->end], alpha[e->start] + edge_score(L, e, job->unk_score));
    }
    for (Py_ssize_t k = n_edges - 1; k >= 0; k--) {
        const Edge *e = &s->edges[k];
        beta[e->start] = log_add(beta[e->start], beta[e->end] + edge_score(L, e, job->unk_score));
    }
    double z = alpha[n];
    for (Py_ssize_t k = 0; k < n_edges; k++) {
        const Edge *e = &s->edges[k];
        if (e->piece >= 0)
            job->sums[e->piece] += fixed(count * exp(alpha[e->start] + L->scores[e->piece] + beta[e->end] - z));
    }
}

static void
best_path_counts_of(Job *job, Scratch *s, const uint32_t *cps, Py_ssize_t n, int64_t count)
{
    Py_ssize_t n_edges = build_edges(job->L, s, cps, n, -1);
    if (n_edges < 0) {
        job->failed = 1;
        return;
    }
    viterbi(job->L, s, n_edges, n, job->unk_score);
    for (Py_ssize_t q = n; q > 0;) {
        const Edge *e = &s->edges[s->back[q]];
        if (e->piece >= 0) job->sums[e->piece] += count;
        q = e->start;
    }
}

static void
alternative_of(Job *job, Scratch *s, Py_ssize_t p)
{
    const Lattice *L = job->L;
    Py_ssize_t n = L->pieces.length[p];
    job->alt_length[p] = 0;
    job->alt_score[p] = NAN;
    if (n <= 1) return; /* nothing else spells one character */
    Py_ssize_t n_edges = build_edges(L, s, L->pieces.cps + L->pieces.offset[p], n, (int32_t)p);
    if (n_edges < 0) {
        job->failed = 1;
        return;
    }
    job->alt_score[p] = viterbi(L, s, n_edges, n, job->unk_score);
    int32_t *ids = job->alt_ids + p * L->pieces.longest, length = 0;
    for (Py_ssize_t q = n; q > 0; q = s->edges[s->back[q]].start) length++;
    job->alt_length[p] = length;
    for (Py_ssize_t q = n; q > 0; q = s->edges[s->back[q]].start) ids[--length] = s->edges[s->back[q]].piece;
}

static void *
run_job(void *arg)
{
    Job *job = arg;
    const Lattice *L = job->L;
    Scratch s = {0};
    Py_ssize_t longest = job->task == ALTERNATIVES ? L->pieces.longest : L->words.longest;
    if (scratch_fit(&s, longest) < 0) {
        job->failed = 1;
        scratch_free(&s);
        return NULL;
    }
    for (Py_ssize_t i = job->first; i < job->last && !job->failed; i++) {
        if (job->task == ALTERNATIVES) {
            alternative_of(job, &s, i);
            continue;
        }
        Py_ssize_t n = L->words.length[i];
        if (n == 0) continue;
        const uint32_t *cps = L->words.cps + L->words.offset[i];
        if (job->task == EXPECTED) expected_counts_of(job, &s, cps, n, L->counts[i]);
        else best_path_counts_of(job, &s, cps, n, L->counts[i]);
    }
    scratch_free(&s);
    return NULL;
}

/* Run `task` over all words (pieces for ALTERNATIVES) in n_threads threads; per-piece sums are added
 * into `sums` (integers: the same for any n_threads). */
static int
run_jobs(Lattice *L, int task, int n_threads, int64_t *sums, double *alt_score, int32_t *alt_ids, int32_t *alt_length)
{
    Py_ssize_t total = task == ALTERNATIVES ? L->pieces.n : L->words.n, n_pieces = L->pieces.n;
    if (n_threads < 1) n_threads = 1;
    if (n_threads > 64) n_threads = 64;
    Job jobs[64];
    pthread_t threads[64];
    int started[64] = {0}, failed = 0;
    double unk_score = unknown_score(L);
    for (int t = 0; t < n_threads; t++) {
        jobs[t] = (Job){L, task, total * t / n_threads, total * (t + 1) / n_threads, unk_score, NULL, alt_score, alt_ids,
                        alt_length, 0};
        if (sums) {
            jobs[t].sums = t == 0 ? sums : PyMem_Calloc(n_pieces + 1, sizeof(int64_t));
            if (!jobs[t].sums) failed = 1;
        }
    }
    if (!failed) {
        Py_BEGIN_ALLOW_THREADS
        for (int t = 1; t < n_threads; t++) started[t] = pthread_create(&threads[t], NULL, run_job, &jobs[t]) == 0;
        run_job(&jobs[0]);
        for (int t = 1; t < n_threads; t++) {
            if (started[t]) pthread_join(threads[t], NULL);
            else run_job(&jobs[t]); /* no thread to be had: do it here */
        }
        Py_END_ALLOW_THREADS
    }
    for (int t = 0; t < n_threads; t++) {
        failed |= jobs[t].failed;
        if (sums && t > 0 && jobs[t].sums) {
            for (Py_ssize_t p = 0; p < n_pieces; p++) sums[p] += jobs[t].sums[p];
            PyMem_Free(jobs[t].sums);
        }
    }
    if (failed) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* ---- the Python type ---- */

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
    if (texts_init(&self->words, words, "words") < 0) return -1;
    self->counts = int64_array(counts, self->words.n, "counts");
    if (!self->counts) return -1;
    for (Py_ssize_t w = 0; w < self->words.n; w++) {
        if (self->counts[w] < 0) {
            PyErr_Format(PyExc_ValueError, "counts[%zd] is negative", w);
            return -1;
        }
    }
    return 0;
}

static void
lattice_dealloc(Lattice *self)
{
    texts_free(&self->words);
    texts_free(&self->pieces);
    trie_free(&self->trie);
    scratch_free(&self->scratch);
    PyMem_Free(self->counts);
    PyMem_Free(self->scores);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Install pieces and scores (both taken over) and their trie. */
static int
install(Lattice *L, Texts pieces, double *scores)
{
    Trie trie = {0};
    if (trie_build(&trie, &pieces) < 0) {
        texts_free(&pieces);
        PyMem_Free(scores);
        return -1;
    }
    texts_free(&L->pieces);
    trie_free(&L->trie);
    PyMem_Free(L->scores);
    L->pieces = pieces;
    L->scores = scores;
    L->trie = trie;
    return 0;
}

static PyObject *
lattice_set_pieces(Lattice *self, PyObject *args)
{
    PyObject *pieces, *scores;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &pieces, &PyList_Type, &scores)) return NULL;
    if (PyList_GET_SIZE(pieces) != PyList_GET_SIZE(scores)) {
        PyErr_SetString(PyExc_ValueError, "pieces and scores differ in length");
        return NULL;
    }
    Texts texts;
    if (texts_init(&texts, pieces, "pieces") < 0) return NULL;
    double *values = PyMem_Malloc((texts.n + 1) * sizeof(double));
    if (!values) {
        texts_free(&texts);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t p = 0; p < texts.n; p++) {
        values[p] = PyFloat_AsDouble(PyList_GET_ITEM(scores, p));
        if (values[p] == -1.0 && PyErr_Occurred()) {
            texts_free(&texts);
            PyMem_Free(values);
            return NULL;
        }
    }
    if (install(self, texts, values) < 0) return NULL;
    Py_RETURN_NONE;
}

/* seed(chars, char_counts, max_length, classes, prefix_char, seed_size): the characters, then the best
 * substrings of the words, seed_size pieces at most, scored as log probabilities of their
 * frequency x length (a character's score is its count). */
static PyObject *
lattice_seed(Lattice *self, PyObject *args)
{
    PyObject *chars, *char_counts, *class_map;
    Py_ssize_t max_length, seed_size;
    long long prefix_char;
    if (!PyArg_ParseTuple(args, "O!O!nO!Ln", &PyList_Type, &chars, &PyList_Type, &char_counts, &max_length,
                          &PyDict_Type, &class_map, &prefix_char, &seed_size))
        return NULL;
    Py_ssize_t n_chars = PyList_GET_SIZE(chars);
    if (PyList_GET_SIZE(char_counts) != n_chars) {
        PyErr_SetString(PyExc_ValueError, "chars and char_counts differ in length");
        return NULL;
    }
    Classes classes = {0};
    Seeds seeds = {0};
    uint32_t *text = NULL;
    Texts pieces = {0};
    double *scores = NULL;
    PyObject *result = NULL;
    seeds.capacity = seed_size > n_chars ? seed_size - n_chars : 0;
    seeds.items = PyMem_Malloc((seeds.capacity + 1) * sizeof(Seed));
    if (!seeds.items) {
        PyErr_NoMemory();
        goto done;
    }
    if (classes_init(&classes, class_map) < 0 ||
        find_seeds(&self->words, self->counts, max_length, &classes, prefix_char, &text, &seeds) < 0)
        goto done;
    Py_ssize_t n_seeds = seeds.n;
    Py_ssize_t n = n_chars + n_seeds, total = n_chars;
    for (Py_ssize_t k = 0; k < n_seeds; k++) total += seeds.items[k].length;
    pieces.cps = PyMem_Malloc((total + 1) * sizeof(uint32_t));
    pieces.offset = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t));
    pieces.length = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t));
    scores = PyMem_Malloc((n + 1) * sizeof(double));
    if (!pieces.cps || !pieces.offset || !pieces.length || !scores) {
        PyErr_NoMemory();
        goto done;
    }
    double sum = 0.0;
    Py_ssize_t at = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        pieces.offset[k] = at;
        if (k < n_chars) {
            PyObject *c = PyList_GET_ITEM(chars, k);
            if (!PyUnicode_Check(c) || PyUnicode_GET_LENGTH(c) != 1) {
                PyErr_Format(PyExc_TypeError, "chars[%zd] must be one character", k);
                goto done;
            }
            pieces.cps[at++] = PyUnicode_READ_CHAR(c, 0);
            pieces.length[k] = 1;
            scores[k] = (double)PyLong_AsLongLong(PyList_GET_ITEM(char_counts, k));
            if (scores[k] == -1.0 && PyErr_Occurred()) goto done;
        } else {
            const Seed *seed = &seeds.items[k - n_chars];
            memcpy(pieces.cps + at, text + seed->at, seed->length * sizeof(uint32_t));
            at += seed->length;
            pieces.length[k] = seed->length;
            scores[k] = (double)seed->score;
        }
        if (pieces.length[k] > pieces.longest) pieces.longest = pieces.length[k];
        sum += scores[k];
    }
    pieces.n = n;
    for (Py_ssize_t k = 0; k < n; k++) scores[k] = log(scores[k]) - log(sum);
    if (install(self, pieces, scores) < 0) {
        memset(&pieces, 0, sizeof(pieces));
        scores = NULL;
        goto done;
    }
    memset(&pieces, 0, sizeof(pieces));
    scores = NULL;
    result = PyLong_FromSsize_t(n);
done:
    PyMem_Free(classes.cp);
    PyMem_Free(classes.cls);
    PyMem_Free(seeds.items);
    PyMem_Free(text);
    texts_free(&pieces);
    PyMem_Free(scores);
    return result;
}

/* retain(indices, scores): keep the pieces at `indices` (int64 buffer), in that order, with new
 * `scores` (float64 buffer). */
static PyObject *
lattice_retain(Lattice *self, PyObject *args)
{
    Py_buffer indices, values;
    if (!PyArg_ParseTuple(args, "y*y*", &indices, &values)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = indices.len / (Py_ssize_t)sizeof(int64_t), total = 0;
    const int64_t *keep = indices.buf;
    Texts pieces = {0};
    double *scores = NULL;
    if (values.len != n * (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "indices and scores differ in length");
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        if (keep[k] < 0 || keep[k] >= self->pieces.n) {
            PyErr_Format(PyExc_IndexError, "indices[%zd] = %lld is not a piece", k, (long long)keep[k]);
            goto done;
        }
        total += self->pieces.length[keep[k]];
    }
    pieces.cps = PyMem_Malloc((total + 1) * sizeof(uint32_t));
    pieces.offset = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t));
    pieces.length = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t));
    scores = PyMem_Malloc((n + 1) * sizeof(double));
    if (!pieces.cps || !pieces.offset || !pieces.length || !scores) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t at = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_ssize_t length = self->pieces.length[keep[k]];
        memcpy(pieces.cps + at, self->pieces.cps + self->pieces.offset[keep[k]], length * sizeof(uint32_t));
        pieces.offset[k] = at;
        pieces.length[k] = length;
        if (length > pieces.longest) pieces.longest = length;
        at += length;
        scores[k] = ((const double *)values.buf)[k];
    }
    pieces.n = n;
    int rc = install(self, pieces, scores);
    memset(&pieces, 0, sizeof(pieces));
    scores = NULL;
    if (rc == 0) result = Py_NewRef(Py_None);
done:
    texts_free(&pieces);
    PyMem_Free(scores);
    PyBuffer_Release(&indices);
    PyBuffer_Release(&values);
    return result;
}

static PyObject *
lattice_pieces(Lattice *self, PyObject *unused)
{
    PyObject *list = PyList_New(self->pieces.n);
    for (Py_ssize_t p = 0; list && p < self->pieces.n; p++) {
        PyObject *piece = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, self->pieces.cps + self->pieces.offset[p],
                                                    self->pieces.length[p]);
        if (!piece) Py_CLEAR(list);
        else PyList_SET_ITEM(list, p, piece);
    }
    return list;
}

static PyObject *
lattice_scores(Lattice *self, PyObject *unused)
{
    return PyBytes_FromStringAndSize((const char *)self->scores, self->pieces.n * sizeof(double));
}

static PyObject *
sums_as_doubles(const int64_t *sums, Py_ssize_t n, double scale)
{
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, n * sizeof(double));
    if (!bytes) return NULL;
    double *out = (double *)PyBytes_AS_STRING(bytes);
    for (Py_ssize_t p = 0; p < n; p++) out[p] = (double)sums[p] / scale;
    return bytes;
}

static PyObject *
lattice_sums(Lattice *self, PyObject *args, int task)
{
    int n_threads = 1;
    if (!PyArg_ParseTuple(args, "|i", &n_threads)) return NULL;
    int64_t *sums = PyMem_Calloc(self->pieces.n + 1, sizeof(int64_t));
    if (!sums) return PyErr_NoMemory();
    PyObject *result = NULL;
    if (run_jobs(self, task, n_threads, sums, NULL, NULL, NULL) == 0)
        result = sums_as_doubles(sums, self->pieces.n, task == EXPECTED ? FIXED_ONE : 1.0);
    PyMem_Free(sums);
    return result;
}

static PyObject *
lattice_expected_counts(Lattice *self, PyObject *args)
{
    return lattice_sums(self, args, EXPECTED);
}

static PyObject *
lattice_viterbi_counts(Lattice *self, PyObject *args)
{
    return lattice_sums(self, args, BEST_PATHS);
}

static PyObject *
lattice_alternatives(Lattice *self, PyObject *args)
{
    int n_threads = 1;
    if (!PyArg_ParseTuple(args, "|i", &n_threads)) return NULL;
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

/* The edges of the text in args (text, unk_score) in self->scratch; returns their count (-1: error). */
static Py_ssize_t
edges_of_argument(Lattice *self, PyObject *args, Py_ssize_t *n, double *unk_score)
{
    PyObject *text;
    if (!PyArg_ParseTuple(args, "Ud", &text, unk_score)) return -1;
    uint32_t *cps = code_points(text, n);
    if (!cps) return -1;
    Py_ssize_t n_edges = scratch_fit(&self->scratch, *n) < 0 ? -1 : build_edges(self, &self->scratch, cps, *n, -1);
    PyMem_Free(cps);
    if (n_edges < 0) PyErr_NoMemory();
    return n_edges;
}

/* segment(text, unk_score) -> [(piece or -1, start, end), ...]: the best segmentation */
static PyObject *
lattice_segment(Lattice *self, PyObject *args)
{
    Py_ssize_t n;
    double unk_score;
    Py_ssize_t n_edges = edges_of_argument(self, args, &n, &unk_score);
    if (n_edges < 0) return NULL;
    Scratch *s = &self->scratch;
    viterbi(self, s, n_edges, n, unk_score);
    Py_ssize_t count = 0;
    for (Py_ssize_t q = n; q > 0; q = s->edges[s->back[q]].start) count++;
    PyObject *result = PyList_New(count);
    for (Py_ssize_t q = n; result && q > 0;) {
        const Edge *e = &s->edges[s->back[q]];
        PyObject *item = Py_BuildValue("(iii)", e->piece, e->start, e->end);
        if (!item) Py_CLEAR(result);
        else PyList_SET_ITEM(result, --count, item);
        q = e->start;
    }
    return result;
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
     "seed(chars, char_counts, max_length, classes, prefix_char, seed_size) -> number of pieces"},
    {"set_pieces", (PyCFunction)lattice_set_pieces, METH_VARARGS, "set_pieces(pieces, scores): the vocabulary"},
    {"retain", (PyCFunction)lattice_retain, METH_VARARGS,
     "retain(indices, scores): keep those pieces (int64 buffer) with new scores (float64 buffer)"},
    {"pieces", (PyCFunction)lattice_pieces, METH_NOARGS, "pieces() -> list of str"},
    {"scores", (PyCFunction)lattice_scores, METH_NOARGS, "scores() -> float64 bytes"},
    {"expected_counts", (PyCFunction)lattice_expected_counts, METH_VARARGS,
     "expected_counts(n_threads=1) -> float64 bytes: forward-backward counts of each piece over the words"},
    {"viterbi_counts", (PyCFunction)lattice_viterbi_counts, METH_VARARGS,
     "viterbi_counts(n_threads=1) -> float64 bytes: counts of each piece on the best segmentations"},
    {"alternatives", (PyCFunction)lattice_alternatives, METH_VARARGS,
     "alternatives(n_threads=1) -> (float64 scores, int32 ids, int32 lengths): each piece's best split into "
     "others (score NaN: none)"},
    {"segment", (PyCFunction)lattice_segment, METH_VARARGS,
     "segment(text, unk_score) -> [(piece, start, end)]: the best segmentation (piece -1: unknown)"},
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

static struct PyModuleDef unigram_module = {PyModuleDef_HEAD_INIT, "kvec._unigram",
                                            "The hot loops of the Unigram language model.", -1, NULL};

PyMODINIT_FUNC
PyInit__unigram(void)
{
    if (PyType_Ready(&LatticeType) < 0) return NULL;
    PyObject *module = PyModule_Create(&unigram_module);
    if (!module) return NULL;
    Py_INCREF(&LatticeType);
    if (PyModule_AddObject(module, "Lattice", (PyObject *)&LatticeType) < 0) {
        Py_DECREF(&LatticeType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
