/* csrc/unigram_lattice.c: Unigram lattices over the pieces' trie: Viterbi, forward-backward and the
 * pruning splits, in threads without the GIL. Used by kvec/models/unigram.py (encoding) and
 * kvec/trainers/unigram.py (EM) through the Lattice type of unigram_module.c.
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

#include "hash.h"
#include "unigram.h"

/* ------------------------------------------------------------------------------------------------ */
/* The pieces' trie: (node, code point) -> child in one open-addressing table                        */


void
trie_free(Trie *t)
{
    PyMem_Free(t->cps);
    PyMem_Free(t->lo);
    PyMem_Free(t->hi);
    PyMem_Free(t->nodes);
    PyMem_Free(t->root);
    memset(t, 0, sizeof(*t));
}

/* The trie while it is built: (node, code point) -> child in one open-addressing table. */
typedef struct {
    uint64_t key; /* (parent << 32 | code point) + 1; 0 marks an empty slot */
    int32_t child;
} BuildSlot;

typedef struct {
    BuildSlot *slots;
    size_t mask;
    int32_t *piece;
    Py_ssize_t n_nodes, node_capacity;
} Builder;

static inline size_t
builder_slot(uint64_t key)
{
    return (size_t)mix64(key);
}

static int32_t
builder_child(const Builder *b, int32_t node, uint32_t cp, size_t *slot)
{
    uint64_t key = (((uint64_t)node << 32) | cp) + 1;
    size_t i = builder_slot(key) & b->mask;
    for (; b->slots[i].key; i = (i + 1) & b->mask)
        if (b->slots[i].key == key) return b->slots[i].child;
    *slot = i;
    return -1;
}

/* Room for one more node: the table doubles past half full, the node array as needed. */
static int
builder_reserve(Builder *b)
{
    if (b->n_nodes + 1 > b->node_capacity) {
        Py_ssize_t capacity = b->node_capacity * 2;
        int32_t *piece = PyMem_Realloc(b->piece, capacity * sizeof(int32_t));
        if (!piece) return -1;
        b->piece = piece;
        b->node_capacity = capacity;
    }
    if ((size_t)(b->n_nodes + 1) * 2 <= b->mask + 1) return 0;
    size_t size = (b->mask + 1) * 2;
    BuildSlot *slots = PyMem_Calloc(size, sizeof(BuildSlot));
    if (!slots) return -1;
    for (size_t i = 0; i <= b->mask; i++) {
        if (b->slots[i].key == 0) continue;
        size_t j = builder_slot(b->slots[i].key) & (size - 1);
        while (slots[j].key != 0) j = (j + 1) & (size - 1);
        slots[j] = b->slots[i];
    }
    PyMem_Free(b->slots);
    b->slots = slots;
    b->mask = size - 1;
    return 0;
}

static int
compare_keys(const void *a, const void *b)
{
    uint64_t x = ((const BuildSlot *)a)->key, y = ((const BuildSlot *)b)->key;
    return (x > y) - (x < y);
}

/* The built trie in its final form: edges sorted by (parent, code point), the node an edge leads to
 * numbered after it, so each node's edges lie side by side and a node's piece next to its edge's. */
static int
trie_freeze(Trie *t, Builder *b)
{
    Py_ssize_t n_edges = b->n_nodes - 1, e = 0;
    BuildSlot *edges = PyMem_Malloc(sizeof(BuildSlot) * (size_t)(n_edges ? n_edges : 1));
    int32_t *renamed = PyMem_Malloc(sizeof(int32_t) * (size_t)b->n_nodes);
    t->cps = PyMem_Malloc(sizeof(uint32_t) * (size_t)(n_edges ? n_edges : 1));
    t->lo = PyMem_Calloc((size_t)b->n_nodes, sizeof(uint32_t));
    t->hi = PyMem_Calloc((size_t)b->n_nodes, sizeof(uint32_t));
    t->nodes = PyMem_Calloc((size_t)b->n_nodes, sizeof(TrieNode));
    t->root = PyMem_Malloc(sizeof(int32_t) * TRIE_ROOT_SPAN);
    if (!edges || !renamed || !t->cps || !t->lo || !t->hi || !t->nodes || !t->root) {
        PyMem_Free(edges);
        PyMem_Free(renamed);
        return -1;
    }
    for (size_t i = 0; i <= b->mask; i++)
        if (b->slots[i].key) edges[e++] = b->slots[i];
    qsort(edges, (size_t)n_edges, sizeof(BuildSlot), compare_keys);
    renamed[0] = 0;
    for (e = 0; e < n_edges; e++) renamed[edges[e].child] = (int32_t)(e + 1);
    t->nodes[0].piece = b->piece[0];
    for (e = 0; e < n_edges; e++) {
        uint64_t key = edges[e].key - 1;
        int32_t parent = renamed[key >> 32];
        t->cps[e] = (uint32_t)(key & 0xffffffffu);
        t->nodes[e + 1].piece = b->piece[edges[e].child];
        if (t->hi[parent] == 0) t->lo[parent] = (uint32_t)e;
        t->hi[parent] = (uint32_t)(e + 1);
    }
    t->n_nodes = b->n_nodes;
    for (uint32_t cp = 0; cp < TRIE_ROOT_SPAN; cp++) t->root[cp] = -1;
    for (uint32_t k = t->lo[0]; k < t->hi[0] && t->cps[k] < TRIE_ROOT_SPAN; k++) t->root[t->cps[k]] = (int32_t)(k + 1);
    PyMem_Free(edges);
    PyMem_Free(renamed);
    return 0;
}

int
trie_build(Trie *t, const Texts *pieces)
{
    Builder b = {PyMem_Calloc(1024, sizeof(BuildSlot)), 1023, PyMem_Malloc(1024 * sizeof(int32_t)), 1, 1024};
    memset(t, 0, sizeof(*t));
    if (!b.slots || !b.piece) goto failed;
    b.piece[0] = -1;
    for (Py_ssize_t p = 0; p < pieces->n; p++) {
        int32_t node = 0;
        const uint32_t *s = pieces->cps + pieces->offset[p];
        for (Py_ssize_t k = 0; k < pieces->length[p]; k++) {
            size_t slot = 0;
            int32_t child = builder_child(&b, node, s[k], &slot);
            if (child < 0) {
                if (builder_reserve(&b) < 0) goto failed;
                if (builder_child(&b, node, s[k], &slot) >= 0) goto failed; /* cannot be: it was missing */
                b.slots[slot].key = (((uint64_t)node << 32) | s[k]) + 1;
                child = b.slots[slot].child = (int32_t)b.n_nodes;
                b.piece[b.n_nodes++] = -1;
            }
            node = child;
        }
        if (pieces->length[p] > 0 && b.piece[node] < 0) b.piece[node] = (int32_t)p; /* the first of duplicates */
    }
    if (trie_freeze(t, &b) < 0) goto failed;
    PyMem_Free(b.slots);
    PyMem_Free(b.piece);
    return 0;
failed:
    PyMem_Free(b.slots);
    PyMem_Free(b.piece);
    trie_free(t);
    PyErr_NoMemory();
    return -1;
}

void
trie_set_scores(Trie *t, const double *scores)
{
    for (Py_ssize_t node = 0; node < t->n_nodes; node++)
        t->nodes[node].score = t->nodes[node].piece < 0 ? 0.0f : (float)scores[t->nodes[node].piece];
}

/* ------------------------------------------------------------------------------------------------ */
/* Lattices                                                                                          */




void
scratch_free(Scratch *s)
{
    PyMem_RawFree(s->edges);
    PyMem_RawFree(s->alpha);
    PyMem_RawFree(s->beta);
    PyMem_RawFree(s->best);
    PyMem_RawFree(s->from);
    PyMem_RawFree(s->piece_at);
    memset(s, 0, sizeof(*s));
}

/* Room for a text of n positions; -1 when out of memory. */
int
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
    int32_t *from = PyMem_RawRealloc(s->from, size * sizeof(int32_t));
    if (from) s->from = from;
    int32_t *piece_at = PyMem_RawRealloc(s->piece_at, size * sizeof(int32_t));
    if (piece_at) s->piece_at = piece_at;
    if (!alpha || !beta || !best || !from || !piece_at) return -1;
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
Py_ssize_t
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
            int32_t piece = L->trie.nodes[node].piece;
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


/* The best path through the lattice of text[0, n) into s->best, s->from and s->piece_at: the best path
 * to position q ends with piece piece_at[q] (-1: an unknown character) over [from[q], q). The text is
 * read as a str's data of the given kind (code points: PyUnicode_4BYTE_KIND). The trie is walked from
 * each start position and each edge is scored as it is found, none stored: float arithmetic, and at
 * each end position the first best path in order of start position, as sentencepiece. With
 * skip_piece >= 0, that piece spanning the whole text is left out. Returns the best path's score
 * (relative to the last reset of a long text's scores, see SCORE_RESET). */
#define SCORE_RESET 100000.0f

static inline __attribute__((always_inline)) float
best_path_of_kind(const Lattice *L, Scratch *s, const int kind, const void *data, Py_ssize_t n, int32_t skip_piece,
                  double unk_score)
{
    float *best = s->best;
    int32_t *from = s->from, *piece_at = s->piece_at;
    const float unknown = (float)unk_score;
    for (Py_ssize_t q = 0; q <= n; q++) from[q] = -1;
    best[0] = 0.0f;
    Py_ssize_t frontier = 0; /* the furthest end position reached so far */
    for (Py_ssize_t start = 0; start < n; start++) {
        if (start > 0 && from[start] < 0) continue; /* unreachable */
        float base = best[start];
        if (base < -SCORE_RESET || base > SCORE_RESET) {
            /* as sentencepiece (0.2): scores of long texts are taken relative to here again, so that
             * float32 keeps its precision; every score reached from here on shifts alike */
            for (Py_ssize_t q = start; q <= frontier; q++)
                if (q == start || from[q] >= 0) best[q] -= base;
            base = 0.0f;
        }
        Py_ssize_t stop = start + L->pieces.longest < n ? start + L->pieces.longest : n;
        int32_t node = 0;
        int single = 0;
        for (Py_ssize_t end = start + 1; end <= stop; end++) {
            node = trie_child(&L->trie, node, PyUnicode_READ(kind, data, end - 1));
            if (node < 0) break;
            int32_t piece = L->trie.nodes[node].piece;
            if (piece < 0) continue;
            if (end == start + 1) single = 1;
            if (piece == skip_piece && start == 0 && end == n) continue;
            if (end > frontier) frontier = end;
            float score = base + L->trie.nodes[node].score;
            if (from[end] < 0 || score > best[end]) {
                best[end] = score;
                from[end] = (int32_t)start;
                piece_at[end] = piece;
            }
        }
        if (!single) { /* an unknown character: the one edge from here to the next position */
            if (start + 1 > frontier) frontier = start + 1;
            float score = base + unknown;
            if (from[start + 1] < 0 || score > best[start + 1]) {
                best[start + 1] = score;
                from[start + 1] = (int32_t)start;
                piece_at[start + 1] = -1;
            }
        }
    }
    return best[n];
}

float
best_path(const Lattice *L, Scratch *s, int kind, const void *data, Py_ssize_t n, int32_t skip_piece,
          double unk_score)
{
    /* one copy of the loop per storage kind, each reading its characters directly */
    if (kind == PyUnicode_1BYTE_KIND) return best_path_of_kind(L, s, PyUnicode_1BYTE_KIND, data, n, skip_piece, unk_score);
    if (kind == PyUnicode_2BYTE_KIND) return best_path_of_kind(L, s, PyUnicode_2BYTE_KIND, data, n, skip_piece, unk_score);
    return best_path_of_kind(L, s, PyUnicode_4BYTE_KIND, data, n, skip_piece, unk_score);
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
    best_path(job->L, s, PyUnicode_4BYTE_KIND, cps, n, -1, job->unk_score);
    for (Py_ssize_t q = n; q > 0; q = s->from[q])
        if (s->piece_at[q] >= 0) job->sums[s->piece_at[q]] += count;
}

static void
alternative_of(Job *job, Scratch *s, Py_ssize_t p)
{
    const Lattice *L = job->L;
    Py_ssize_t n = L->pieces.length[p];
    job->alt_length[p] = 0;
    job->alt_score[p] = NAN;
    if (n <= 1) return; /* nothing else spells one character */
    job->alt_score[p] = best_path(L, s, PyUnicode_4BYTE_KIND, L->pieces.cps + L->pieces.offset[p], n, (int32_t)p,
                                  job->unk_score);
    int32_t *ids = job->alt_ids + p * L->pieces.longest, length = 0;
    for (Py_ssize_t q = n; q > 0; q = s->from[q]) length++;
    job->alt_length[p] = length;
    for (Py_ssize_t q = n; q > 0; q = s->from[q]) ids[--length] = s->piece_at[q];
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
int
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
