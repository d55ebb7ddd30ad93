/* csrc/core/jieba_dict.c: see jieba_dict.h. */
#include "jieba_dict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

static int
grow_nodes(JiebaDict *d, size_t needed)
{
    if (needed <= d->node_capacity) return 0;
    if (needed > UINT32_MAX - 1) return -1;
    size_t capacity = d->node_capacity ? d->node_capacity : 1024;
    while (capacity < needed) capacity *= 2;
    if (capacity > UINT32_MAX - 1) capacity = UINT32_MAX - 1;
    int64_t *counts = realloc(d->counts, sizeof(int64_t) * capacity);
    if (counts) d->counts = counts;
    double *log_counts = counts ? realloc(d->log_counts, sizeof(double) * capacity) : NULL;
    if (log_counts) d->log_counts = log_counts;
    uint8_t *split = log_counts ? realloc(d->split, capacity) : NULL;
    if (!split) return -1;
    d->split = split;
    d->node_capacity = (uint32_t)capacity;
    return 0;
}

static uint32_t
new_node(JiebaDict *d, int overlay)
{
    if (grow_nodes(d, (size_t)d->n_nodes + 1) < 0) return JIEBA_NONE;
    uint32_t node = d->n_nodes++;
    d->counts[node] = overlay ? JIEBA_NO_COUNT : 0;
    d->log_counts[node] = 0.0;
    d->split[node] = 0;
    return node;
}

static int
grow_edges(JiebaDict *d)
{
    size_t size = d->edges ? (d->mask + 1) * 2 : 1024;
    JiebaEdge *edges = calloc(size, sizeof(JiebaEdge));
    if (!edges) return -1;
    for (size_t i = 0; d->edges && i <= d->mask; i++) {
        if (!d->edges[i].key) continue;
        size_t j = mix64(d->edges[i].key) & (size - 1);
        while (edges[j].key) j = (j + 1) & (size - 1);
        edges[j] = d->edges[i];
    }
    free(d->edges);
    d->edges = edges;
    d->mask = size - 1;
    return 0;
}

int
jieba_dict_init(JiebaDict *d, size_t expected)
{
    memset(d, 0, sizeof(*d));
    d->root = malloc(sizeof(uint32_t) * JIEBA_ROOT_TABLE);
    if (!d->root || grow_nodes(d, expected ? expected : 1) < 0) {
        jieba_dict_free(d);
        return -1;
    }
    memset(d->root, 0xff, sizeof(uint32_t) * JIEBA_ROOT_TABLE); /* every entry JIEBA_NONE */
    new_node(d, 0);                                             /* the root */
    return 0;
}

void
jieba_dict_free(JiebaDict *d)
{
    free(d->counts);
    free(d->log_counts);
    free(d->split);
    free(d->root);
    free(d->edges);
    memset(d, 0, sizeof(*d));
}

/* The child of `node` by c, made (with the count of a new node) when missing. */
static uint32_t
child_or_new(JiebaDict *d, uint32_t node, uint32_t c, int overlay)
{
    uint32_t child = jieba_dict_child(d, node, c);
    if (child != JIEBA_NONE) return child;
    child = new_node(d, overlay);
    if (child == JIEBA_NONE) return JIEBA_NONE;
    if (node == 0 && c < JIEBA_ROOT_TABLE) {
        d->root[c] = child;
        return child;
    }
    if ((!d->edges || (d->n_edges + 1) * 4 > (d->mask + 1) * 3) && grow_edges(d) < 0) return JIEBA_NONE;
    uint64_t key = (((uint64_t)node << 21) | c) + 1;
    size_t i = mix64(key) & d->mask;
    while (d->edges[i].key) i = (i + 1) & d->mask;
    d->edges[i] = (JiebaEdge){key, child};
    d->n_edges++;
    return child;
}

uint32_t
jieba_dict_insert(JiebaDict *d, const uint32_t *cps, ptrdiff_t n, int overlay)
{
    uint32_t node = 0;
    for (ptrdiff_t i = 0; i < n && node != JIEBA_NONE; i++) {
        if (cps[i] > 0x10FFFF) return JIEBA_NONE;
        node = child_or_new(d, node, cps[i], overlay);
    }
    return n > 0 ? node : JIEBA_NONE;
}

uint32_t
jieba_dict_find(const JiebaDict *d, const uint32_t *cps, ptrdiff_t n)
{
    uint32_t node = 0;
    for (ptrdiff_t i = 0; i < n && node != JIEBA_NONE; i++) node = jieba_dict_child(d, node, cps[i]);
    return n > 0 ? node : JIEBA_NONE;
}

int
jieba_dict_add(JiebaDict *d, const uint32_t *cps, ptrdiff_t n, int64_t count, int overlay)
{
    uint32_t node = jieba_dict_insert(d, cps, n, overlay);
    if (node == JIEBA_NONE || count < 0) return -1;
    d->counts[node] = count;
    d->log_counts[node] = count > 0 ? log((double)count) : 0.0;
    if (count == 0 && overlay && !d->split[node]) { /* jieba's add_word, not its dictionary file */
        d->split[node] = 1;
        d->n_split++;
    }
    d->total += count;
    return 0;
}

/* One line of a dictionary file: 0 and the word and count when it is an entry, else 1. */
static int
parse_entry(const unsigned char *line, size_t n, uint32_t *word, ptrdiff_t *length, int64_t *count)
{
    while (n && (line[n - 1] == ' ' || (line[n - 1] >= 0x09 && line[n - 1] <= 0x0d))) n--;
    while (n && (line[0] == ' ' || (line[0] >= 0x09 && line[0] <= 0x0d))) line++, n--;
    size_t space = 0;
    while (space < n && line[space] != ' ') space++;
    if (space == 0 || space == n) return 1;
    size_t i = space + 1, digits = 0;
    *count = 0;
    for (; i < n && line[i] != ' '; i++, digits++) {
        if (line[i] < '0' || line[i] > '9' || *count > (INT64_MAX - 9) / 10) return 1;
        *count = *count * 10 + (line[i] - '0');
    }
    if (!digits) return 1;
    *length = 0;
    for (size_t k = 0; k < space;) {
        int size;
        word[(*length)++] = utf8_next(line, space, k, &size);
        k += (size_t)size;
    }
    return 0;
}

ptrdiff_t
jieba_dict_read(JiebaDict *d, const unsigned char *text, size_t n)
{
    size_t lines = 1, longest = 0;
    for (size_t i = 0, start = 0; i <= n; i++) {
        if (i < n && text[i] != '\n') continue;
        lines++;
        if (i - start > longest) longest = i - start;
        start = i + 1;
    }
    if (jieba_dict_init(d, lines * 2) < 0) return -1;
    uint32_t *word = malloc(sizeof(uint32_t) * (longest + 1));
    if (!word) {
        jieba_dict_free(d);
        return -1;
    }
    ptrdiff_t line_number = 0, status = 0;
    for (size_t start = 0; start < n && !status;) {
        size_t end = start;
        while (end < n && text[end] != '\n') end++;
        line_number++;
        ptrdiff_t length;
        int64_t count;
        if (parse_entry(text + start, end - start, word, &length, &count) || count > INT64_MAX - d->total)
            status = line_number;
        else if (jieba_dict_add(d, word, length, count, 0) < 0)
            status = -1;
        start = end + 1;
    }
    free(word);
    if (status) jieba_dict_free(d);
    return status;
}
