/* csrc/core/canonical_order.c: see canonical_order.h. */
#include "canonical_order.h"

#include "code_points.h"

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

/* One run of marks (classes not 0) sorted by class, stably. */
static int
order_run(const CombiningClasses *classes, uint32_t *run, ptrdiff_t n, uint32_t **scratch, ptrdiff_t *capacity)
{
    if (n <= CANONICAL_SHORT_RUN) { /* insertion: at most n moves for each mark */
        uint32_t class_of[CANONICAL_SHORT_RUN];
        for (ptrdiff_t i = 0; i < n; i++) {
            uint32_t c = run[i], class = combining_class(classes, c);
            ptrdiff_t j = i;
            for (; j > 0 && class_of[j - 1] > class; j--) {
                run[j] = run[j - 1];
                class_of[j] = class_of[j - 1];
            }
            run[j] = c;
            class_of[j] = class;
        }
        return 0;
    }
    if (code_points_reserve(scratch, capacity, 2 * n) < 0) return -1;
    uint32_t *marks = *scratch, *class_of = *scratch + n;
    ptrdiff_t place[256] = {0}; /* the classes are 1 .. 254 (combining_classes_check) */
    for (ptrdiff_t i = 0; i < n; i++) {
        marks[i] = run[i];
        class_of[i] = combining_class(classes, run[i]);
        place[class_of[i] + 1]++;
    }
    for (int class = 1; class < 256; class++) place[class] += place[class - 1];
    for (ptrdiff_t i = 0; i < n; i++) run[place[class_of[i]]++] = marks[i];
    return 0;
}

int
canonical_order(const CombiningClasses *classes, uint32_t *cps, ptrdiff_t n, uint32_t **scratch, ptrdiff_t *capacity)
{
    for (ptrdiff_t i = 0; i < n;) {
        if (combining_class(classes, cps[i]) == 0) {
            i++;
            continue;
        }
        ptrdiff_t end = i + 1;
        while (end < n && combining_class(classes, cps[end]) != 0) end++;
        if (order_run(classes, cps + i, end - i, scratch, capacity) < 0) return -1;
        i = end;
    }
    return 0;
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
