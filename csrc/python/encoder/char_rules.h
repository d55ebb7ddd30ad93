/* csrc/python/encoder/char_rules.h: CharRules, a normalizer that works character by character, as a table the encoder
 * applies without the GIL (csrc/python/encoder/char_rules.c defines it; csrc/python/encoder/word_encoder.c applies it).
 *
 * Each code point has one entry: unknown yet, itself, contextual (its text must be normalized by the
 * Python normalizer, which sees its neighbours), or a replacement of zero or more code points. Entries
 * are learnt from the Python rule with the GIL and never change afterwards, and neither entries nor
 * replacements ever move, so scans read them without a lock while another thread learns more. */
#ifndef KVEC_CHAR_RULES_H
#define KVEC_CHAR_RULES_H

#include <Python.h>
#include <stdint.h>

#define RULE_PAGES 0x1100   /* pages of 256 code points: 0 .. 0x10FFFF */
#define RULE_BLOCKS 1024    /* replacement blocks of 65536 code points */
#define RULE_BLOCK_SIZE 65536

enum { RULE_UNKNOWN = 0, RULE_SAME = 1, RULE_CONTEXTUAL = 2, RULE_REPLACE = 3 };

typedef struct {
    PyObject_HEAD
    PyObject *rule;                     /* callable: one character -> its replacement str, or None */
    uint32_t *pages[RULE_PAGES];        /* entries: RULE_* in the low 2 bits, a replacement's place above */
    uint32_t *blocks[RULE_BLOCKS];      /* replacements: [length, code points...], never across blocks */
    Py_ssize_t n_blocks, block_used;    /* the block being filled, and how much of it */
} CharRules;

extern PyTypeObject CharRulesType;

/* Every code point of `text` known (the rule is asked, with the GIL, for those that are not); -1 with
 * an exception set. */
int char_rules_learn(CharRules *self, PyObject *text);

/* Without the GIL, once every code point is known: the normalized code points of data[0 .. n) appended
 * to *out (grown with PyMem_Raw, *capacity code points), their number in *length. Returns 1, 0 when a
 * contextual code point means the Python normalizer must take the text, or -1 when out of memory. */
int char_rules_apply(const CharRules *self, int kind, const void *data, Py_ssize_t n, Py_UCS4 **out,
                     Py_ssize_t *capacity, Py_ssize_t *length);

#endif
