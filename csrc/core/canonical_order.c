/* csrc/core/canonical_order.c: see canonical_order.h. */
#include "canonical_order.h"

#define FIRST_COMBINING 0x300 /* no code point below it has a combining class */

uint32_t
combining_class(const CombiningClasses *classes, uint32_t c)
{
    if (c < FIRST_COMBINING || classes->n_ranges == 0) return 0;
    size_t lo = 0, hi = classes->n_ranges;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (classes->ranges[3 * mid + 1] < c) lo = mid + 1;
        else hi = mid;
    }
    return lo < classes->n_ranges && classes->ranges[3 * lo] <= c ? classes->ranges[3 * lo + 2] : 0;
}

void
canonical_order(const CombiningClasses *classes, uint32_t *cps, ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i++) {
        uint32_t class = combining_class(classes, cps[i]);
        if (class == 0) continue;
        /* insertion into the run before it: past every mark of a class above its own */
        uint32_t c = cps[i];
        ptrdiff_t j = i;
        while (j > 0) {
            uint32_t before = combining_class(classes, cps[j - 1]);
            if (before <= class) break; /* a class of 0 ends the run */
            cps[j] = cps[j - 1];
            j--;
        }
        cps[j] = c;
    }
}

const char *
combining_classes_check(const CombiningClasses *classes)
{
    for (size_t k = 0; k < classes->n_ranges; k++) {
        const uint32_t *r = classes->ranges + 3 * k;
        if (r[0] > r[1] || r[1] > 0x10FFFF || r[0] < FIRST_COMBINING) return "a combining class range is out of order";
        if (k && r[0] <= r[-2]) return "the combining class ranges are not sorted";
        if (r[2] == 0 || r[2] > 254) return "a combining class is out of range";
    }
    return NULL;
}
