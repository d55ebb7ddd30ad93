/* csrc/python/unigram/unigram.h: what the files of the kvec._unigram extension share: the seed search
 * (unigram_seeds.c) and the lattices (unigram_lattice.c) over the pieces' trie (csrc/core/unigram_trie.h),
 * used by the Python type Lattice (unigram_module.c). */
#ifndef KVEC_UNIGRAM_H
#define KVEC_UNIGRAM_H

#include <Python.h>
#include <stdint.h>

#include "texts.h"
#include "unigram_path.h"

#define FIXED_ONE 16777216.0 /* counts are summed as integers in units of 2^-24 */
/* the counts of a lattice's words, each times its word's length (+ 1), add up to less than this: an
 * edge's expected count is at most twice its word's count, so a piece's sum in units of 2^-24 stays
 * within int64 */
#define COUNTS_BOUND ((int64_t)1 << 37)

/* The vocabulary: piece p is cps[at[p], at[p] + length[p]). */
typedef struct {
    const uint32_t *cps; /* the lattice's piece_chars, or its words.cps */
    uint32_t *at;
    uint16_t *length;
    Py_ssize_t n, longest;
    int32_t *sorted; /* the non-empty pieces in the trie's order (unigram_trie_build_ordered), or NULL */
} Pieces;

/* the work run_jobs shares between threads */
enum { EXPECTED, BEST_PATHS, ALTERNATIVES };

typedef struct {
    uint32_t *cp; /* sorted code points that have a class */
    int32_t *cls;
    Py_ssize_t n;
} Classes;

typedef struct {
    int64_t score; /* frequency x length */
    int32_t at;    /* where the substring starts in words.cps */
    int32_t length;
} Seed;

/* The best `capacity` seeds so far, in a heap whose root is the worst of them. */
typedef struct {
    Seed *items;
    Py_ssize_t n, capacity;
} Seeds;

/* Which substrings seed (find_seeds); each place of one weighs 1, each distinct word counted once:
 *   SEEDS_INNER_NODES (Hugging Face's): the inner nodes, a word's end being one character, so a substring
 *       always followed by it is none;
 *   SEEDS_REPEATS (sentencepiece's): every substring of two places or more that they continue differently
 *       or that ends a word there (each word's end a character of its own), and every other word. */
enum { SEEDS_INNER_NODES, SEEDS_REPEATS };

int classes_init(Classes *c, PyObject *map);
int find_seeds(const Texts *words, Py_ssize_t max_length, const Classes *classes, int64_t prefix_char, int rule,
               int n_threads, Seeds *seeds);

/* One thread's working memory (raw allocations: threads run without the GIL): the best path's
 * (csrc/core/unigram_path.h), and the edges and forward-backward sums of a lattice. */
typedef UnigramEdge Edge;

typedef struct {
    UnigramPath path;
    Edge *edges;
    Py_ssize_t capacity, positions;
    double *alpha, *beta;
} Scratch;

typedef struct {
    PyObject_HEAD
    Texts words; /* separated (texts.h): words.cps is the seed search's text */
    int64_t *counts;
    Pieces pieces;         /* in piece_chars, or in words.cps for seeds (substrings of the words) */
    uint32_t *piece_chars; /* the pieces' own code points (set_pieces), or NULL */
    double *scores;
    UnigramModel model; /* the pieces' trie, and how encoding resolves unknown characters (configure) */
    Scratch scratch;    /* for calls on one text */
} Lattice;

/* Room for n pieces and their scores, and installing them in a lattice with their trie (unigram_module.c). */
int pieces_alloc(Pieces *pieces, double **scores, Py_ssize_t n);
int lattice_install(Lattice *L, Pieces pieces, uint32_t *chars, double *scores, int sorted);
PyObject *lattice_seed(Lattice *self, PyObject *args);
void scratch_free(Scratch *s);
int scratch_fit(Scratch *s, Py_ssize_t n);
Py_ssize_t build_edges(const Lattice *L, Scratch *s, const uint32_t *cps, Py_ssize_t n, int32_t skip_piece);
int run_jobs(Lattice *L, int task, int n_threads, int64_t *sums, double *alt_score, int32_t *alt_ids, int32_t *alt_length);

static inline double
edge_score(const Lattice *L, const Edge *e, double unk_score)
{
    return e->piece < 0 ? unk_score : L->scores[e->piece];
}

#endif
