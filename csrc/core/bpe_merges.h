/* csrc/core/bpe_merges.h: the merge loop of BPE training as Hugging Face tokenizers' BpeTrainer runs it,
 * over words given as symbol ids. Free of Python: kvec._subword binds it (csrc/python/subword/bpe_trainer.c), and
 * tests/native/bpe_merges_driver.c runs it alone. Built into a Python extension (KVEC_WITH_PYTHON) it
 * allocates with PyMem_Malloc and sets MemoryError when that fails; elsewhere with malloc. */
#ifndef KVEC_BPE_MERGES_H
#define KVEC_BPE_MERGES_H

#include <stddef.h>
#include <stdint.h>

/* The words to train on: their symbol ids (>= 0) back to back, each word's number of symbols, and each
 * word's count (>= 0, with the sum of count x size below 2**61, so that no pair count passes int64). */
typedef struct {
    const int32_t *ids;
    const int64_t *sizes;
    const int64_t *counts;
    ptrdiff_t n_words;
} BpeCorpus;

/* Called with each pair (a, b) the loop merges, in order: sets *new_id (0 to 2**31 - 1) to the id of the
 * merged token and *vocab_size to the vocabulary's size with it; returns 0, or -1 to stop the loop with
 * an error of the caller's. */
typedef int (*BpeNewToken)(void *context, int32_t a, int32_t b, int32_t *new_id, int64_t *vocab_size);

/* Merge the most frequent pair (ties: the smallest (a, b)) again and again, while the vocabulary has
 * fewer than vocab_size tokens (current_size now) and the top pair occurs min_frequency times or more; a
 * merged symbol of more than max_length characters is never formed. Returns 0, or -1 when memory ran
 * out or new_token returned -1. */
int bpe_merges(const BpeCorpus *corpus, int64_t vocab_size, int64_t current_size, int64_t min_frequency,
               int64_t max_length, BpeNewToken new_token, void *context);

#endif
