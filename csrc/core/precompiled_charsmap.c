/* csrc/core/precompiled_charsmap.c: see precompiled_charsmap.h. */
#include "precompiled_charsmap.h"

#include <string.h>

#include "utf8.h"

#define SPACE 0x20
#define ESCAPED_SPACE 0x2581 /* ▁ */

/* darts-clone's offset of a unit: 22 bits, shifted left by 8 when bit 9 is set */
static inline int64_t
unit_offset(uint32_t unit)
{
    return (int64_t)(unit >> 10) << ((unit & (1u << 9)) >> 6);
}

/* The trie walked over key[0 .. length), stopping at a NUL byte: the bytes walked, and the longest key
 * met on the way in *value and *found (its bytes; left as they are where none). The map is not empty. */
static ptrdiff_t
walk(const CharsMap *t, const unsigned char *key, ptrdiff_t length, uint32_t *value, ptrdiff_t *found)
{
    int64_t position = unit_offset(t->units[0]);
    ptrdiff_t i = 0;
    for (; i < length && key[i]; i++) {
        position ^= key[i];
        if (position < 0 || position >= t->n_units) break;
        uint32_t unit = t->units[position];
        if ((unit & ((1u << 31) | 0xFFu)) != key[i]) break;
        position ^= unit_offset(unit);
        if ((unit >> 8) & 1 && position >= 0 && position < t->n_units) {
            *value = t->units[position] & 0x7FFFFFFFu;
            *found = i + 1;
        }
    }
    return i;
}

/* The shortcuts of the walk (see CharsMap). */
static void
index_starts(CharsMap *t)
{
    uint32_t value;
    ptrdiff_t found;
    for (int c = 1; c < 128 && t->n_units; c++) { /* the walk stops at NUL */
        unsigned char key[2] = {(unsigned char)c, 0};
        found = 0;
        walk(t, key, 1, &value, &found);
        t->keyed[c] = found == 1;
        for (int d = 1; d < 128; d++) {
            key[1] = (unsigned char)d;
            if (walk(t, key, 2, &value, &found) == 2) t->pairs[c][d / 8] |= (unsigned char)(1u << (d % 8));
        }
    }
    for (uint32_t c = 128; c < 0x10000 && t->n_units; c++) {
        unsigned char bytes[4];
        int size = utf8_of(c, bytes);
        if (walk(t, bytes, size, &value, &found) == size) t->begins_key[c / 8] |= (unsigned char)(1u << (c % 8));
    }
}

int
charsmap_init(CharsMap *t, const unsigned char *units, size_t units_bytes, const unsigned char *replacements, size_t n)
{
    memset(t, 0, sizeof(*t));
    if (units_bytes % 4) return -2;
    t->n_units = (ptrdiff_t)(units_bytes / 4);
    t->units = malloc(sizeof(uint32_t) * (units_bytes / 4 + 1));
    t->replacements = malloc(n + 1);
    if (!t->units || !t->replacements) return charsmap_free(t), -1;
    for (ptrdiff_t i = 0; i < t->n_units; i++)
        t->units[i] = (uint32_t)units[4 * i] | (uint32_t)units[4 * i + 1] << 8 | (uint32_t)units[4 * i + 2] << 16 |
                      (uint32_t)units[4 * i + 3] << 24;
    if (n) memcpy(t->replacements, replacements, n);
    t->n_replacements = (ptrdiff_t)n;
    index_starts(t);
    return 0;
}

void
charsmap_free(CharsMap *t)
{
    free(t->units);
    free(t->replacements);
    memset(t, 0, sizeof(*t));
}

void
charsmap_scratch_free(CharsMapScratch *s)
{
    free(s->out);
    free(s->starts);
    free(s->ends);
    free(s->pool);
    memset(s, 0, sizeof(*s));
}

/* *buffer reallocated to hold at least `needed` elements of `width` bytes; -1 when out of memory. */
static int
fit(void **buffer, ptrdiff_t *capacity, ptrdiff_t needed, size_t width)
{
    if (needed <= *capacity) return 0;
    ptrdiff_t grown = needed > 2 * *capacity ? needed : 2 * *capacity;
    void *moved = realloc(*buffer, (size_t)grown * width);
    if (!moved) return -1;
    *buffer = moved;
    *capacity = grown;
    return 0;
}

/* The replacement the map's value points to, decoded into the pool (its length in s->pool_length); -1
 * when out of memory. */
static int
decode_replacement(const CharsMap *t, uint32_t value, CharsMapScratch *s)
{
    size_t start = value < (uint64_t)t->n_replacements ? value : (size_t)t->n_replacements;
    const unsigned char *text = t->replacements + start;
    const unsigned char *end = memchr(text, 0, (size_t)t->n_replacements - start);
    size_t bytes = end ? (size_t)(end - text) : (size_t)t->n_replacements - start;
    if (fit((void **)&s->pool, &s->pool_capacity, (ptrdiff_t)bytes, sizeof(uint32_t)) < 0) return -1;
    s->pool_length = 0;
    for (size_t i = 0; i < bytes;) {
        int size;
        uint32_t c = utf8_next(text, bytes, i, &size);
        s->pool[s->pool_length++] = c >= 0xDC80 && c <= 0xDCFF && size == 1 ? 0xFFFD : c;
        i += (size_t)size;
    }
    return 0;
}

/* The symbol of the rules that starts at position p of the text, as its length (0: none). */
static ptrdiff_t
symbol_at(const CharsMapRules *rules, const CodePoints *in, ptrdiff_t p)
{
    for (ptrdiff_t k = 0; k < rules->n_symbols; k++) {
        const CodePoints *symbol = &rules->symbols[k];
        if (symbol->length == 0 || symbol->length > in->length - p) continue;
        ptrdiff_t i = 0;
        while (i < symbol->length &&
               code_point_at(symbol->kind, symbol->data, i) == code_point_at(in->kind, in->data, p + i))
            i++;
        if (i == symbol->length) return symbol->length;
    }
    return 0;
}

/* Whether the character at p is surely kept as it is (see CharsMap's shortcuts). */
static inline int
kept_char(const CharsMap *t, const CodePoints *in, ptrdiff_t p)
{
    uint32_t c = code_point_at(in->kind, in->data, p);
    if (c >= 128) return c < 0x10000 && !(t->begins_key[c / 8] >> (c % 8) & 1);
    if (t->keyed[c]) return 0;
    if (p + 1 == in->length) return 1;
    uint32_t d = code_point_at(in->kind, in->data, p + 1);
    return d < 128 && d && !(t->pairs[c][d / 8] >> (d % 8) & 1);
}

typedef struct {
    ptrdiff_t start, end; /* input characters [start, end) */
    ptrdiff_t length;     /* the code points they become */
    int replaced;         /* they become the map's replacement, decoded in the scratch's pool */
    int kept;             /* characters kept one by one (each stands for itself) */
} Step;

/* The step after `step`: a user-defined symbol, a run of characters surely kept, the longest key of the
 * map that covers whole characters (the trie is offered the UTF-8 of the next CHARSMAP_WINDOW), or one
 * character. -1 when out of memory. */
static inline __attribute__((always_inline)) int
next_step(const CharsMap *t, const CharsMapRules *rules, const CodePoints *in, CharsMapScratch *s, Step *step)
{
    ptrdiff_t n = in->length, p = step->end;
    *step = (Step){p, p + 1, 1, 0, 0};
    ptrdiff_t symbol = symbol_at(rules, in, p);
    if (symbol) {
        step->end = p + symbol;
    } else if (rules->n_symbols == 0 && kept_char(t, in, p)) {
        /* a run of such characters other than spaces is one step that keeps them */
        step->kept = 1;
        if (code_point_at(in->kind, in->data, p) != SPACE)
            while (step->end < n && code_point_at(in->kind, in->data, step->end) != SPACE && kept_char(t, in, step->end))
                step->end++;
    } else if (t->n_units) {
        unsigned char utf8[4 * CHARSMAP_WINDOW];
        ptrdiff_t ends[CHARSMAP_WINDOW], chars = n - p < CHARSMAP_WINDOW ? n - p : CHARSMAP_WINDOW;
        ptrdiff_t bytes = 0, matched = 0, whole = 0;
        for (ptrdiff_t k = 0; k < chars; k++) {
            bytes += utf8_of(code_point_at(in->kind, in->data, p + k), utf8 + bytes);
            ends[k] = bytes;
        }
        uint32_t value = 0;
        walk(t, utf8, bytes, &value, &matched);
        while (matched && whole < chars && ends[whole] < matched) whole++;
        if (matched && whole < chars && ends[whole] == matched) { /* it ends where a character ends */
            if (decode_replacement(t, value, s) < 0) return -1;
            *step = (Step){p, p + whole + 1, s->pool_length, 1, 0};
            return 0;
        }
    }
    step->length = step->end - step->start;
    return 0;
}

static inline uint32_t
step_char(const Step *step, const CodePoints *in, const CharsMapScratch *s, ptrdiff_t k)
{
    return step->replaced ? s->pool[k] : code_point_at(in->kind, in->data, step->start + k);
}

/* charsmap_normalize, one copy for each storage kind (the code point reads inlined) */
static inline __attribute__((always_inline)) ptrdiff_t
normalize_of_kind(const CharsMap *t, const CharsMapRules *rules, const CodePoints *text, const int kind,
                  ptrdiff_t limit, int spans, CharsMapScratch *s)
{
    const CodePoints *in = &(CodePoints){kind, text->data, text->length};
    int started = 0, previous_space = rules->remove_extra;
    uint32_t space = rules->escape ? ESCAPED_SPACE : SPACE;
    ptrdiff_t used = 0, mapped = 0;
    Step step = {0, 0, 0, 0, 0};
    while (step.end < in->length) {
        if (next_step(t, rules, in, s, &step) < 0) return -1;
        if ((mapped += step.length) > limit) return -2;
        if (!started && rules->remove_extra && step.length == 1 && step_char(&step, in, s, 0) == SPACE) continue;
        ptrdiff_t room = used + step.length + 1; /* and the dummy prefix */
        if (fit((void **)&s->out, &s->out_capacity, room, sizeof(uint32_t)) < 0 ||
            (spans && (fit((void **)&s->starts, &s->starts_capacity, room, sizeof(int64_t)) < 0 ||
                       fit((void **)&s->ends, &s->ends_capacity, room, sizeof(int64_t)) < 0)))
            return -1;
        if (!started && rules->dummy_prefix) {
            if (spans) s->starts[used] = s->ends[used] = step.start;
            s->out[used++] = space;
        }
        started = 1;
        ptrdiff_t i = 0;
        if (previous_space)
            while (i < step.length && step_char(&step, in, s, i) == SPACE) i++;
        if (i < step.length) {
            for (; i < step.length; i++) {
                uint32_t c = step_char(&step, in, s, i);
                if (spans) { /* a replacement stands for all it replaced; kept characters for themselves */
                    s->starts[used] = step.kept ? step.start + i : step.start;
                    s->ends[used] = step.kept ? step.start + i + 1 : step.end;
                }
                s->out[used++] = c == SPACE && rules->escape ? ESCAPED_SPACE : c;
            }
            previous_space = step_char(&step, in, s, step.length - 1) == SPACE;
        }
        if (!rules->remove_extra) previous_space = 0;
    }
    if (rules->remove_extra)
        while (used > 0 && s->out[used - 1] == space) used--;
    return used;
}

ptrdiff_t
charsmap_normalize(const CharsMap *t, const CharsMapRules *rules, const CodePoints *in, ptrdiff_t limit, int spans,
                   CharsMapScratch *s)
{
    if (in->kind == 1) return normalize_of_kind(t, rules, in, 1, limit, spans, s);
    if (in->kind == 2) return normalize_of_kind(t, rules, in, 2, limit, spans, s);
    return normalize_of_kind(t, rules, in, 4, limit, spans, s);
}
