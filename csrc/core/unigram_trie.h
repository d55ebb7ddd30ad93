/* csrc/core/unigram_trie.h: the pieces of a Unigram model in a trie, walked from each position of a
 * text by the best path (unigram_path.h) and by the trainer's lattices (csrc/unigram_lattice.c).
 *
 * Edge e leads to node e + 1 (the root is node 0) over code point cps[e]; a node's edges are edges
 * [lo, hi), sorted by code point, and the root's children below UNIGRAM_ROOT_SPAN are also in an
 * array. Each node holds the piece its path spells (the first of duplicates; -1: none) and that
 * piece's score as a float, the arithmetic of sentencepiece's best path. */
#ifndef KVEC_CORE_UNIGRAM_TRIE_H
#define KVEC_CORE_UNIGRAM_TRIE_H

#include <stddef.h>
#include <stdint.h>

#define UNIGRAM_ROOT_SPAN 0x10000

typedef struct {
    int32_t piece; /* the piece the path to the node spells, or -1 */
    float score;   /* its score (unigram_trie_set_scores) */
} UnigramNode;

typedef struct {
    uint32_t *cps;
    uint32_t *lo, *hi;
    UnigramNode *nodes;
    ptrdiff_t n_nodes;
    int32_t *root;    /* the root's child over each code point below UNIGRAM_ROOT_SPAN (-1: none) */
    ptrdiff_t longest; /* the most code points of a piece */
} UnigramTrie;

/* The trie of n pieces, piece p being cps[offset[p] .. offset[p] + length[p]) (empty pieces are left
 * out); scores 0 until set. Returns -1 when out of memory (then nothing needs freeing). */
int unigram_trie_build(UnigramTrie *t, ptrdiff_t n, const uint32_t *cps, const ptrdiff_t *offset,
                       const ptrdiff_t *length);
void unigram_trie_set_scores(UnigramTrie *t, const double *scores);
void unigram_trie_free(UnigramTrie *t);

/* The child of `node` over cp, or -1. */
static inline int32_t
unigram_trie_child(const UnigramTrie *t, int32_t node, uint32_t cp)
{
    if (node == 0 && cp < UNIGRAM_ROOT_SPAN) return t->root[cp];
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

#endif
