/* csrc/python/unigram/unigram_lattice.c: Unigram lattices over the pieces' trie: Viterbi, forward-backward and the
 * pruning splits, in threads without the GIL. Used by kvec/models/unigram.py (encoding) and
 * kvec/trainers/unigram.py (EM) through the Lattice type of unigram_module.c.
 *
 * Positions are code points. A position that no one-character piece covers gets an unknown edge
 * (piece -1) scored `unk_score`, as in sentencepiece, so every text has a segmentation. The best
 * segmentation follows sentencepiece's float arithmetic and tie order: at each end position the first
 * best path in order of start position is kept.
 *
 * Counts are summed in fixed point (integers), so the results do not depend on how the words are
 * shared between threads: training is identical for every n_threads. Lattices configured with Hugging
 * Face's rule (UnigramTrainer(algorithm="huggingface")) find best paths in float64 and sum expected
 * counts to 2^-48 (still as integers), as precise as Hugging Face's float64 sums.
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

void
scratch_free(Scratch *s)
{
    unigram_path_free(&s->path);
    PyMem_RawFree(s->edges);
    PyMem_RawFree(s->alpha);
    PyMem_RawFree(s->beta);
    memset(s, 0, sizeof(*s));
}

/* Room for a text of n positions; -1 when out of memory. */
int
scratch_fit(Scratch *s, Py_ssize_t n)
{
    if (unigram_path_fit(&s->path, n) < 0) return -1;
    if (n + 1 <= s->positions) return 0;
    Py_ssize_t size = s->positions ? s->positions : 64;
    while (size < n + 1) size *= 2;
    double *alpha = PyMem_RawRealloc(s->alpha, size * sizeof(double));
    if (alpha) s->alpha = alpha;
    double *beta = PyMem_RawRealloc(s->beta, size * sizeof(double));
    if (beta) s->beta = beta;
    if (!alpha || !beta) return -1;
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
        UnigramWalk walk = UNIGRAM_WALK_START;
        Py_ssize_t stop = start + L->model.trie.longest < n ? start + L->model.trie.longest : n, first = count;
        int single = 0;
        for (Py_ssize_t end = start + 1; end <= stop; end++) {
            int32_t piece = unigram_trie_step(&L->model.trie, &walk, cps[end - 1]);
            if (piece == UNIGRAM_DEAD_END) break;
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


/* The best path of cps[0, n) (fitted) in s->path, by the configured rule (sentencepiece's float sums
 * unless configure() chose Hugging Face's). */
static double
best_path(const Lattice *L, Scratch *s, const uint32_t *cps, Py_ssize_t n, int32_t skip_piece, double unk_score)
{
    CodePoints text = {4, cps, n};
    double score = unigram_best_path(&L->model.trie, &s->path, &text, skip_piece, unk_score, L->model.rule);
    return L->model.rule == UNIGRAM_HUGGING_FACE ? score : (double)(float)score;
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

/* sum[0] += value, atomically where threads share the sums: integers, so the order the threads add
 * them in changes nothing */
static inline void
add(int64_t *sum, int64_t value, int shared)
{
    if (shared) __atomic_fetch_add(sum, value, __ATOMIC_RELAXED);
    else *sum += value;
}

/* ---- the work of one thread: words (or pieces) [first, last) ---- */


typedef struct {
    const Lattice *L;
    int task;
    Py_ssize_t first, last;
    double unk_score;
    int64_t *sums;       /* EXPECTED, BEST_PATHS: per piece */
    int64_t *low_sums;   /* EXPECTED by Hugging Face's rule: per piece, the next 24 bits (units of 2^-48) */
    int shared;          /* the threads add into the same sums */
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
    double z = alpha[n];
    /* backward, each edge's expected count on the way: beta[e->end] is final once the edges starting
     * after e->start have gone by, and alpha is final throughout */
    for (Py_ssize_t k = n_edges - 1; k >= 0; k--) {
        const Edge *e = &s->edges[k];
        double score = edge_score(L, e, job->unk_score);
        beta[e->start] = log_add(beta[e->start], beta[e->end] + score);
        if (e->piece < 0) continue;
        double expected = count * exp(alpha[e->start] + score + beta[e->end] - z);
        /* at most the count (rounding aside), where the scores are finite: others count nothing, or twice
         * the count at most (COUNTS_BOUND) */
        if (!(expected <= 2.0 * (double)count)) expected = isnan(expected) ? 0.0 : 2.0 * (double)count;
        if (job->low_sums) { /* to 2^-48: float64's precision for counts of a few units, still exact sums */
            double units = floor(expected * FIXED_ONE);
            add(&job->sums[e->piece], (int64_t)units, job->shared);
            add(&job->low_sums[e->piece], (int64_t)((expected * FIXED_ONE - units) * FIXED_ONE + 0.5), job->shared);
        } else {
            add(&job->sums[e->piece], fixed(expected), job->shared);
        }
    }
}

static void
best_path_counts_of(Job *job, Scratch *s, const uint32_t *cps, Py_ssize_t n, int64_t count)
{
    best_path(job->L, s, cps, n, -1, job->unk_score);
    for (Py_ssize_t q = n; q > 0; q = s->path.from[q]) /* unknown edges: the slot after the pieces */
        add(&job->sums[s->path.piece_at[q] >= 0 ? s->path.piece_at[q] : job->L->pieces.n], count, job->shared);
}

static void
alternative_of(Job *job, Scratch *s, Py_ssize_t p)
{
    const Lattice *L = job->L;
    Py_ssize_t n = L->pieces.length[p];
    job->alt_length[p] = 0;
    job->alt_score[p] = NAN;
    if (n <= 1) return; /* nothing else spells one character */
    job->alt_score[p] = best_path(L, s, L->pieces.cps + L->pieces.at[p], n, (int32_t)p, job->unk_score);
    int32_t *ids = job->alt_ids + p * L->pieces.longest, length = 0;
    for (Py_ssize_t q = n; q > 0; q = s->path.from[q]) length++;
    job->alt_length[p] = length;
    for (Py_ssize_t q = n; q > 0; q = s->path.from[q]) ids[--length] = s->path.piece_at[q];
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

/* Per-thread sums of at most this many slots (2 MB): below it, each thread but the first adds into a
 * zeroed copy of its own, added into the sums after the join, instead of adding atomically into the
 * shared ones; a training's first EM step, a million seeds, shares them. */
#define PRIVATE_SUMS_SLOTS ((Py_ssize_t)1 << 18)

/* Run `task` over all words (pieces for ALTERNATIVES) in n_threads threads; per-piece sums are added
 * into `sums` (integers: the same for any n_threads). Where the pieces are many the threads share `sums`,
 * with atomic adds, rather than keep a copy each: for a training's first EM step, 8 MB a thread; where
 * they are few (PRIVATE_SUMS_SLOTS) each thread has its own. EXPECTED by Hugging Face's rule also sums
 * the next 24 bits of each count into sums[n_pieces + 1 + p], for counts as precise as Hugging Face's
 * float64 sums. */
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
    int fine = task == EXPECTED && L->model.rule == UNIGRAM_HUGGING_FACE;
    Py_ssize_t slots = fine ? 2 * (n_pieces + 1) : n_pieces + 1;
    int64_t *own[64] = {NULL}; /* the private sums of threads 1.. (all or none) */
    int shared = n_threads > 1;
    if (sums && shared && slots <= PRIVATE_SUMS_SLOTS) {
        shared = 0;
        for (int t = 1; t < n_threads; t++) shared |= !(own[t] = PyMem_RawCalloc((size_t)slots, sizeof(int64_t)));
    }
    for (int t = 0; t < n_threads; t++) {
        int64_t *into = own[t] && !shared ? own[t] : sums;
        jobs[t] = (Job){.L = L,
                        .task = task,
                        .first = total * t / n_threads,
                        .last = total * (t + 1) / n_threads,
                        .unk_score = unk_score,
                        .sums = into,
                        .low_sums = into && fine ? into + n_pieces + 1 : NULL,
                        .shared = shared,
                        .alt_score = alt_score,
                        .alt_ids = alt_ids,
                        .alt_length = alt_length};
    }
    Py_BEGIN_ALLOW_THREADS
    for (int t = 1; t < n_threads; t++) started[t] = pthread_create(&threads[t], NULL, run_job, &jobs[t]) == 0;
    run_job(&jobs[0]);
    for (int t = 1; t < n_threads; t++) {
        if (started[t]) pthread_join(threads[t], NULL);
        else run_job(&jobs[t]); /* no thread to be had: do it here */
    }
    for (int t = 1; t < n_threads; t++) {
        if (own[t] && !shared)
            for (Py_ssize_t k = 0; k < slots; k++) sums[k] += own[t][k];
        PyMem_RawFree(own[t]);
    }
    Py_END_ALLOW_THREADS
    for (int t = 0; t < n_threads; t++) failed |= jobs[t].failed;
    if (failed) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}
