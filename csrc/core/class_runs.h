/* csrc/core/class_runs.h: cutting words by character classes, the rule of every pre-tokenizer that
 * kvec describes as one class per code point (kvec.pretokenizers' word tables): class 0 separates words
 * and is dropped, class 1 is a word of its own, classes 2..255 form words of maximal runs of the same
 * class. Code points past the table are of the default class (2, but 1 for the Keras Tokenizer's
 * char_level: every character a word). */
#ifndef KVEC_CORE_CLASS_RUNS_H
#define KVEC_CORE_CLASS_RUNS_H

#include "code_points.h"

typedef struct {
    const unsigned char *classes;
    ptrdiff_t n_classes;
    int default_class; /* of code points past the table */
} ClassTable;

static inline int
class_of_code_point(const ClassTable *table, uint32_t c)
{
    return c < (uint64_t)table->n_classes ? table->classes[c] : table->default_class;
}

static inline int
class_at(const ClassTable *table, const CodePoints *text, ptrdiff_t i)
{
    return class_of_code_point(table, code_point_at(text->kind, text->data, i));
}

/* From i, the next word of `text`: its start in *start (past separators) and its end returned;
 * text->length when no word is left (then *start is text->length too). */
static inline ptrdiff_t
class_run_next(const ClassTable *table, const CodePoints *text, ptrdiff_t i, ptrdiff_t *start)
{
    ptrdiff_t n = text->length;
    int cls = 0;
    while (i < n && (cls = class_at(table, text, i)) == 0) i++;
    *start = i;
    if (i == n) return n;
    i++;
    if (cls > 1)
        while (i < n && class_at(table, text, i) == cls) i++;
    return i;
}

#endif
