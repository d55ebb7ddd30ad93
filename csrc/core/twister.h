/* csrc/core/twister.h: the Mersenne Twister (MT19937) with Python's random.random() on top, so that a
 * generator's state taken from random.Random.getstate() goes on drawing the very numbers Python would
 * (kvec.models.BPE's dropout, whose seed is a Python seed). */
#ifndef KVEC_TWISTER_H
#define KVEC_TWISTER_H

#include <stdint.h>

#define TWISTER_N 624
#define TWISTER_M 397

typedef struct {
    uint32_t state[TWISTER_N];
    int index; /* the next word of state to temper; TWISTER_N: the state must be renewed first */
} Twister;

static inline uint32_t
twister_next(Twister *t)
{
    static const uint32_t twist[2] = {0x0u, 0x9908b0dfu};
    const uint32_t upper = 0x80000000u, lower = 0x7fffffffu;
    uint32_t *mt = t->state, y;
    if (t->index >= TWISTER_N) {
        int k;
        for (k = 0; k < TWISTER_N - TWISTER_M; k++) {
            y = (mt[k] & upper) | (mt[k + 1] & lower);
            mt[k] = mt[k + TWISTER_M] ^ (y >> 1) ^ twist[y & 1];
        }
        for (; k < TWISTER_N - 1; k++) {
            y = (mt[k] & upper) | (mt[k + 1] & lower);
            mt[k] = mt[k + (TWISTER_M - TWISTER_N)] ^ (y >> 1) ^ twist[y & 1];
        }
        y = (mt[TWISTER_N - 1] & upper) | (mt[0] & lower);
        mt[TWISTER_N - 1] = mt[TWISTER_M - 1] ^ (y >> 1) ^ twist[y & 1];
        t->index = 0;
    }
    y = mt[t->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* random.random(): 53 random bits as a float in [0, 1). */
static inline double
twister_random(Twister *t)
{
    uint32_t a = twister_next(t) >> 5, b = twister_next(t) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

#endif
