/* csrc/core/unigram_path.h: the best segmentation of a text by a Unigram model, and its ids.
 *
 * Positions are code points. A position that no one-character piece covers gets an unknown edge
 * (piece -1) of score `unknown`, as in sentencepiece, so every text has a segmentation. The best path
 * follows sentencepiece's float arithmetic and tie order: at each end position the first best path in
 * order of start position is kept. Its unknown characters become the byte pieces of their UTF-8 where
 * every byte has one (byte fallback), else the unknown token, one for each run of them.
 *
 * kvec's Unigram model (csrc/unigram_encoder.c, csrc/unigram_module.c) and the TensorFlow kernels
 * (spec_encoder.h) encode through these functions; the trainer's lattices (csrc/unigram_lattice.c)
 * take the best path too. */
#ifndef KVEC_CORE_UNIGRAM_PATH_H
#define KVEC_CORE_UNIGRAM_PATH_H

#include "int64s.h"
#include "code_points.h"
#include "unigram_trie.h"

typedef struct {
    UnigramTrie trie;
    uint32_t *chars;       /* the code points the trie reads, when the model owns them (freed with it) */
    double unk_score;      /* the score of an unknown character */
    int32_t unk_id;        /* -1: none (a character without an id is an error) */
    int has_bytes;         /* byte fallback */
    int32_t byte_ids[256]; /* -1: no piece for that byte */
} UnigramModel;

typedef struct {
    int32_t start, end, piece; /* piece -1: an unknown character */
} UnigramEdge;

/* One thread's working memory; zeroed, it is ready. */
typedef struct {
    float *best;
    int32_t *from, *piece_at; /* the best path: its last edge into each position */
    ptrdiff_t positions;
    UnigramEdge *path; /* the best path's edges, first to last */
    ptrdiff_t path_capacity;
} UnigramPath;

/* Room for a text of n positions; -1 when out of memory. */
int unigram_path_fit(UnigramPath *s, ptrdiff_t n);
void unigram_path_free(UnigramPath *s);

/* The best path through the lattice of `text` (fitted first) into s->best, s->from and s->piece_at:
 * the best path to position q ends with piece piece_at[q] (-1: an unknown character) over [from[q],
 * q). With skip_piece >= 0, that piece spanning the whole text is left out. Returns the best path's
 * score (relative to the last reset of a long text's scores). */
float unigram_best_path(const UnigramTrie *trie, UnigramPath *s, const CodePoints *text, int32_t skip_piece,
                        float unknown);

/* The byte pieces of the UTF-8 of text[start, end) into ids, and how many: 0 when some byte has none. */
ptrdiff_t unigram_byte_pieces(const UnigramModel *m, const CodePoints *text, ptrdiff_t start, ptrdiff_t end,
                              int32_t *ids);

/* Appends the ids of the best segmentation of `text` to `out`. Returns 0; 1 when a character has no
 * id (the model has no unk_id), its position in *unknown_at; -1 when out of memory. */
int unigram_ids(const UnigramModel *m, UnigramPath *s, const CodePoints *text, Int64s *out, ptrdiff_t *unknown_at);

void unigram_model_free(UnigramModel *m);

#endif
