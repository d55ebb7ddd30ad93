/* csrc/core/canonical_compose.h: Unicode's canonical composition, the step of NFC and NFKC after the
 * text is decomposed and put in canonical order (canonical_order.h): each character joins the last
 * starter (a character of combining class 0) when the pair has a primary composite and nothing blocks
 * it (a character between them of a class at least its own, or any character between when it is a
 * starter itself). The pairs come from the description (kvec/native_spec.py reads them from Python's
 * unicodedata, Hangul syllables included). */
#ifndef KVEC_CORE_CANONICAL_COMPOSE_H
#define KVEC_CORE_CANONICAL_COMPOSE_H

#include "canonical_order.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint32_t *triples; /* [first, second, composite], sorted by (first, second), apart */
    size_t n_pairs;
} Compositions;

/* cps[0 .. n) composed in place; the new length. */
ptrdiff_t canonical_compose(const Compositions *pairs, const CombiningClasses *classes, uint32_t *cps, ptrdiff_t n);

/* NULL when the triples are sorted, apart and made of code points; else what is wrong. */
const char *compositions_check(const Compositions *pairs);

#ifdef __cplusplus
}
#endif

#endif
