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

/* From i, the next word of cps[0 .. n): its start in *start (past separators) and its end returned, its
 * code_points_hash in *hash (unless hash is NULL), taken as the word is read; n when no word is left
 * (then *start is n too). */
static inline ptrdiff_t
class_run_next(const ClassTable *table, const uint32_t *cps, ptrdiff_t n, ptrdiff_t i, ptrdiff_t *start, uint64_t *hash)
{
    int cls = 0;
    while (i < n && (cls = class_of_code_point(table, cps[i])) == 0) i++;
    *start = i;
    if (i == n) return n;
    uint64_t h = hash_step(FNV_OFFSET, cps[i++]);
    if (cls > 1)
        for (; i < n && class_of_code_point(table, cps[i]) == cls; i++)
            if (hash) h = hash_step(h, cps[i]);
    if (hash) *hash = hash_end(h, i - *start);
    return i;
}

/* Words by Hugging Face's delimiter behaviours merged_with_previous and merged_with_next (`merge`
 * CLASS_MERGE_PREVIOUS or CLASS_MERGE_NEXT) instead of class runs: class 1 is a delimiter, joining the
 * run of text before it or after it where there is one, else a word of its own; class 3 is a word of its
 * own that ends a run (sentencepiece's digits apart); every other class is text. Returns the end of the
 * word that starts at i (< text->length). */
enum { CLASS_MERGE_PREVIOUS = 1, CLASS_MERGE_NEXT = 2 };

static inline int
class_merged_kind(const ClassTable *table, const CodePoints *text, ptrdiff_t i)
{
    int cls = class_at(table, text, i);
    return cls == 1 || cls == 3 ? cls : 2;
}

static inline ptrdiff_t
class_merged_word_end(const ClassTable *table, const CodePoints *text, ptrdiff_t i, int merge)
{
    ptrdiff_t n = text->length;
    int kind = class_merged_kind(table, text, i++);
    if (kind == 3 || (kind == 1 && merge != CLASS_MERGE_NEXT)) return i;
    while (i < n && class_merged_kind(table, text, i) == 2) i++;
    if (kind == 2 && merge == CLASS_MERGE_PREVIOUS && i < n && class_merged_kind(table, text, i) == 1) i++;
    return i;
}

#endif
