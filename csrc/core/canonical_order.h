/* csrc/core/canonical_order.h: Unicode's canonical ordering of combining marks, the step of NFD and
 * NFKD after each character is decomposed: every run of characters whose canonical combining class is
 * not 0 is sorted by class, stably. The classes come from the description (kvec/native_spec.py reads
 * them from Python's unicodedata, as kvec's Python normalizers do). */
#ifndef KVEC_CORE_CANONICAL_ORDER_H
#define KVEC_CORE_CANONICAL_ORDER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint32_t *ranges; /* [first, last, class] triples, sorted, of the code points whose class is not 0 */
    size_t n_ranges;
} CombiningClasses;

/* The combining class of c. */
uint32_t combining_class(const CombiningClasses *classes, uint32_t c);

/* cps[0 .. n) put in canonical order, in place; *scratch (grown with realloc, *capacity code points)
 * holds a long run while it is sorted. 0, or -1 when out of memory. O(n log r) for runs of at most r
 * marks: a run of up to CANONICAL_SHORT_RUN marks is sorted by insertion, a longer one by counting its
 * classes (1 .. 254), in time linear in its length. */
int canonical_order(const CombiningClasses *classes, uint32_t *cps, ptrdiff_t n, uint32_t **scratch,
                    ptrdiff_t *capacity);

#define CANONICAL_SHORT_RUN 32

/* NULL when the triples are sorted, apart and each class in 1 .. 254; else what is wrong. */
const char *combining_classes_check(const CombiningClasses *classes);

#ifdef __cplusplus
}
#endif

#endif
