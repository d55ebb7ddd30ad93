/* csrc/core/unigram_trie.c: see unigram_trie.h.
 *
 * Built from the pieces in sorted order, breadth first: a node stands for a run of sorted pieces that
 * share its path; its children split the run by the next code point, and each child's edge runs as far
 * as the first and last pieces of its run agree. Apart from the trie, building takes the sorted order
 * and the end of each node's run: 8 bytes per piece. */
#include "unigram_trie.h"

#include <stdlib.h>
#include <string.h>

void
unigram_trie_free(UnigramTrie *t)
{
    free(t->nodes);
    free(t->wide);
    free(t->first);
    free(t->head);
    free(t->root);
    free(t->ascii);
    memset(t, 0, sizeof(*t));
}

int
unigram_trie_index_ascii(UnigramTrie *t)
{
    size_t rows = 0;
    for (ptrdiff_t v = 1; v < t->n_nodes; v++) /* the root has its own array */
        rows += t->first[v + 1] - t->first[v] >= UNIGRAM_ASCII_FANOUT && rows < UNIGRAM_ASCII_ROWS;
    int32_t *ascii = malloc((rows ? rows : 1) * 128 * sizeof(*ascii));
    if (ascii == NULL) return -1;
    uint16_t next = 0;
    for (ptrdiff_t v = 1; v < t->n_nodes; v++) {
        t->nodes[v].row = 0;
        if (t->first[v + 1] - t->first[v] < UNIGRAM_ASCII_FANOUT || next == UNIGRAM_ASCII_ROWS) continue;
        int32_t *children = ascii + (size_t)next * 128;
        for (int cp = 0; cp < 128; cp++) children[cp] = -1;
        for (uint32_t c = t->first[v]; c < t->first[v + 1]; c++)
            if (t->head[c] < 128) children[t->head[c]] = (int32_t)c;
        t->nodes[v].row = ++next;
    }
    free(t->ascii);
    t->ascii = ascii;
    return 0;
}

typedef struct {
    const uint32_t *text;
    const uint32_t *at;
    const uint16_t *length;
} Keys;

/* Pieces a and b in code point order, then by number (so duplicates keep their order). */
static int
key_less(const Keys *k, int32_t a, int32_t b)
{
    const uint32_t *x = k->text + k->at[a], *y = k->text + k->at[b];
    uint32_t n = k->length[a] < k->length[b] ? k->length[a] : k->length[b];
    for (uint32_t i = 0; i < n; i++)
        if (x[i] != y[i]) return x[i] < y[i];
    if (k->length[a] != k->length[b]) return k->length[a] < k->length[b];
    return a < b;
}

static void
swap(int32_t *order, ptrdiff_t i, ptrdiff_t j)
{
    int32_t v = order[i];
    order[i] = order[j];
    order[j] = v;
}

/* Moves order[lo + i] down the max-heap order[lo, hi) (children of i at 2i + 1, 2i + 2). */
static void
sift_down(const Keys *k, int32_t *order, ptrdiff_t lo, ptrdiff_t i, ptrdiff_t hi)
{
    ptrdiff_t n = hi - lo;
    for (;;) {
        ptrdiff_t child = 2 * i + 1;
        if (child >= n) return;
        if (child + 1 < n && key_less(k, order[lo + child], order[lo + child + 1])) child++;
        if (!key_less(k, order[lo + i], order[lo + child])) return;
        swap(order, lo + i, lo + child);
        i = child;
    }
}

/* Heapsort of order[lo, hi): O(n log n) whatever the order the pieces come in. */
static void
heap_sort(const Keys *k, int32_t *order, ptrdiff_t lo, ptrdiff_t hi)
{
    for (ptrdiff_t i = (hi - lo) / 2; i-- > 0;) sift_down(k, order, lo, i, hi);
    for (ptrdiff_t end = hi - 1; end > lo; end--) {
        swap(order, lo, end);
        sift_down(k, order, lo, 0, end);
    }
}

/* Sorts order[lo, hi) by key_less: quicksort on the median of three, insertion sort on short runs,
 * recursing on the shorter side only (the order is total, so the result is the one sorted order).
 * A crafted piece order can make the medians poor at every step: past `depth` levels (2 log2 n) the
 * range is heapsorted, so a description's vocabulary sorts in O(n log n) key comparisons at worst. */
static void
sort_keys(const Keys *k, int32_t *order, ptrdiff_t lo, ptrdiff_t hi, int depth)
{
    while (hi - lo > 16) {
        if (depth-- == 0) {
            heap_sort(k, order, lo, hi);
            return;
        }
        ptrdiff_t mid = lo + (hi - lo) / 2;
        if (key_less(k, order[mid], order[lo])) swap(order, mid, lo);
        if (key_less(k, order[hi - 1], order[lo])) swap(order, hi - 1, lo);
        if (key_less(k, order[hi - 1], order[mid])) swap(order, hi - 1, mid);
        int32_t pivot = order[mid];
        ptrdiff_t i = lo, j = hi - 1;
        for (;;) {
            while (key_less(k, order[i], pivot)) i++;
            while (key_less(k, pivot, order[j])) j--;
            if (i >= j) break;
            swap(order, i++, j--);
        }
        /* [lo, j] holds no key above the pivot, [j + 1, hi) none below */
        if (j + 1 - lo < hi - (j + 1)) {
            sort_keys(k, order, lo, j + 1, depth);
            lo = j + 1;
        } else {
            sort_keys(k, order, j + 1, hi, depth);
            hi = j + 1;
        }
    }
    for (ptrdiff_t i = lo + 1; i < hi; i++) {
        int32_t v = order[i];
        ptrdiff_t j = i;
        for (; j > lo && key_less(k, v, order[j - 1]); j--) order[j] = order[j - 1];
        order[j] = v;
    }
}

static void *
shrunk(void *block, size_t size)
{
    void *smaller = realloc(block, size ? size : 1);
    return smaller ? smaller : block;
}

int
unigram_trie_build(UnigramTrie *t, ptrdiff_t n, const uint32_t *text, const uint32_t *at, const uint16_t *length)
{
    return unigram_trie_build_ordered(t, n, text, at, length, NULL, 0);
}

int
unigram_trie_build_ordered(UnigramTrie *t, ptrdiff_t n, const uint32_t *text, const uint32_t *at,
                           const uint16_t *length, int32_t *given, int sorted)
{
    memset(t, 0, sizeof(*t));
    t->text = text;
    ptrdiff_t m = 0; /* the non-empty pieces */
    for (ptrdiff_t p = 0; p < n; p++) {
        if ((uint64_t)at[p] + length[p] > UINT32_MAX) return -2;
        if (length[p] > 0) m++;
        if (length[p] > t->longest) t->longest = length[p];
    }
    if (n > INT32_MAX - 1) return -2;
    /* nodes: one per distinct piece and at most one per place two pieces part, and the root */
    size_t capacity = 2 * (size_t)m + 1;
    int32_t *order = given ? given : malloc(sizeof(int32_t) * (size_t)(m ? m : 1));
    uint32_t *run_end = malloc(sizeof(uint32_t) * capacity);
    t->nodes = malloc(sizeof(UnigramNode) * capacity);
    t->wide = malloc(sizeof(double) * capacity);
    t->first = malloc(sizeof(uint32_t) * (capacity + 1));
    t->head = malloc(sizeof(uint32_t) * capacity);
    t->root = malloc(sizeof(int32_t) * UNIGRAM_ROOT_SPAN);
    if (!order || !run_end || !t->nodes || !t->wide || !t->first || !t->head || !t->root) {
        if (order != given) free(order);
        free(run_end);
        unigram_trie_free(t);
        return -1;
    }
    if (!sorted) {
        m = 0;
        for (ptrdiff_t p = 0; p < n; p++)
            if (length[p] > 0) order[m++] = (int32_t)p;
        Keys keys = {text, at, length};
        int depth = 0;
        for (ptrdiff_t left = m; left > 1; left >>= 1) depth += 2;
        sort_keys(&keys, order, 0, m, depth);
    }
    /* while node v waits its turn, first[v] holds where its run starts in `order` */
    t->nodes[0] = (UnigramNode){0, 0, 0, -1, 0.0f};
    t->head[0] = 0;
    t->first[0] = 0;
    run_end[0] = (uint32_t)m;
    uint32_t n_nodes = 1;
    for (uint32_t v = 0; v < n_nodes; v++) {
        uint32_t i = t->first[v], end = run_end[v], depth = t->nodes[v].depth;
        t->first[v] = n_nodes;
        while (i < end && length[order[i]] == depth) i++; /* the pieces v spells, first in the run */
        while (i < end) {
            const uint32_t *a = text + at[order[i]];
            uint32_t cp = a[depth], j = i + 1;
            while (j < end && text[at[order[j]] + depth] == cp) j++;
            /* the child's edge runs as far as the first and last pieces of its run agree */
            const uint32_t *b = text + at[order[j - 1]];
            uint32_t child_depth = depth + 1;
            while (child_depth < length[order[i]] && a[child_depth] == b[child_depth]) child_depth++;
            int32_t piece = length[order[i]] == child_depth ? order[i] : -1;
            t->nodes[n_nodes] = (UnigramNode){at[order[i]], (uint16_t)child_depth, 0, piece, 0.0f};
            t->head[n_nodes] = cp;
            t->first[n_nodes] = i;
            run_end[n_nodes] = j;
            n_nodes++;
            i = j;
        }
    }
    t->first[n_nodes] = n_nodes;
    if (order != given) free(order);
    free(run_end);
    t->n_nodes = n_nodes;
    t->nodes = shrunk(t->nodes, sizeof(UnigramNode) * n_nodes);
    t->wide = shrunk(t->wide, sizeof(double) * n_nodes);
    t->first = shrunk(t->first, sizeof(uint32_t) * (n_nodes + 1));
    t->head = shrunk(t->head, sizeof(uint32_t) * n_nodes);
    for (uint32_t cp = 0; cp < UNIGRAM_ROOT_SPAN; cp++) t->root[cp] = -1;
    for (uint32_t v = t->first[0]; v < t->first[1] && t->head[v] < UNIGRAM_ROOT_SPAN; v++)
        t->root[t->head[v]] = (int32_t)v;
    return 0;
}

int
unigram_trie_set_scores(UnigramTrie *t, const double *scores)
{
    if (!t->wide && t->n_nodes > 0) {
        t->wide = malloc(sizeof(double) * (size_t)t->n_nodes);
        if (!t->wide) return -1;
    }
    for (ptrdiff_t node = 0; node < t->n_nodes; node++) {
        t->wide[node] = t->nodes[node].piece < 0 ? 0.0 : scores[t->nodes[node].piece];
        t->nodes[node].score = (float)t->wide[node];
    }
    return 0;
}

void
unigram_trie_set_float_scores(UnigramTrie *t, const double *scores)
{
    free(t->wide);
    t->wide = NULL;
    for (ptrdiff_t node = 0; node < t->n_nodes; node++) {
        double score = t->nodes[node].piece < 0 ? 0.0 : scores[t->nodes[node].piece];
        t->nodes[node].score = (float)score;
    }
}
