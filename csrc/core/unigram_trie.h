/* csrc/core/unigram_trie.h: the pieces of a Unigram model in a compact trie, walked from each position
 * of a text by the best path (unigram_path.h) and by the trainer's lattices (csrc/python/unigram/unigram_lattice.c).
 *
 * The trie is path-compressed: a chain of characters with no branch and no piece in it is one edge, so
 * the nodes are the pieces and the places where pieces part (about one node per piece, where a trie of
 * characters has one per character: a Unigram trainer's million seed pieces take 4 nodes each).
 * Nodes are numbered breadth first, the root 0: the children of node v are the nodes
 * [first[v], first[v + 1]), sorted by the first code point of their edge, `head`. A node keeps no
 * characters of its own: the path from the root to it is spelled by text[at, at + depth) of the code
 * points the pieces were given in, which the trie borrows (they must outlive it, unchanged). The
 * root's children below UNIGRAM_ROOT_SPAN are also in an array. Each node holds the piece its path
 * spells (the first of duplicates; -1: none) and that piece's score as a float, the arithmetic of
 * sentencepiece's best path; `wide` holds the same scores as doubles, Hugging Face's arithmetic, and
 * is NULL where only sentencepiece's rule runs (unigram_trie_set_float_scores): 8 bytes a node that a
 * trainer's million seed pieces need not hold. */
#ifndef KVEC_CORE_UNIGRAM_TRIE_H
#define KVEC_CORE_UNIGRAM_TRIE_H

#include <stddef.h>
#include <stdint.h>

#define UNIGRAM_ROOT_SPAN 0x10000
#define UNIGRAM_LONGEST_PIECE 0xFFFF /* code points: a piece's length is a uint16_t */
#define UNIGRAM_ASCII_FANOUT 8       /* children from which a node gets an ASCII row */
#define UNIGRAM_ASCII_ROWS 0xFFFF    /* rows at most (a node's row is a uint16_t) */

typedef struct {
    uint32_t at;    /* the node's path is text[at, at + depth) */
    uint16_t depth; /* code points from the root */
    uint16_t row;   /* 1 + the node's row of `ascii` (unigram_trie_index_ascii), or 0: none */
    int32_t piece;  /* the piece the path spells, or -1 */
    float score;    /* its score (unigram_trie_set_scores) */
} UnigramNode;

typedef struct {
    const uint32_t *text; /* borrowed: the pieces' code points */
    UnigramNode *nodes;
    double *wide;         /* each node's score as a double (unigram_trie_set_scores), or NULL */
    uint32_t *first;      /* n_nodes + 1 */
    uint32_t *head;       /* the first code point of each node's edge (the root's: 0) */
    int32_t *root;        /* the root's child over each code point below UNIGRAM_ROOT_SPAN (-1: none) */
    int32_t *ascii;       /* rows of 128: a wide node's child over each ASCII code point (-1: none) */
    ptrdiff_t n_nodes;
    ptrdiff_t longest; /* the most code points of a piece */
} UnigramTrie;

/* Where a walk from the root stands: in `node`'s edge, `depth` code points from the root. */
typedef struct {
    int32_t node;
    uint32_t depth;
} UnigramWalk;

#define UNIGRAM_WALK_START ((UnigramWalk){0, 0})
#define UNIGRAM_NO_PIECE (-1) /* unigram_trie_step: the walk goes on, but no piece ends here */
#define UNIGRAM_DEAD_END (-2) /* unigram_trie_step: no piece starts with the text walked */

/* The trie of n pieces, piece p being text[at[p] .. at[p] + length[p]) (empty pieces are left out);
 * scores 0 until set. The trie borrows `text`. Returns -1 when out of memory, -2 when a piece ends past
 * 2^32 - 1 code points into text or n is past 2^31 - 2 (then nothing needs freeing). Deterministic: the
 * layout depends on the pieces alone. */
int unigram_trie_build(UnigramTrie *t, ptrdiff_t n, const uint32_t *text, const uint32_t *at, const uint16_t *length);
/* As unigram_trie_build, with room for n piece numbers in `given` (or NULL), which the build leaves
 * holding the non-empty pieces in code point order (ties by number); `sorted`: it holds that order
 * already (a subset of pieces keeps the order of the whole, renumbered), so nothing is sorted. */
int unigram_trie_build_ordered(UnigramTrie *t, ptrdiff_t n, const uint32_t *text, const uint32_t *at,
                               const uint16_t *length, int32_t *given, int sorted);
/* Each node's score, as a float and as a double, from scores[piece]. Returns -1 when out of memory
 * for the doubles, which only happens after unigram_trie_set_float_scores dropped them (a trie fresh
 * from unigram_trie_build has their room). */
int unigram_trie_set_scores(UnigramTrie *t, const double *scores);
/* Each node's score as a float only, for sentencepiece's rule: the doubles are freed (wide is NULL). */
void unigram_trie_set_float_scores(UnigramTrie *t, const double *scores);
/* For an encoder's trie: each node of UNIGRAM_ASCII_FANOUT children or more (up to UNIGRAM_ASCII_ROWS of
 * them, in node order) gets a row of its children
 * over the ASCII code points, read by unigram_trie_child instead of its binary search (a trainer's tries
 * go without: 4 bytes a node). Returns -1 when out of memory (the trie then stays as it was). */
int unigram_trie_index_ascii(UnigramTrie *t);
void unigram_trie_free(UnigramTrie *t);

/* The child of `node` whose edge starts with cp, or -1. */
static inline int32_t
unigram_trie_child(const UnigramTrie *t, int32_t node, uint32_t cp)
{
    if (node == 0 && cp < UNIGRAM_ROOT_SPAN) return t->root[cp];
    uint16_t row = t->nodes[node].row;
    if (cp < 128 && row) return t->ascii[(size_t)(row - 1) * 128 + cp];
    uint32_t lo = t->first[node], n = t->first[node + 1] - lo;
    if (n == 0) return -1;
    for (uint32_t half; n > 1; n -= half) { /* narrowed to the last child not past cp (or the first) */
        half = n / 2;
        lo = t->head[lo + half] <= cp ? lo + half : lo; /* no branch to mispredict */
    }
    return t->head[lo] == cp ? (int32_t)lo : -1;
}

/* One code point further: the piece the walk now spells, UNIGRAM_NO_PIECE, or UNIGRAM_DEAD_END (then
 * the walk is over). Where a piece is returned, its score is t->nodes[w->node].score. */
static inline int32_t
unigram_trie_step(const UnigramTrie *t, UnigramWalk *w, uint32_t cp)
{
    const UnigramNode *node = &t->nodes[w->node];
    if (w->depth < node->depth) { /* inside the edge: its next code point */
        if (t->text[node->at + w->depth] != cp) return UNIGRAM_DEAD_END;
    } else {
        int32_t child = unigram_trie_child(t, w->node, cp);
        if (child < 0) return UNIGRAM_DEAD_END;
        w->node = child;
        node = &t->nodes[child];
    }
    w->depth++;
    return w->depth == node->depth ? node->piece : UNIGRAM_NO_PIECE;
}

#endif
