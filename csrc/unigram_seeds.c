/* csrc/unigram_seeds.c: the seed vocabulary of Unigram training, for kvec/trainers/unigram.py
 * (Lattice.seed).
 *
 * Seeds are the substrings that label nodes of the suffix tree of the corpus: a suffix array of the
 * distinct words (each position weighted by its word's count, so it stands for the corpus with every
 * word repeated), sorted on the first max_length + 1 characters, and its LCP intervals; a word suffix
 * that no other shares is a leaf and a candidate too.
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
int
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
int
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
