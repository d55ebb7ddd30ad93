/* csrc/core/expressions.h: the words of the regular expressions byte-level tokenizers split with, found
 * from a table of character classes instead of a regex engine (csrc/core/expressions.c), for the word
 * encoders (csrc/python/encoder/word_encoder.c, csrc/core/spec_encoder.c). */
#ifndef KVEC_EXPRESSIONS_H
#define KVEC_EXPRESSIONS_H

#include "code_points.h"

/* The classes the tables give (kvec/pretokenizers.py builds them): other, whitespace (\s but CR and LF),
 * letters (\p{L}), numbers (\p{N}), and CR or LF. */
enum { EXPR_OTHER = 2, EXPR_SPACE = 3, EXPR_LETTER = 4, EXPR_NUMBER = 5, EXPR_NEWLINE = 6 };

enum { EXPRESSION_NONE, EXPRESSION_GPT2, EXPRESSION_CL100K };

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const unsigned char *classes;
    ptrdiff_t n_classes; /* code points past the table are EXPR_OTHER */
    int kind;
    const void *data;
    ptrdiff_t length;
} ExpressionText;

/* Where the word that starts at i ends (i < text->length), as the expression's leftmost match there:
 * GPT-2's 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+, or cl100k's
 * (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|
 * \s+(?!\S)|\s+. Both match every character, so their words tile the text. O(the word's length + 1):
 * the look-ahead of \s+(?!\S) reads one character past the run it ends. */
ptrdiff_t expression_word_end(int expression, const ExpressionText *text, ptrdiff_t i);

#ifdef __cplusplus
}
#endif

#endif
