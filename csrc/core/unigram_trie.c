/* csrc/core/unigram_trie.c: see unigram_trie.h. */
#include "unigram_trie.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

void
unigram_trie_free(UnigramTrie *t)
{
    free(t->cps);
    free(t->lo);
    free(t->hi);
    free(t->nodes);
    free(t->root);
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
    ptrdiff_t n_nodes, node_capacity;
} Builder;

static int32_t
builder_child(const Builder *b, int32_t node, uint32_t cp, size_t *slot)
{
    uint64_t key = (((uint64_t)node << 32) | cp) + 1;
    size_t i = (size_t)mix64(key) & b->mask;
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
        ptrdiff_t capacity = b->node_capacity * 2;
        int32_t *piece = realloc(b->piece, (size_t)capacity * sizeof(int32_t));
        if (!piece) return -1;
        b->piece = piece;
        b->node_capacity = capacity;
    }
    if ((size_t)(b->n_nodes + 1) * 2 <= b->mask + 1) return 0;
    size_t size = (b->mask + 1) * 2;
    BuildSlot *slots = calloc(size, sizeof(BuildSlot));
    if (!slots) return -1;
    for (size_t i = 0; i <= b->mask; i++) {
        if (b->slots[i].key == 0) continue;
        size_t j = (size_t)mix64(b->slots[i].key) & (size - 1);
        while (slots[j].key != 0) j = (j + 1) & (size - 1);
        slots[j] = b->slots[i];
    }
    free(b->slots);
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
trie_freeze(UnigramTrie *t, Builder *b)
{
    ptrdiff_t n_edges = b->n_nodes - 1, e = 0;
    BuildSlot *edges = malloc(sizeof(BuildSlot) * (size_t)(n_edges ? n_edges : 1));
    int32_t *renamed = malloc(sizeof(int32_t) * (size_t)b->n_nodes);
    t->cps = malloc(sizeof(uint32_t) * (size_t)(n_edges ? n_edges : 1));
    t->lo = calloc((size_t)b->n_nodes, sizeof(uint32_t));
    t->hi = calloc((size_t)b->n_nodes, sizeof(uint32_t));
    t->nodes = calloc((size_t)b->n_nodes, sizeof(UnigramNode));
    t->root = malloc(sizeof(int32_t) * UNIGRAM_ROOT_SPAN);
    if (!edges || !renamed || !t->cps || !t->lo || !t->hi || !t->nodes || !t->root) {
        free(edges);
        free(renamed);
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
    for (uint32_t cp = 0; cp < UNIGRAM_ROOT_SPAN; cp++) t->root[cp] = -1;
    for (uint32_t k = t->lo[0]; k < t->hi[0] && t->cps[k] < UNIGRAM_ROOT_SPAN; k++)
        t->root[t->cps[k]] = (int32_t)(k + 1);
    free(edges);
    free(renamed);
    return 0;
}

int
unigram_trie_build(UnigramTrie *t, ptrdiff_t n, const uint32_t *cps, const ptrdiff_t *offset, const ptrdiff_t *length)
{
    Builder b = {calloc(1024, sizeof(BuildSlot)), 1023, malloc(1024 * sizeof(int32_t)), 1, 1024};
    memset(t, 0, sizeof(*t));
    if (!b.slots || !b.piece) goto failed;
    b.piece[0] = -1;
    for (ptrdiff_t p = 0; p < n; p++) {
        int32_t node = 0;
        const uint32_t *s = cps + offset[p];
        for (ptrdiff_t k = 0; k < length[p]; k++) {
            size_t slot = 0;
            int32_t child = builder_child(&b, node, s[k], &slot);
            if (child < 0) {
                if (builder_reserve(&b) < 0) goto failed;
                builder_child(&b, node, s[k], &slot); /* its slot in the table as it is now */
                b.slots[slot].key = (((uint64_t)node << 32) | s[k]) + 1;
                child = b.slots[slot].child = (int32_t)b.n_nodes;
                b.piece[b.n_nodes++] = -1;
            }
            node = child;
        }
        if (length[p] > 0 && b.piece[node] < 0) b.piece[node] = (int32_t)p; /* the first of duplicates */
        if (length[p] > t->longest) t->longest = length[p];
    }
    if (trie_freeze(t, &b) < 0) goto failed;
    free(b.slots);
    free(b.piece);
    return 0;
failed:
    free(b.slots);
    free(b.piece);
    unigram_trie_free(t);
    return -1;
}

void
unigram_trie_set_scores(UnigramTrie *t, const double *scores)
{
    for (ptrdiff_t node = 0; node < t->n_nodes; node++)
        t->nodes[node].score = t->nodes[node].piece < 0 ? 0.0f : (float)scores[t->nodes[node].piece];
}
