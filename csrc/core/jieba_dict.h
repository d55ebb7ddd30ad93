/* csrc/core/jieba_dict.h: jieba's prefix dictionary as a trie over code points.
 *
 * jieba keeps every word of its dictionary with its count, and every prefix of a word that is not a
 * word itself with count 0; a fragment of text "is in the dictionary" when it is either. Here each of
 * them is a node: node 0 is the empty prefix, and a node's children are found by (node, code point) in
 * one open-addressing table (those of the root below U+10000 in a direct table).
 *
 * A Jieba object's user words are a second JiebaDict over the shared one (see jieba_cut.h): its nodes
 * hold JIEBA_NO_COUNT unless the word was added there, so the shared dictionary answers for them. */
#ifndef KVEC_CORE_JIEBA_DICT_H
#define KVEC_CORE_JIEBA_DICT_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

#define JIEBA_NONE UINT32_MAX /* no such node */
#define JIEBA_NO_COUNT (-1)   /* a node that holds no count of its own */
#define JIEBA_ROOT_TABLE 0x10000

typedef struct {
    uint64_t key; /* parent << 21 | code point, plus one: 0 marks a free slot */
    uint32_t child;
} JiebaEdge;

typedef struct {
    int64_t *counts;     /* per node: the word's count, 0 for a prefix only, or JIEBA_NO_COUNT */
    double *log_counts;  /* per node: log(count), as jieba computes it (0 where the count is 0 or none) */
    uint8_t *split;      /* per node: 1 for a word added with count 0 (jieba then splits it if its HMM finds it) */
    uint32_t n_nodes, node_capacity;
    uint32_t *root;      /* the root's child for each code point below JIEBA_ROOT_TABLE, or JIEBA_NONE */
    JiebaEdge *edges;
    size_t mask, n_edges;
    int64_t total;       /* the sum of the counts added, as jieba's `total` */
    uint32_t n_split;    /* how many nodes are marked split: none, and no word needs looking up */
} JiebaDict;

/* An empty dictionary, with room for `expected` nodes; -1 when out of memory. */
int jieba_dict_init(JiebaDict *d, size_t expected);
void jieba_dict_free(JiebaDict *d);

/* The child of `node` by code point c, or JIEBA_NONE. */
static inline uint32_t jieba_dict_child(const JiebaDict *d, uint32_t node, uint32_t c);

/* The node of cps[0 .. n), added with its prefixes (JIEBA_NO_COUNT where new when `overlay`, else 0);
 * JIEBA_NONE when out of memory or n is 0. */
uint32_t jieba_dict_insert(JiebaDict *d, const uint32_t *cps, ptrdiff_t n, int overlay);

/* The node of cps[0 .. n), or JIEBA_NONE when the text is not in the dictionary. */
uint32_t jieba_dict_find(const JiebaDict *d, const uint32_t *cps, ptrdiff_t n);

/* The word cps[0 .. n) added with `count` as jieba adds a word: its count set (an earlier one
 * replaced), the total grown by it, its prefixes added; in an overlay (jieba's add_word) a count of 0
 * also marks the word to be split. -1 when out of memory, n is 0 or the count negative. */
int jieba_dict_add(JiebaDict *d, const uint32_t *cps, ptrdiff_t n, int64_t count, int overlay);

/* A new dictionary of the entries of a jieba dictionary file, text[0 .. n), added in order as jieba
 * reads them: each line stripped, the word up to its first space, then the count (ASCII digits), then
 * an optional tag. Returns 0; -1 when out of memory; else the number (from 1) of the first line that is
 * not an entry, or whose count would take the total past 2^63 - 1. On error nothing needs freeing. */
ptrdiff_t jieba_dict_read(JiebaDict *d, const unsigned char *text, size_t n);

/* ---- inline ---- */

static inline uint32_t
jieba_dict_child(const JiebaDict *d, uint32_t node, uint32_t c)
{
    if (node == 0 && c < JIEBA_ROOT_TABLE) return d->root[c];
    if (!d->edges || c > 0x10FFFF) return JIEBA_NONE;
    uint64_t key = (((uint64_t)node << 21) | c) + 1;
    for (size_t i = mix64(key) & d->mask;; i = (i + 1) & d->mask) {
        if (d->edges[i].key == key) return d->edges[i].child;
        if (!d->edges[i].key) return JIEBA_NONE;
    }
}

#endif
