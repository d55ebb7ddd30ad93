/* csrc/core/bpe.h: a BPE model's segmentation of one word, without Python: the one implementation
 * behind kvec.models.BPE (csrc/python/subword/bpe_model.c) and the TensorFlow kernels.
 *
 * A word's first symbols are made as kvec.models.BPE makes them (each character with the continuing
 * prefix before it after the first and the end-of-word suffix after the last; byte-level words byte by
 * byte; byte fallback and the unknown token for characters the vocabulary lacks), then the merges are
 * applied lowest rank first, leftmost on ties. With ignore_merges a word that is a token is that token. */
#ifndef KVEC_CORE_BPE_H
#define KVEC_CORE_BPE_H

#include "int64s.h"
#include "pair_map.h"
#include "piece_map.h"

#ifdef __cplusplus
extern "C" {
#endif

/* BPE-dropout: skip() says whether the merge taken from the queue is skipped (one draw each). */
typedef struct {
    int (*skip)(void *context);
    void *context;
} BpeDropout;

/* The merges of `ranks` ((a, b) -> rank << 32 | merged id) applied to ids[0 .. n) in place; alive[i]
 * says which symbols start a token. With dropout (or NULL), a skipped merge goes back in the queue once
 * a merge is not skipped, as kvec.models.BPE always did. Returns -1 when out of memory. */
int bpe_merge(const PairMap *ranks, int32_t *ids, ptrdiff_t n, char *alive, const BpeDropout *dropout);

enum { BPE_UNK_DROPPED = -1, BPE_UNK_MISSING = -2 }; /* no unknown token; one named but not in the vocabulary */

typedef struct {
    PairMap chars;         /* kind << 32 | code point -> id; kind 1: after the first, 2: the last, 3: both */
    int32_t *spelled;      /* byte-level words: kind * 256 + byte -> id (1024 ids, -1 missing), or NULL */
    int32_t byte_ids[256]; /* byte fallback: <0xNN> -> id (-1: missing) */
    int byte_fallback, fuse_unk;
    int64_t unk_id;        /* or BPE_UNK_DROPPED, BPE_UNK_MISSING */
    unsigned char *prefix, *suffix; /* UTF-8 */
    size_t prefix_length, suffix_length;
    int has_whole;         /* ignore_merges */
    PieceMap whole;        /* the vocabulary: token -> id */
    uint32_t spelling[256]; /* byte-level words are spelled with these before looking them up whole */
} BpeWords;

/* An empty model: no characters, no spelling, no fallback, unk_id BPE_UNK_DROPPED; -1 when out of
 * memory. The caller fills it, then only reads it. */
int bpe_words_init(BpeWords *words, size_t expected_chars);
void bpe_words_free(BpeWords *words);

/* The ids of `word` (not empty) appended to `out`, in O(n log n) (the pairs wait in a heap by rank): 0, 1 when a character is unknown and the unknown
 * token is missing, or a byte symbol is missing (nothing appended), -1 when out of memory. */
int bpe_word_ids(const BpeWords *words, const PairMap *ranks, const BpeDropout *dropout, const CodePoints *word,
                 Int64s *out);

#ifdef __cplusplus
}
#endif

#endif
