/* csrc/unigram.h: what the files of the kvec._unigram extension share: the seed search
 * (unigram_seeds.c), the pieces' trie and the lattices (unigram_lattice.c), used by the Python type
 * Lattice (unigram_module.c). */
#ifndef KVEC_UNIGRAM_H
#define KVEC_UNIGRAM_H

#include <Python.h>
#include <stdint.h>

#include "texts.h"

#define FIXED_ONE 16777216.0 /* counts are summed as integers in units of 2^-24 */

/* the work run_jobs shares between threads */
enum { EXPECTED, BEST_PATHS, ALTERNATIVES };

typedef struct {
    uint32_t *cp; /* sorted code points that have a class */
    int32_t *cls;
    Py_ssize_t n;
} Classes;

typedef struct {
    int64_t score; /* frequency x length */
    int32_t at;    /* where the substring starts in the seed text */
    int32_t length;
} Seed;

/* The best `capacity` seeds so far, in a heap whose root is the worst of them. */
typedef struct {
    Seed *items;
    Py_ssize_t n, capacity;
} Seeds;

int classes_init(Classes *c, PyObject *map);
int find_seeds(const Texts *words, const int64_t *counts, Py_ssize_t max_length, const Classes *classes,
           int64_t prefix_char, uint32_t **text_out, Seeds *seeds);

#define TRIE_ROOT_SPAN 0x10000 /* the root's children below this code point are also in an array */

/* The pieces' trie. Edge e leads to node e + 1 (the root is node 0) over code point cps[e]; a node's
 * edges are edges [lo, hi), sorted by code point. */
typedef struct {
    int32_t piece; /* the piece the path to the node spells, or -1 */
    float score;   /* its score as the best path adds it (set by trie_set_scores) */
} TrieNode;

typedef struct {
    uint32_t *cps;
    uint32_t *lo, *hi;
    TrieNode *nodes;
    Py_ssize_t n_nodes;
    int32_t *root; /* the root's child over each code point below TRIE_ROOT_SPAN (-1: none) */
} Trie;

int trie_build(Trie *t, const Texts *pieces);
void trie_set_scores(Trie *t, const double *scores);

static inline int32_t
trie_child(const Trie *t, int32_t node, uint32_t cp)
{
    if (node == 0 && cp < TRIE_ROOT_SPAN) return t->root[cp];
    uint32_t lo = t->lo[node], hi = t->hi[node], end = hi;
    while (hi - lo > 8) { /* narrowed to the first edge not below cp, give or take 8 */
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->cps[mid] < cp) lo = mid + 1;
        else hi = mid;
    }
    for (; lo < end && t->cps[lo] <= cp; lo++)
        if (t->cps[lo] == cp) return (int32_t)lo + 1;
    return -1;
}

void trie_free(Trie *t);

typedef struct {
    int32_t start, end, piece; /* piece -1: an unknown character */
} Edge;

/* One thread's working memory (raw allocations: threads run without the GIL). */
typedef struct {
    Edge *edges;
    Py_ssize_t capacity, positions;
    double *alpha, *beta;
    float *best;
    int32_t *from, *piece_at; /* the best path: its last edge into each position */
} Scratch;

typedef struct {
    PyObject_HEAD
    Texts words;
    int64_t *counts;
    Texts pieces;
    double *scores;
    Trie trie;
    Scratch scratch; /* for calls on one text */
    /* how an encoding model resolves unknown characters (configure): */
    double unk_score;
    int32_t unk_id;        /* -1: none */
    int has_bytes;         /* byte fallback */
    int32_t byte_ids[256]; /* -1: no piece for that byte */
    int frozen;            /* word_model() was called: set_pieces and configure refuse */
} Lattice;

void scratch_free(Scratch *s);
int scratch_fit(Scratch *s, Py_ssize_t n);
Py_ssize_t build_edges(const Lattice *L, Scratch *s, const uint32_t *cps, Py_ssize_t n, int32_t skip_piece);
float best_path(const Lattice *L, Scratch *s, int kind, const void *data, Py_ssize_t n, int32_t skip_piece,
                double unk_score);
/* The byte pieces of the UTF-8 of text[start, end) (kind/data as a str's) into ids, and how many: 0 when
 * some byte has no piece (unigram_encoder.c). */
Py_ssize_t byte_pieces(const Lattice *L, int kind, const void *data, Py_ssize_t start, Py_ssize_t end, int32_t *ids);
PyObject *lattice_encode_texts(Lattice *self, PyObject *args, PyObject *kwds);
PyObject *lattice_word_model(Lattice *self, PyObject *ignored);
int run_jobs(Lattice *L, int task, int n_threads, int64_t *sums, double *alt_score, int32_t *alt_ids, int32_t *alt_length);

static inline double
edge_score(const Lattice *L, const Edge *e, double unk_score)
{
    return e->piece < 0 ? unk_score : L->scores[e->piece];
}

#endif
