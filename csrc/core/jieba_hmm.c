/* csrc/core/jieba_hmm.c: see jieba_hmm.h. */
#include "jieba_hmm.h"

#include <stdlib.h>
#include <string.h>

/* the states each state may follow (jieba's PrevStatus) */
static const uint8_t PREVIOUS[JIEBA_STATES][2] = {
    [JIEBA_B] = {JIEBA_E, JIEBA_S},
    [JIEBA_E] = {JIEBA_B, JIEBA_M},
    [JIEBA_M] = {JIEBA_M, JIEBA_B},
    [JIEBA_S] = {JIEBA_S, JIEBA_E},
};

void
jieba_hmm_clear(JiebaHmm *hmm)
{
    for (int y = 0; y < JIEBA_STATES; y++) {
        hmm->start[y] = JIEBA_MIN_FLOAT;
        for (int z = 0; z < JIEBA_STATES; z++) hmm->trans[y][z] = JIEBA_MIN_FLOAT;
        for (int c = 0; c < JIEBA_HAN_COUNT; c++) hmm->emit[y][c] = JIEBA_MIN_FLOAT;
    }
}

void
jieba_hmm_set(JiebaHmm *hmm, const double *values)
{
    memcpy(hmm->start, values, sizeof(hmm->start));
    memcpy(hmm->trans, values + JIEBA_STATES, sizeof(hmm->trans));
    memcpy(hmm->emit, values + JIEBA_STATES + JIEBA_STATES * JIEBA_STATES, sizeof(hmm->emit));
}

void
jieba_viterbi_free(JiebaViterbi *v)
{
    free(v->back);
    v->back = NULL;
    v->capacity = 0;
}

/* (a, state a) beats (b, state b) under Python's max of pairs */
static int
beats(double a, int state_a, double b, int state_b)
{
    return a > b || (a == b && state_a > state_b);
}

int
jieba_viterbi(const JiebaHmm *hmm, const uint32_t *cps, ptrdiff_t n, uint8_t *states, JiebaViterbi *v)
{
    if ((size_t)n > PTRDIFF_MAX / JIEBA_STATES) return -1;
    if (n * JIEBA_STATES > v->capacity) {
        ptrdiff_t capacity = v->capacity ? v->capacity : 1024;
        while (capacity < n * JIEBA_STATES) capacity *= 2;
        uint8_t *back = realloc(v->back, (size_t)capacity);
        if (!back) return -1;
        v->back = back;
        v->capacity = capacity;
    }
    double now[JIEBA_STATES], before[JIEBA_STATES];
    for (int y = 0; y < JIEBA_STATES; y++) now[y] = hmm->start[y] + hmm->emit[y][cps[0] - JIEBA_HAN_FIRST];
    for (ptrdiff_t t = 1; t < n; t++) {
        for (int y = 0; y < JIEBA_STATES; y++) before[y] = now[y];
        for (int y = 0; y < JIEBA_STATES; y++) {
            double emitted = hmm->emit[y][cps[t] - JIEBA_HAN_FIRST];
            int best = -1;
            double best_p = 0.0;
            for (int k = 0; k < 2; k++) {
                int from = PREVIOUS[y][k];
                double p = before[from] + hmm->trans[from][y] + emitted;
                if (best < 0 || beats(p, from, best_p, best)) {
                    best = from;
                    best_p = p;
                }
            }
            now[y] = best_p;
            v->back[t * JIEBA_STATES + y] = (uint8_t)best;
        }
    }
    int state = beats(now[JIEBA_E], JIEBA_E, now[JIEBA_S], JIEBA_S) ? JIEBA_E : JIEBA_S;
    for (ptrdiff_t t = n - 1; t >= 0; t--) {
        states[t] = (uint8_t)state;
        if (t > 0) state = v->back[t * JIEBA_STATES + state];
    }
    return 0;
}
