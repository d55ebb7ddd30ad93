/* csrc/core/canonical_compose.c: see canonical_compose.h. */
#include "canonical_compose.h"

/* The composite of (first, second), or 0 when they have none. */
static uint32_t
composite_of(const Compositions *pairs, uint32_t first, uint32_t second)
{
    uint64_t key = (uint64_t)first << 32 | second;
    size_t lo = 0, hi = pairs->n_pairs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const uint32_t *t = pairs->triples + 3 * mid;
        if (((uint64_t)t[0] << 32 | t[1]) < key) lo = mid + 1;
        else hi = mid;
    }
    const uint32_t *t = pairs->triples + 3 * lo;
    return lo < pairs->n_pairs && t[0] == first && t[1] == second ? t[2] : 0;
}

ptrdiff_t
canonical_compose(const Compositions *pairs, const CombiningClasses *classes, uint32_t *cps, ptrdiff_t n)
{
    ptrdiff_t length = 0, starter = -1;
    uint32_t last_class = 0; /* of the last character kept after the starter (0: none) */
    for (ptrdiff_t i = 0; i < n; i++) {
        uint32_t c = cps[i], class = combining_class(classes, c);
        if (starter >= 0 && (last_class < class || (last_class == 0 && starter == length - 1))) {
            uint32_t composite = composite_of(pairs, cps[starter], c);
            if (composite) {
                cps[starter] = composite;
                continue;
            }
        }
        if (class == 0) starter = length;
        last_class = class;
        cps[length++] = c;
    }
    return length;
}

const char *
compositions_check(const Compositions *pairs)
{
    for (size_t k = 0; k < pairs->n_pairs; k++) {
        const uint32_t *t = pairs->triples + 3 * k;
        if (t[0] > 0x10FFFF || t[1] > 0x10FFFF || t[2] == 0 || t[2] > 0x10FFFF) return "a composition is not of code points";
        if (k && ((uint64_t)t[-3] << 32 | t[-2]) >= ((uint64_t)t[0] << 32 | t[1])) return "the compositions are not sorted";
    }
    return NULL;
}
