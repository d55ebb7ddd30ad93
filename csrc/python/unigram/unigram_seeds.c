/* csrc/python/unigram/unigram_seeds.c: the seed vocabulary of Unigram training, for kvec/trainers/unigram.py
 * (Lattice.seed, whose method is here too).
 *
 * Seeds are the substrings that label nodes of a suffix tree: a suffix array of the distinct words joined
 * by NULs, sorted on the first max_length + 1 characters, and its LCP intervals; the rule (unigram.h)
 * says which nodes and how each place of a substring weighs.
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
/* Seeds: LCP intervals of a suffix array                                                            */

static const uint32_t *sort_text; /* the text the comparators read (the GIL is held throughout) */
static Py_ssize_t sort_depth;
static int seed_ties; /* 1: equal scores by substring ascending; -1: descending (SEEDS_INNER_NODES) */

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
        if (p != q) return p < q ? -seed_ties : seed_ties;
    }
    return x->length < y->length ? -seed_ties : (x->length > y->length ? seed_ties : 0);
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
    if (seeds->capacity == 0 || length < 2 || length > max_length || text[at + length - 1] == 0) return;
    Seed seed = {frequency * length, (int32_t)at, (int32_t)length};
    /* a full heap takes a seed better than its worst only: that is asked first, being the cheaper */
    if (seeds->n == seeds->capacity && compare_seeds(&seed, &seeds->items[0]) >= 0) return;
    if (!valid_piece(text + at, length, classes, prefix_char)) return;
    if (seeds->n < seeds->capacity) { /* sift up */
        Py_ssize_t k = seeds->n++;
        while (k > 0 && compare_seeds(&seed, &seeds->items[(k - 1) / 2]) > 0) {
            seeds->items[k] = seeds->items[(k - 1) / 2];
            k = (k - 1) / 2;
        }
        seeds->items[k] = seed;
    } else { /* better than the worst kept: it goes */
        seeds->items[0] = seed;
        seeds_sift_down(seeds, 0);
    }
}

/* Characters shared by the suffixes at a and b, up to depth (a NUL ends a word). With `nul_shared`
 * (SEEDS_INNER_NODES) a NUL both reach is shared too, and ends the prefix: a substring is then a node
 * only where what follows it differs, a word's end being one character. */
static Py_ssize_t
common_prefix(const uint32_t *text, Py_ssize_t a, Py_ssize_t b, Py_ssize_t depth, int nul_shared)
{
    Py_ssize_t h = 0;
    while (h < depth && text[a + h] == text[b + h] && text[a + h] != 0) h++;
    if (nul_shared && h < depth && text[a + h] == 0 && text[b + h] == 0) h++;
    return h;
}

/* The sorted runs a[0, na) and b[0, nb) merged into out (compare_suffixes). */
static void
merge_suffixes(const int32_t *a, size_t na, const int32_t *b, size_t nb, int32_t *out)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb) out[k++] = compare_suffixes(&a[i], &b[j]) < 0 ? a[i++] : b[j++];
    while (i < na) out[k++] = a[i++];
    while (j < nb) out[k++] = b[j++];
}

/* Merge sort of sa[0, n) (compare_suffixes) with tmp[0, n) as its scratch: no memory of its own, so a
 * thread sorting takes none from a heap of its own that the process would keep. */
static void
merge_sort_suffixes(int32_t *sa, int32_t *tmp, size_t n)
{
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            int32_t v = sa[i];
            size_t j = i;
            for (; j > 0 && compare_suffixes(&v, &sa[j - 1]) < 0; j--) sa[j] = sa[j - 1];
            sa[j] = v;
        }
        return;
    }
    size_t half = n / 2;
    merge_sort_suffixes(sa, tmp, half);
    merge_sort_suffixes(sa + half, tmp + half, n - half);
    merge_suffixes(sa, half, sa + half, n - half, tmp);
    memcpy(sa, tmp, n * sizeof(int32_t));
}

/* Sorts the suffixes sa[0, n) (compare_suffixes) with spare[0, n) as scratch, as much as glibc's sort
 * would take beside them, and no more: with two threads or more, each half in a thread of its own, then
 * the halves merged into spare, and the two arrays swapped. The order is total: the result is the one
 * sorted order. Afterwards *spare is free for other use. */
typedef struct {
    int32_t *sa, *tmp;
    size_t n;
} SuffixRun;

static void *
sort_suffix_run(void *arg)
{
    SuffixRun *run = arg;
    merge_sort_suffixes(run->sa, run->tmp, run->n);
    return NULL;
}

static void
sort_suffixes(int32_t **sa, int32_t **spare, Py_ssize_t n, int n_threads)
{
    pthread_t thread;
    SuffixRun low = {*sa, *spare, (size_t)n / 2}, high = {*sa + n / 2, *spare + n / 2, (size_t)(n - n / 2)};
    if (n_threads < 2 || n < 2 || pthread_create(&thread, NULL, sort_suffix_run, &high) != 0) {
        merge_sort_suffixes(*sa, *spare, (size_t)n); /* one thread, or none to be had: the whole array here */
        return;
    }
    sort_suffix_run(&low);
    pthread_join(thread, NULL);
    merge_suffixes(low.sa, low.n, high.sa, high.n, *spare);
    int32_t *sorted = *spare;
    *spare = *sa;
    *sa = sorted;
}

/* For each k of the sorted suffixes [first, last): shared[k], the characters suffixes k - 1 and k share
 * (common_prefix; 0 for k = 0), and leaf[k], the length of suffix k up to its word's end, past max_length
 * by one at most (both fit a byte: max_length is 250 at most). */
typedef struct {
    const uint32_t *text;
    const int32_t *sa;
    uint8_t *shared, *leaf;
    Py_ssize_t first, last, depth, max_length;
    int nul_shared;
} Neighbours;

static void *
measure_neighbours(void *arg)
{
    const Neighbours *m = arg;
    const uint32_t *text = m->text;
    for (Py_ssize_t k = m->first; k < m->last; k++) {
        m->shared[k] = k > 0 ? (uint8_t)common_prefix(text, m->sa[k - 1], m->sa[k], m->depth, m->nul_shared) : 0;
        Py_ssize_t leaf = 0;
        while (text[m->sa[k] + leaf] != 0 && leaf <= m->max_length) leaf++;
        m->leaf[k] = (uint8_t)leaf;
    }
    return NULL;
}

/* measure_neighbours over all n suffixes, in n_threads threads (2 at most: a seed search's). */
static void
measure_all(Neighbours m, Py_ssize_t n, int n_threads)
{
    Neighbours second = m;
    pthread_t thread;
    m.first = 0;
    m.last = second.first = n_threads > 1 ? n / 2 : n;
    second.last = n;
    int started = second.first < n && pthread_create(&thread, NULL, measure_neighbours, &second) == 0;
    measure_neighbours(&m);
    if (started) pthread_join(thread, NULL);
    else measure_neighbours(&second);
}

/* The best seeds of `words` (separated: words->cps is the words joined by NULs), as many as `seeds`
 * holds, best first, each a place in words->cps. Besides the seeds this takes 8 bytes per character
 * (the suffix array, and the sort's scratch that then holds the neighbours' measures) and a stack as
 * deep as max_length: the weight of an interval is summed on the stack as the intervals close. The
 * sort and the measures run in n_threads threads (2 at most), with the same seeds for any. */
int
find_seeds(const Texts *words, Py_ssize_t max_length, const Classes *classes, int64_t prefix_char, int rule,
           int n_threads, Seeds *seeds)
{
    Py_ssize_t n = words->n ? words->offset[words->n - 1] + words->length[words->n - 1] + 1 : 0;
    if (n > INT32_MAX || max_length < 0 || max_length > 250) {
        PyErr_SetString(PyExc_ValueError, "the seed search needs a max_piece_length of 0 to 250 and a corpus of "
                        "less than 2**31 characters");
        return -1;
    }
    const uint32_t *text = words->cps;
    int32_t *sa = PyMem_Malloc((n + 1) * sizeof(int32_t));
    Py_ssize_t *stack_lcp = PyMem_Malloc((max_length + 3) * sizeof(Py_ssize_t));
    Py_ssize_t *stack_lb = PyMem_Malloc((max_length + 3) * sizeof(Py_ssize_t));
    int64_t *stack_weight = PyMem_Malloc((max_length + 3) * sizeof(int64_t));
    int32_t *spare = PyMem_Malloc((n + 1) * sizeof(int32_t)); /* the sort's scratch, then the measures */
    int rc = -1;
    if (!sa || !spare || !stack_lcp || !stack_lb || !stack_weight) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) sa[k] = (int32_t)k;
    Py_ssize_t depth = max_length + 1; /* deeper nodes are too long to be pieces */
    sort_text = text;
    sort_depth = depth;
    seed_ties = rule == SEEDS_INNER_NODES ? -1 : 1;
    /* the GIL stays held: the comparators' text and depth are this call's */
    sort_suffixes(&sa, &spare, n, n_threads);
    /* two bytes per suffix in the four of the spare array */
    uint8_t *shared = (uint8_t *)spare, *leaves = shared + n;
    measure_all((Neighbours){text, sa, shared, leaves, 0, 0, depth, max_length, rule == SEEDS_INNER_NODES}, n,
                n_threads);
    /* an interval [lb, rb] of the suffix array with lcp h is the node spelling h characters; its
     * weight, the number of its suffixes that lie in words, is summed as its suffixes go by */
    Py_ssize_t top = 0, lcp_before = 0; /* lcp_before: the lcp of suffixes k - 2 and k - 1 */
    stack_lcp[0] = 0;
    stack_lb[0] = 0;
    stack_weight[0] = 0;
    for (Py_ssize_t k = 1; k <= n; k++) {
        Py_ssize_t lcp_after = k < n ? shared[k] : 0;
        /* suffix k - 1 weighs 1, a NUL (a word's end) nothing */
        int64_t weight = text[sa[k - 1]] != 0;
        /* suffix k - 1, up to its word's end, is a leaf when no neighbour shares all of it: a seed of
         * SEEDS_REPEATS's where it is a whole word */
        Py_ssize_t leaf = leaves[k - 1];
        int whole = sa[k - 1] == 0 || text[sa[k - 1] - 1] == 0;
        if (rule == SEEDS_REPEATS && whole && leaf > lcp_before && leaf > lcp_after)
            seeds_add(seeds, text, sa[k - 1], leaf, weight, max_length, classes, prefix_char);
        /* suffix k - 1 goes to the deepest interval holding it; a closing interval's weight to the
         * next one out */
        Py_ssize_t h = lcp_after, lb = k - 1;
        int64_t carried = weight;
        while (h < stack_lcp[top]) {
            Py_ssize_t node = stack_lcp[top];
            int64_t node_weight = stack_weight[top] + carried;
            lb = stack_lb[top--];
            seeds_add(seeds, text, sa[lb], node, node_weight, max_length, classes, prefix_char);
            carried = node_weight;
        }
        if (h > stack_lcp[top]) {
            top++;
            stack_lcp[top] = h;
            stack_lb[top] = lb;
            stack_weight[top] = carried;
        } else {
            stack_weight[top] += carried;
        }
        lcp_before = lcp_after;
    }
    PyMem_Free(sa); /* before the seeds' sort takes as much again as they do: the search's peak */
    sa = NULL;
    PyMem_Free(spare);
    spare = NULL;
    qsort(seeds->items, seeds->n, sizeof(Seed), compare_seeds);
    rc = 0;
done:
    PyMem_Free(sa);
    PyMem_Free(spare);
    PyMem_Free(stack_lcp);
    PyMem_Free(stack_lb);
    PyMem_Free(stack_weight);
    return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* Lattice.seed                                                                                      */

/* Where each of the n sorted code points first occurs in the words (-1: nowhere). */
static Py_ssize_t *
first_occurrences(const Texts *words, const uint32_t *sorted, Py_ssize_t n)
{
    Py_ssize_t *at = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t)), missing = n;
    if (!at) return NULL;
    for (Py_ssize_t k = 0; k < n; k++) at[k] = -1;
    for (Py_ssize_t w = 0; w < words->n && missing > 0; w++) {
        for (Py_ssize_t i = words->offset[w]; i < words->offset[w] + words->length[w]; i++) {
            Py_ssize_t lo = 0, hi = n;
            while (lo < hi) {
                Py_ssize_t mid = (lo + hi) / 2;
                if (sorted[mid] < words->cps[i]) lo = mid + 1;
                else hi = mid;
            }
            if (lo < n && sorted[lo] == words->cps[i] && at[lo] < 0) {
                at[lo] = i;
                missing--;
            }
        }
    }
    return at;
}

static int
compare_code_points(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Installs the seed vocabulary of seed(), the lists' lengths checked already: the characters, then the best
 * substrings; the number of pieces, or -1 with an exception set. */
static Py_ssize_t
seed_pieces(Lattice *self, PyObject *chars, PyObject *char_counts, Py_ssize_t max_length, PyObject *class_map,
            long long prefix_char, Py_ssize_t seed_size, int rule, int n_threads)
{
    Py_ssize_t n_chars = PyList_GET_SIZE(chars);
    Classes classes = {0};
    Seeds seeds = {0};
    Pieces pieces = {0};
    double *scores = NULL;
    uint32_t *sorted = PyMem_Malloc((n_chars + 1) * sizeof(uint32_t));
    Py_ssize_t *char_at = NULL;
    Py_ssize_t result = -1;
    if (!sorted) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n_chars; k++) {
        PyObject *c = PyList_GET_ITEM(chars, k);
        if (!PyUnicode_Check(c) || PyUnicode_GET_LENGTH(c) != 1) {
            PyErr_Format(PyExc_TypeError, "chars[%zd] must be one character", k);
            goto done;
        }
        sorted[k] = PyUnicode_READ_CHAR(c, 0);
    }
    qsort(sorted, n_chars, sizeof(uint32_t), compare_code_points);
    char_at = first_occurrences(&self->words, sorted, n_chars);
    if (!char_at) {
        PyErr_NoMemory();
        goto done;
    }
    seeds.capacity = seed_size > n_chars ? seed_size - n_chars : 0;
    /* the seeds label nodes and leaves of the words' suffix tree, fewer than two per position: a larger
     * seed_size asks for no more room */
    const Texts *words = &self->words;
    Py_ssize_t positions = words->n ? words->offset[words->n - 1] + words->length[words->n - 1] + 1 : 0;
    if (seeds.capacity > 2 * positions) seeds.capacity = 2 * positions;
    seeds.items = PyMem_Malloc((seeds.capacity + 1) * sizeof(Seed));
    if (!seeds.items) {
        PyErr_NoMemory();
        goto done;
    }
    if (classes_init(&classes, class_map) < 0 ||
        find_seeds(&self->words, max_length, &classes, prefix_char, rule, n_threads, &seeds) < 0)
        goto done;
    Py_ssize_t n_seeds = seeds.n;
    Py_ssize_t n = n_chars + n_seeds;
    if (pieces_alloc(&pieces, &scores, n) < 0) goto done;
    double sum = 0.0;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (k < n_chars) {
            uint32_t cp = PyUnicode_READ_CHAR(PyList_GET_ITEM(chars, k), 0);
            const uint32_t *found = bsearch(&cp, sorted, n_chars, sizeof(uint32_t), compare_code_points);
            Py_ssize_t at = char_at[found - sorted];
            if (at < 0) {
                PyErr_Format(PyExc_ValueError, "chars[%zd] does not occur in the words", k);
                goto done;
            }
            pieces.at[k] = (uint32_t)at;
            pieces.length[k] = 1;
            scores[k] = (double)PyLong_AsLongLong(PyList_GET_ITEM(char_counts, k));
            if (scores[k] == -1.0 && PyErr_Occurred()) goto done;
        } else {
            const Seed *seed = &seeds.items[k - n_chars];
            pieces.at[k] = (uint32_t)seed->at;
            pieces.length[k] = (uint16_t)seed->length;
            scores[k] = (double)seed->score;
        }
        if (pieces.length[k] > pieces.longest) pieces.longest = pieces.length[k];
        sum += scores[k];
    }
    pieces.n = n;
    for (Py_ssize_t k = 0; k < n; k++) scores[k] = log(scores[k]) - log(sum);
    PyMem_Free(seeds.items); /* before the trie is built: the peak of training */
    seeds.items = NULL;
    if (lattice_install(self, pieces, NULL, scores, 0) < 0) {
        memset(&pieces, 0, sizeof(pieces));
        scores = NULL;
        goto done;
    }
    memset(&pieces, 0, sizeof(pieces));
    scores = NULL;
    result = n;
done:
    PyMem_Free(classes.cp);
    PyMem_Free(classes.cls);
    PyMem_Free(seeds.items);
    PyMem_Free(sorted);
    PyMem_Free(char_at);
    PyMem_Free(pieces.at);
    PyMem_Free(pieces.length);
    PyMem_Free(pieces.sorted);
    PyMem_Free(scores);
    return result;
}

/* seed(chars, char_counts, max_length, classes, prefix_char, seed_size, rule, n_threads=1): the
 * characters, then the best substrings of the words, seed_size pieces at most, scored as log probabilities
 * of their frequency x length (a character's score is its count); the suffix array is sorted and measured
 * in n_threads threads (2 at most), with the same seeds for any. Every character must occur in the words:
 * the pieces are read where they occur there, with no copy. Checks the arguments, then seeds the lattice. */
PyObject *
lattice_seed(Lattice *self, PyObject *args)
{
    PyObject *chars, *char_counts, *class_map;
    Py_ssize_t max_length, seed_size;
    long long prefix_char;
    int rule, n_threads = 1;
    if (!PyArg_ParseTuple(args, "O!O!nO!Lni|i", &PyList_Type, &chars, &PyList_Type, &char_counts, &max_length,
                          &PyDict_Type, &class_map, &prefix_char, &seed_size, &rule, &n_threads))
        return NULL;
    if (rule != SEEDS_INNER_NODES && rule != SEEDS_REPEATS) {
        PyErr_Format(PyExc_ValueError, "rule must be 0 (Hugging Face) or 1 (sentencepiece), got %d", rule);
        return NULL;
    }
    if (PyList_GET_SIZE(char_counts) != PyList_GET_SIZE(chars)) {
        PyErr_SetString(PyExc_ValueError, "chars and char_counts differ in length");
        return NULL;
    }
    Py_ssize_t n = seed_pieces(self, chars, char_counts, max_length, class_map, prefix_char, seed_size, rule,
                               n_threads);
    return n < 0 ? NULL : PyLong_FromSsize_t(n);
}
