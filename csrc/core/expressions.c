/* csrc/core/expressions.c: the words of GPT-2's and cl100k's regular expressions, from a class table
 * (see csrc/core/expressions.h). Each function follows its expression's alternatives in order, so the
 * first alternative that matches at a position gives the word, as a backtracking regex engine does. */
#include "expressions.h"

static inline uint32_t
char_at(const ExpressionText *t, ptrdiff_t i)
{
    return code_point_at(t->kind, t->data, i);
}

static inline int
class_at(const ExpressionText *t, ptrdiff_t i)
{
    uint32_t c = char_at(t, i);
    return c < (uint32_t)t->n_classes ? t->classes[c] : EXPR_OTHER;
}

static inline int
is_space(int cls)
{
    return cls == EXPR_SPACE || cls == EXPR_NEWLINE;
}

/* The end of a run of class cls from i (classes matched by `same`). */
static ptrdiff_t
run_end(const ExpressionText *t, ptrdiff_t i, int cls)
{
    while (i < t->length && class_at(t, i) == cls) i++;
    return i;
}

/* 's 't 're 've 'm 'll 'd at i (a quote there): the contraction's end, or -1. With fold, case folded
 * as (?i) does: A-Z, and the long s (U+017F) for s. */
static ptrdiff_t
contraction_end(const ExpressionText *t, ptrdiff_t i, int fold)
{
    ptrdiff_t n = t->length;
    if (i + 1 >= n) return -1;
#define LOWER(c) (fold && (c) >= 'A' && (c) <= 'Z' ? (c) + 32 : fold && (c) == 0x17F ? 's' : (c))
    uint32_t d = char_at(t, i + 1), d2 = i + 2 < n ? char_at(t, i + 2) : 0;
    d = LOWER(d);
    d2 = LOWER(d2);
#undef LOWER
    if (d == 's' || d == 't' || d == 'm' || d == 'd') return i + 2;
    if ((d == 'r' && d2 == 'e') || (d == 'v' && d2 == 'e') || (d == 'l' && d2 == 'l')) return i + 3;
    return -1;
}

/* \s+(?!\S) then \s+, for the whitespace run [i, run): the run, less its last character when a
 * non-space follows it and it is longer than one. */
static ptrdiff_t
space_run_end(const ExpressionText *t, ptrdiff_t i, ptrdiff_t run)
{
    return (run == t->length || run - i == 1) ? run : run - 1;
}

static ptrdiff_t
gpt2_word_end(const ExpressionText *t, ptrdiff_t i)
{
    ptrdiff_t n = t->length;
    if (char_at(t, i) == '\'') {
        ptrdiff_t end = contraction_end(t, i, 0);
        if (end >= 0) return end;
    }
    ptrdiff_t j = i; /* ' ?' before a letter, number or other run */
    if (char_at(t, i) == ' ' && i + 1 < n && !is_space(class_at(t, i + 1))) j = i + 1;
    int cls = class_at(t, j);
    if (!is_space(cls)) return run_end(t, j + 1, cls);
    ptrdiff_t run = i + 1;
    while (run < n && is_space(class_at(t, run))) run++;
    return space_run_end(t, i, run);
}

static ptrdiff_t
cl100k_word_end(const ExpressionText *t, ptrdiff_t i)
{
    ptrdiff_t n = t->length;
    if (char_at(t, i) == '\'') {
        ptrdiff_t end = contraction_end(t, i, 1);
        if (end >= 0) return end;
    }
    int cls = class_at(t, i);
    /* [^\r\n\p{L}\p{N}]?\p{L}+ */
    if (cls == EXPR_LETTER) return run_end(t, i + 1, EXPR_LETTER);
    if ((cls == EXPR_OTHER || cls == EXPR_SPACE) && i + 1 < n && class_at(t, i + 1) == EXPR_LETTER)
        return run_end(t, i + 2, EXPR_LETTER);
    /* \p{N}{1,3} */
    if (cls == EXPR_NUMBER) {
        ptrdiff_t end = i + 1;
        while (end < n && end < i + 3 && class_at(t, end) == EXPR_NUMBER) end++;
        return end;
    }
    /*  ?[^\s\p{L}\p{N}]+[\r\n]* */
    ptrdiff_t j = char_at(t, i) == ' ' && i + 1 < n && class_at(t, i + 1) == EXPR_OTHER ? i + 1 : i;
    if (class_at(t, j) == EXPR_OTHER) return run_end(t, run_end(t, j + 1, EXPR_OTHER), EXPR_NEWLINE);
    /* a whitespace run: \s*[\r\n]+ up to its last CR or LF, else \s+(?!\S), else \s+ */
    ptrdiff_t run = i, last_newline = -1;
    for (; run < n && is_space(class_at(t, run)); run++)
        if (class_at(t, run) == EXPR_NEWLINE) last_newline = run;
    if (last_newline >= 0) return last_newline + 1;
    return space_run_end(t, i, run);
}

ptrdiff_t
expression_word_end(int expression, const ExpressionText *text, ptrdiff_t i)
{
    return expression == EXPRESSION_CL100K ? cl100k_word_end(text, i) : gpt2_word_end(text, i);
}
