/* csrc/core/char_map.c: see char_map.h. */
#include "char_map.h"

#include "code_points.h"

static int
in_ranges(const uint32_t *ranges, size_t n, uint32_t c)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ranges[2 * mid + 1] < c) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && ranges[2 * lo] <= c;
}

uint32_t
char_map_sigma(const CharMap *map, const CodePoints *text, ptrdiff_t i)
{
    ptrdiff_t j = i - 1, n = text->length;
    while (j >= 0 && in_ranges(map->ignorable, map->n_ignorable, code_point_at(text->kind, text->data, j))) j--;
    int final = j >= 0 && in_ranges(map->cased, map->n_cased, code_point_at(text->kind, text->data, j));
    if (final) {
        j = i + 1;
        while (j < n && in_ranges(map->ignorable, map->n_ignorable, code_point_at(text->kind, text->data, j))) j++;
        final = j == n || !in_ranges(map->cased, map->n_cased, code_point_at(text->kind, text->data, j));
    }
    return final ? 0x3C2 : 0x3C3;
}

ptrdiff_t
char_map_apply(const CharMap *map, const uint32_t *cps, ptrdiff_t n, ptrdiff_t limit, uint32_t **out,
               ptrdiff_t *capacity)
{
    ptrdiff_t length = 0, room = n < limit ? n : limit;
    if (code_points_reserve(out, capacity, room) < 0) return -1;
    const uint32_t *latin1 = map->entries + (size_t)map->page_of[0] * 256;
    for (ptrdiff_t i = 0; i < n; i++) {
        uint32_t c = cps[i];
        if (c < 0x100 && length < room) { /* most text: one page, no check of the room for one code point */
            uint32_t entry = latin1[c];
            if (entry == CHAR_SAME) {
                (*out)[length++] = c;
                continue;
            }
            if (map->pool[entry] <= 1) {
                if (map->pool[entry]) (*out)[length++] = map->pool[entry + 1];
                continue;
            }
        }
        if (c == 0x3A3 && map->final_sigma) {
            if (length + 1 > limit) return -2;
            if (code_points_reserve(out, capacity, length + 1) < 0) return -1;
            (*out)[length++] = char_map_sigma(map, &(CodePoints){4, cps, n}, i);
            continue;
        }
        uint32_t entry = c < 0x110000 ? map->entries[(size_t)map->page_of[c >> 8] * 256 + (c & 0xff)] : CHAR_SAME;
        if (entry == CHAR_SAME) {
            if (length + 1 > limit) return -2;
            if (code_points_reserve(out, capacity, length + 1) < 0) return -1;
            (*out)[length++] = c;
            continue;
        }
        uint32_t size = map->pool[entry];
        if (length + (ptrdiff_t)size > limit) return -2;
        if (code_points_reserve(out, capacity, length + (ptrdiff_t)size) < 0) return -1;
        for (uint32_t k = 0; k < size; k++) (*out)[length++] = map->pool[entry + 1 + k];
    }
    return length;
}

const char *
char_map_check(const CharMap *map)
{
    for (size_t p = 0; p < CHAR_PAGES; p++)
        if (map->page_of[p] >= map->n_pages) return "a page of the character map is out of range";
    /* Every value of the pool is a code point (a replacement's length, at most CHAR_LONGEST_REPLACEMENT,
     * is one too), so each entry is then checked in O(1), however many point at one replacement. */
    for (size_t k = 0; k < map->pool_length; k++)
        if (map->pool[k] > 0x10FFFF) return "a replacement holds a value past U+10FFFF";
    for (size_t e = 0; e < map->n_pages * 256; e++) {
        uint32_t entry = map->entries[e];
        if (entry == CHAR_SAME) continue;
        if (entry >= map->pool_length || map->pool[entry] > map->pool_length - entry - 1)
            return "a replacement of the character map is out of range";
        if (map->pool[entry] > CHAR_LONGEST_REPLACEMENT) return "a replacement is longer than 32 code points";
    }
    const uint32_t *tables[2] = {map->cased, map->ignorable};
    size_t sizes[2] = {map->n_cased, map->n_ignorable};
    for (int t = 0; t < 2; t++)
        for (size_t k = 0; k < sizes[t]; k++)
            if (tables[t][2 * k] > tables[t][2 * k + 1] || (k && tables[t][2 * k] <= tables[t][2 * k - 1]))
                return "the character ranges of the final sigma rule are not sorted";
    return NULL;
}
