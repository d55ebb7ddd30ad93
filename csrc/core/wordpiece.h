/* csrc/core/wordpiece.h: WordPiece's greedy longest-match-first segmentation of one word, without
 * Python: the one implementation, run by the native encoder (spec_encoder.h) for kvec.models.WordPiece
 * and the TensorFlow kernels.
 *
 * From the start of the word, the longest piece of the vocabulary; from each later point, the longest
 * continuation (a piece that carries the continuing-subword prefix, looked up without it). A word
 * longer than max_chars, or with a point where nothing matches, is unknown as a whole.
 *
 * Pieces are known by their slot, the number the caller gave each one: the native encoder maps slots
 * to int64 ids. */
#ifndef KVEC_CORE_WORDPIECE_H
#define KVEC_CORE_WORDPIECE_H

#include "int64s.h"
#include "piece_map.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    PieceMap starts, continuations; /* piece -> slot; continuations without their prefix */
    ptrdiff_t longest_start, longest_continuation;
    ptrdiff_t max_chars; /* longer words are unknown */
} WordPiece;

/* An empty model for about `expected` pieces; -1 when out of memory. */
int wordpiece_init(WordPiece *model, size_t expected, ptrdiff_t max_chars);
void wordpiece_free(WordPiece *model);

/* Adds the piece `token` under `slot`, as a start piece and, when it begins with `prefix` and is longer,
 * as a continuation; a piece already added keeps its first slot. -1 when out of memory. */
int wordpiece_add(WordPiece *model, const CodePoints *token, const CodePoints *prefix, int64_t slot);

/* The pieces of `word` (not empty): their slots appended to `slots`. O(n * L^2) for a word of n code points, L the longest
 * piece (a word longer than max_chars costs nothing): from each start, a lookup of each length. Returns 0, 1 when the word is unknown (nothing appended),
 * -1 when out of memory. */
int wordpiece_segment(const WordPiece *model, const CodePoints *word, Int64s *slots);

#ifdef __cplusplus
}
#endif

#endif
