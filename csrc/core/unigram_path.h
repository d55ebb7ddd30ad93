/* csrc/core/unigram_path.h: the best segmentation of a text by a Unigram model, and its ids.
 *
 * Positions are code points. A position that no one-character piece covers gets an unknown edge
 * (piece -1) of score `unknown`, so every text has a segmentation. At each end position the first best
 * path in order of start position is kept; the arithmetic is one of two rules:
 *   UNIGRAM_SENTENCEPIECE: sentencepiece's float32 sums, taken relative to a position again past 1e5;
 *   UNIGRAM_HUGGING_FACE: Hugging Face's float64 sums.
 * Unknown characters then become tokens. sentencepiece: the byte pieces of each one's UTF-8 where every
 * byte has one (byte fallback), else the unknown token, one for each run. Hugging Face: a run of them
 * (with any piece that is the unknown token itself) is one string, spelled by the byte pieces of its
 * UTF-8 where every byte has one, else the unknown token, each token over the whole run.
 *
 * kvec's Unigram model (csrc/python/unigram/unigram_module.c) and the TensorFlow kernels
 * (spec_encoder.h) encode through these functions; the trainer's lattices (csrc/python/unigram/unigram_lattice.c)
 * take the best path too, by sentencepiece's rule. */
#ifndef KVEC_CORE_UNIGRAM_PATH_H
#define KVEC_CORE_UNIGRAM_PATH_H

#include "int64s.h"
#include "code_points.h"
#include "unigram_trie.h"

enum { UNIGRAM_SENTENCEPIECE = 0, UNIGRAM_HUGGING_FACE = 1 }; /* the rules above */

typedef struct {
    UnigramTrie trie;
    uint32_t *chars;       /* the code points the trie reads, when the model owns them (freed with it) */
    double unk_score;      /* the score of an unknown character */
    int32_t unk_id;        /* -1: none (a character without an id is an error) */
    int has_bytes;         /* byte fallback */
    int32_t byte_ids[256]; /* -1: no piece for that byte */
    int rule;              /* UNIGRAM_SENTENCEPIECE or UNIGRAM_HUGGING_FACE */
} UnigramModel;

typedef struct {
    int32_t start, end, piece; /* piece -1: an unknown character */
} UnigramEdge;

/* One thread's working memory; zeroed, it is ready. */
typedef struct {
    float *best;        /* UNIGRAM_SENTENCEPIECE's sums */
    double *best_wide;  /* UNIGRAM_HUGGING_FACE's sums */
    int32_t *from, *piece_at; /* the best path: its last edge into each position */
    ptrdiff_t positions;
    UnigramEdge *path; /* the best path's edges, first to last */
    ptrdiff_t path_capacity;
} UnigramPath;

/* Room for a text of n positions; -1 when out of memory. */
int unigram_path_fit(UnigramPath *s, ptrdiff_t n);
void unigram_path_free(UnigramPath *s);

/* The best path through the lattice of `text` (fitted first) by `rule` into s->from and s->piece_at:
 * the best path to position q ends with piece piece_at[q] (-1: an unknown character) over [from[q],
 * q). With skip_piece >= 0, that piece spanning the whole text is left out. Returns the best path's
 * score (relative to the last reset of a long text's scores). */
double unigram_best_path(const UnigramTrie *trie, UnigramPath *s, const CodePoints *text, int32_t skip_piece,
                         double unknown, int rule);

/* Appends the tokens of a path's edges path[0, count) through `text` to `out`, unknown characters
 * resolved by m->rule: each token's id, followed by its start and end with `with_spans`. Returns 0; 1
 * when a character has no id (the model has no unk_id), its position in *unknown_at; -1 when out of
 * memory. */
int unigram_resolve(const UnigramModel *m, const CodePoints *text, const UnigramEdge *path, ptrdiff_t count,
                    int with_spans, Int64s *out, ptrdiff_t *unknown_at);

/* Appends the ids of the best segmentation of `text` to `out`, in O(n * L): from each position the
 * trie is walked along the text for at most the longest piece, L <= UNIGRAM_LONGEST_PIECE. Returns 0; 1 when a character has no
 * id (the model has no unk_id), its position in *unknown_at; -1 when out of memory. */
int unigram_ids(const UnigramModel *m, UnigramPath *s, const CodePoints *text, Int64s *out, ptrdiff_t *unknown_at);

void unigram_model_free(UnigramModel *m);

#endif
