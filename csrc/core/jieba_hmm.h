/* csrc/core/jieba_hmm.h: jieba's hidden Markov model of word positions, and its Viterbi path.
 *
 * jieba (finalseg) tags each character of a run of Han characters its dictionary could not join as B
 * (begins a word), M (inside one), E (ends one) or S (a word alone), by the most probable path under
 * its start, transition and emission log-probabilities. Here the path is found with jieba's own
 * arithmetic and tie rules: at each step the best predecessor wins, a tie going to the later letter
 * (S > M > E > B, as Python's max over (probability, state) pairs), and the path ends in E or S. */
#ifndef KVEC_CORE_JIEBA_HMM_H
#define KVEC_CORE_JIEBA_HMM_H

#include <stddef.h>
#include <stdint.h>

#define JIEBA_MIN_FLOAT (-3.14e100) /* jieba's log-probability of what its model never saw */
#define JIEBA_HAN_FIRST 0x4E00      /* the Han range jieba's HMM runs over: U+4E00 .. U+9FD5 */
#define JIEBA_HAN_LAST 0x9FD5
#define JIEBA_HAN_COUNT (JIEBA_HAN_LAST - JIEBA_HAN_FIRST + 1)

enum { JIEBA_B, JIEBA_E, JIEBA_M, JIEBA_S, JIEBA_STATES }; /* alphabetical: a later state wins ties */

typedef struct {
    double start[JIEBA_STATES];
    double trans[JIEBA_STATES][JIEBA_STATES]; /* from, to; JIEBA_MIN_FLOAT where jieba has none */
    double emit[JIEBA_STATES][JIEBA_HAN_COUNT]; /* by code point - JIEBA_HAN_FIRST; JIEBA_MIN_FLOAT if none */
} JiebaHmm;

static inline int
jieba_is_hmm_han(uint32_t c)
{
    return c >= JIEBA_HAN_FIRST && c <= JIEBA_HAN_LAST;
}

/* The number of values of the tables, start, transitions and emissions, in that order. */
#define JIEBA_HMM_VALUES (JIEBA_STATES + JIEBA_STATES * JIEBA_STATES + JIEBA_STATES * JIEBA_HAN_COUNT)

/* Every probability JIEBA_MIN_FLOAT: the tables jieba's files then fill. */
void jieba_hmm_clear(JiebaHmm *hmm);

/* The tables from values[0 .. JIEBA_HMM_VALUES): start (B, E, M, S), transitions (from, to), then
 * emissions (state, code point from JIEBA_HAN_FIRST); JIEBA_MIN_FLOAT where jieba has no value. */
void jieba_hmm_set(JiebaHmm *hmm, const double *values);

/* What one thread reuses from run to run. Zeroed, it is ready. */
typedef struct {
    uint8_t *back; /* per position and state: the best predecessor */
    ptrdiff_t capacity;
} JiebaViterbi;

void jieba_viterbi_free(JiebaViterbi *v);

/* The states of the most probable path over the Han characters cps[0 .. n) (n > 0, each in
 * jieba_is_hmm_han) written to states[0 .. n); -1 when out of memory. */
int jieba_viterbi(const JiebaHmm *hmm, const uint32_t *cps, ptrdiff_t n, uint8_t *states, JiebaViterbi *v);

#endif
