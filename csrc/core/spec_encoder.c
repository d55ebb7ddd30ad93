/* csrc/core/spec_encoder.c: a text encoded by a description read into a SpecEncoder (see spec_encoder.h). */
#include "spec_encoder.h"

#include <stdlib.h>
#include <string.h>

#include "utf8.h"

/* ------------------------------------------------------------------------------------------------ */
/* Encoding                                                                                         */

/* The word's code point when it is one ASCII character (the cache's singles), else -1. */
static int
single_of(const CodePoints *word)
{
    if (word->length != 1) return -1;
    uint32_t c = code_point_at(word->kind, word->data, 0);
    return c < SPEC_SINGLES ? (int)c : -1;
}

/* The ids out[first ..] of `word` (hash h) put in the scratch's cache, emptied first when full. */
static int
remember(SpecScratch *s, const CodePoints *word, uint64_t h, const Int64s *out, ptrdiff_t first)
{
    ptrdiff_t count = out->length - first;
    if (s->cache_ready && (s->words.used >= SPEC_CACHE_WORDS || s->word_ids.length + count + 1 > SPEC_CACHE_IDS)) {
        piece_map_free(&s->words);
        s->word_ids.length = 0;
        memset(s->singles, 0, sizeof(s->singles));
        s->cache_ready = 0;
    }
    if (!s->cache_ready) {
        if (piece_map_init(&s->words, 4096) < 0) return -1;
        s->cache_ready = 1;
    }
    int64_t value; /* one id (most words): kept as -1 - id; else the place of the count and the ids */
    if (count == 1) {
        value = -1 - out->data[first];
    } else {
        value = s->word_ids.length;
        if (int64s_reserve(&s->word_ids, count + 1) < 0) return -1;
        s->word_ids.data[s->word_ids.length++] = count;
        for (ptrdiff_t k = first; k < out->length; k++) s->word_ids.data[s->word_ids.length++] = out->data[k];
    }
    int single = single_of(word);
    if (single >= 0) {
        s->singles[single] = value < 0 ? value : value + 1;
        return 0;
    }
    return piece_map_add(&s->words, word, h, value) < 0 ? -1 : 0;
}

/* A cached word's ids (its value in the cache) appended to `out`. */
static inline int
recall(const SpecScratch *s, int64_t value, Int64s *out)
{
    if (value < 0) return int64s_push(out, -1 - value);
    const int64_t *record = s->word_ids.data + value;
    if (int64s_reserve(out, record[0]) < 0) return -1;
    for (int64_t k = 1; k <= record[0]; k++) out->data[out->length++] = record[k];
    return 0;
}

/* A word splitter's word: its UTF-8 appended to s->utf8, its end there to `out`. */
static int
split_word(const CodePoints *word, Int64s *out, SpecScratch *s)
{
    ptrdiff_t needed = s->utf8_length + 4 * word->length;
    if (needed > s->utf8_capacity) {
        ptrdiff_t capacity = s->utf8_capacity ? s->utf8_capacity : 4096;
        while (capacity < needed) capacity *= 2;
        unsigned char *grown = realloc(s->utf8, (size_t)capacity);
        if (!grown) return -1;
        s->utf8 = grown;
        s->utf8_capacity = capacity;
    }
    for (ptrdiff_t i = 0; i < word->length; i++)
        s->utf8_length += utf8_of(code_point_at(word->kind, word->data, i), s->utf8 + s->utf8_length);
    return int64s_push(out, s->utf8_length);
}

/* A word the cache lacks (hash h): the model's ids appended to `out`, then remembered; out of line, to
 * keep encode_word, which serves cached words, light. */
static __attribute__((noinline)) int
model_ids(const SpecEncoder *e, const CodePoints *word, uint64_t h, Int64s *out, SpecScratch *s)
{
    ptrdiff_t first = out->length, unknown_at;
    if (e->model_kind == SPEC_MODEL_UNIGRAM) {
        int status = unigram_ids(&e->unigram, &s->path, word, out, &unknown_at);
        if (status) return status;
        return remember(s, word, h, out, first);
    }
    if (e->model_kind == SPEC_MODEL_BPE) {
        int status = bpe_word_ids(&e->bpe, &e->ranks, NULL, word, out);
        if (status) return status;
        return remember(s, word, h, out, first);
    }
    s->slots.length = 0;
    int unknown = wordpiece_segment(&e->wordpiece, word, &s->slots);
    if (unknown < 0) return -1;
    if (unknown) {
        if (e->unk < 0) return SPEC_NO_PIECE;
        if (int64s_push(out, e->unk) < 0) return -1;
    } else {
        if (int64s_reserve(out, s->slots.length) < 0) return -1;
        for (ptrdiff_t k = 0; k < s->slots.length; k++) out->data[out->length++] = e->piece_ids[s->slots.data[k]];
    }
    return remember(s, word, h, out, first);
}

/* The ids of one word (not empty, hash h: code_points_hash) appended to `out`: its id in a word lookup;
 * its ids in the cache, else the model's. */
static inline int
encode_word(const SpecEncoder *e, const CodePoints *word, uint64_t h, Int64s *out, SpecScratch *s)
{
    if (e->model_kind == SPEC_MODEL_SPLIT) return split_word(word, out, s);
    int single = s->cache_ready ? single_of(word) : -1;
    if (single >= 0 && s->singles[single]) {
        int64_t value = s->singles[single];
        return recall(s, value < 0 ? value : value - 1, out);
    }
    if (e->model_kind == SPEC_MODEL_WORDS) {
        const int64_t *id = piece_map_get(&e->words, word, h);
        if (id) return int64s_push(out, *id);
        return e->unk < 0 ? 0 : int64s_push(out, e->unk);
    }
    const int64_t *value = single < 0 && s->cache_ready ? piece_map_get(&s->words, word, h) : NULL;
    return value ? recall(s, *value, out) : model_ids(e, word, h, out, s);
}

/* A word's hash for encode_word: none for a word splitter, which copies its words out unlooked-up. */
static inline uint64_t
word_hash(const SpecEncoder *e, const CodePoints *word)
{
    return e->model_kind == SPEC_MODEL_SPLIT ? 0 : code_points_hash(word);
}

/* cps with the pre-tokenizer's prefix before it, unless it is empty or starts with the prefix (then
 * cps itself); NULL when out of memory. */
static const uint32_t *
prefixed(const SpecEncoder *e, const uint32_t *cps, ptrdiff_t *n, SpecScratch *s)
{
    if (!e->piece_prefix || *n == 0) return cps;
    size_t prefix_bytes = sizeof(uint32_t) * (size_t)e->piece_prefix_length;
    if (*n >= e->piece_prefix_length && !memcmp(cps, e->piece_prefix, prefix_bytes)) return cps;
    ptrdiff_t length = *n + e->piece_prefix_length;
    if (code_points_reserve(&s->prefixed, &s->prefixed_capacity, length) < 0) return NULL;
    memcpy(s->prefixed, e->piece_prefix, sizeof(uint32_t) * (size_t)e->piece_prefix_length);
    memcpy(s->prefixed + e->piece_prefix_length, cps, sizeof(uint32_t) * (size_t)*n);
    *n = length;
    return s->prefixed;
}

/* Words found, then encoded, together by encode_class_runs. */
#define CLASS_RUNS_BATCH 64

/* The ids of the class runs of cps[0 .. n), CLASS_RUNS_BATCH words at a time: each word's first slot in
 * the map it is looked up in (the vocabulary of a word lookup, else the word cache) fetched as the word
 * is found, then the words encoded in order. A big cache's slots are then on their way while the rest
 * of the batch is read, rather than fetched one at a time as each word is looked up; a batch costs
 * more instructions than a word at a time, and pays where the map is out of the cache (between the
 * layer's batches, whose outputs take its place). A word the model encodes may empty the cache: the
 * later words of its batch were then fetched for nothing. */
static int
encode_class_runs(const SpecEncoder *e, const uint32_t *cps, ptrdiff_t n, Int64s *out, SpecScratch *s)
{
    ptrdiff_t start, end = 0;
    if (e->model_kind == SPEC_MODEL_SPLIT) {
        while ((end = class_run_next(&e->classes, cps, n, end, &start, NULL)) > start) {
            CodePoints word = {4, cps + start, end - start};
            int status = encode_word(e, &word, 0, out, s);
            if (status) return status;
        }
        return 0;
    }
    ptrdiff_t starts[CLASS_RUNS_BATCH], ends[CLASS_RUNS_BATCH];
    uint64_t hashes[CLASS_RUNS_BATCH];
    int found;
    do {
        const PieceMap *map = e->model_kind == SPEC_MODEL_WORDS ? &e->words : s->cache_ready ? &s->words : NULL;
        uint64_t h;
        for (found = 0; found < CLASS_RUNS_BATCH; found++) {
            end = class_run_next(&e->classes, cps, n, end, &start, &h);
            if (end == start) break;
            starts[found] = start, ends[found] = end, hashes[found] = h;
            if (map) piece_map_prefetch(map, h);
        }
        for (int k = 0; k < found; k++) {
            CodePoints word = {4, cps + starts[k], ends[k] - starts[k]};
            int status = encode_word(e, &word, hashes[k], out, s);
            if (status) return status;
        }
    } while (found == CLASS_RUNS_BATCH);
    return 0;
}

/* Words probed together by lookup_words. */
#define LOOKUP_BATCH 64
#define LOOKUP_REPLACED 3 /* lookup_latin1_plain's: a code point has a longer replacement */

typedef struct {
    ptrdiff_t at, length; /* its code points in s->word */
    uint64_t hash;
} LookupWord;

/* The ids of words[0 .. n) (code points in `buffer`), whose first slots are being fetched: the keys
 * they name fetched too, then each probed; each word's id, the unknown id, or none without one. */
static __attribute__((noinline)) int
probe_words(const SpecEncoder *e, const LookupWord *words, int n, const uint32_t *buffer, Int64s *out)
{
    if (int64s_reserve(out, n) < 0) return -1;
    for (int k = 0; k < n; k++) piece_map_prefetch_key(&e->words, words[k].hash);
    for (int k = 0; k < n; k++) {
        const int64_t *id = piece_map_get_read_ahead(&e->words, buffer + words[k].at, words[k].length, words[k].hash);
        if (id || e->unk >= 0) out->data[out->length++] = id ? *id : e->unk;
    }
    return 0;
}

/* A word lookup's reading of a text: its words are read into `buffer`, hashed as they are read. */
typedef struct {
    int run;          /* the class of the word being read (0: none; -1: a word of its own, which ends) */
    int n_words;      /* words read, not yet probed */
    uint32_t *buffer; /* their code points (s->word) */
    ptrdiff_t used, start; /* the one being read: buffer[start .. used) */
    uint64_t hash;
} LookupRun;

/* The word being read ends: it joins words[0 .. r->n_words), which are probed (and the buffer emptied)
 * when they are LOOKUP_BATCH. */
static inline int
lookup_word_ends(const SpecEncoder *e, LookupRun *r, LookupWord *words, Int64s *out)
{
    ptrdiff_t length = r->used - r->start;
    words[r->n_words] = (LookupWord){r->start, length, hash_end(r->hash, length)};
    piece_map_prefetch(&e->words, words[r->n_words++].hash);
    if (r->n_words < LOOKUP_BATCH) return 0;
    r->n_words = 0;
    r->used = 0;
    return probe_words(e, words, LOOKUP_BATCH, r->buffer, out);
}

/* The next code point m of the mapped text, of class cls: it ends the word being read or continues it. */
static inline int
lookup_read(const SpecEncoder *e, LookupRun *r, LookupWord *words, uint32_t m, int cls, Int64s *out)
{
    if (cls != r->run) {
        if (r->run && lookup_word_ends(e, r, words, out) < 0) return -1;
        r->run = cls == 1 ? -1 : cls;
        r->start = r->used;
        r->hash = FNV_OFFSET;
        if (!cls) return 0;
    }
    r->buffer[r->used++] = m;
    r->hash = hash_step(r->hash, m);
    return 0;
}

/* encode_class_runs for a word lookup (SPEC_MODEL_WORDS, which keeps no word cache), with the text
 * mapped by `map` (NULL: none) on the way, in one pass over it: each code point's mapping and class read
 * (at once from e->lookup_bytes below 0x100), the class runs copied to s->word and hashed as they are
 * read. Words are probed LOOKUP_BATCH at a time, their slots and keys in the vocabulary fetched ahead of
 * the probes, so a big vocabulary's cache misses overlap. s->word keeps room for the code points left to
 * read, one each, and PIECE_MAP_READ_AHEAD more, and grows before a longer replacement; a map gives at
 * most SPEC_GROWTH code points per code point, so the text cannot grow past its bound. */
static inline __attribute__((always_inline)) int
lookup_words_of_kind(const SpecEncoder *e, const CodePoints *text, int kind, const CharMap *map, Int64s *out,
                     SpecScratch *s)
{
    LookupWord words[LOOKUP_BATCH];
    const uint32_t *pool = map ? map->pool : NULL, *bytes = e->lookup_bytes[map != NULL];
    const void *data = text->data;
    ptrdiff_t n = text->length;
    if (code_points_reserve(&s->word, &s->word_capacity, n + PIECE_MAP_READ_AHEAD) < 0) return -1;
    LookupRun r = {0, 0, s->word, 0, 0, FNV_OFFSET};
    for (ptrdiff_t i = 0; i < n; i++) {
        uint32_t c = code_point_at(kind, data, i), entry = CHAR_SAME, byte = c < 0x100 ? bytes[c] : SPEC_BYTE_OTHER;
        if (byte < SPEC_BYTE_DROPPED && lookup_read(e, &r, words, byte & 0xff, (int)(byte >> 8), out) < 0) return -1;
        if (byte <= SPEC_BYTE_DROPPED) continue;
        if (map && c == 0x3A3 && map->final_sigma) c = char_map_sigma(map, text, i);
        else if (map && c < 0x110000) entry = map->entries[(size_t)map->page_of[c >> 8] * 256 + (c & 0xff)];
        if (entry != CHAR_SAME && pool[entry] != 1) { /* none, or a longer replacement */
            uint32_t size = pool[entry];
            ptrdiff_t room = r.used + (ptrdiff_t)size + (n - i - 1) + PIECE_MAP_READ_AHEAD;
            if (room > s->word_capacity) {
                if (code_points_reserve(&s->word, &s->word_capacity, room) < 0) return -1;
                r.buffer = s->word;
            }
            for (uint32_t k = 0; k < size; k++) {
                uint32_t m = pool[entry + 1 + k];
                if (lookup_read(e, &r, words, m, class_of_code_point(&e->classes, m), out) < 0) return -1;
            }
            continue;
        }
        if (entry != CHAR_SAME) c = pool[entry + 1];
        if (lookup_read(e, &r, words, c, class_of_code_point(&e->classes, c), out) < 0) return -1;
    }
    if (r.run && lookup_word_ends(e, &r, words, out) < 0) return -1;
    return probe_words(e, words, r.n_words, r.buffer, out);
}

/* lookup_words_of_kind for a text of kind 1 read from `bytes` (e->lookup_bytes) alone, in a loop of its
 * own: a word's first code point found, the rest of its run is read in an inner loop that holds nothing
 * but each code point's entry, its class and the copy and hash. LOOKUP_REPLACED at a code point with a
 * longer replacement: the text is then read again by lookup_words_of_kind. */
static __attribute__((noinline)) int
lookup_latin1_plain(const SpecEncoder *e, const uint8_t *text, ptrdiff_t n, const uint32_t *bytes, Int64s *out,
                    SpecScratch *s)
{
    LookupWord words[LOOKUP_BATCH];
    if (code_points_reserve(&s->word, &s->word_capacity, n + PIECE_MAP_READ_AHEAD) < 0) return -1;
    LookupRun r = {0, 0, s->word, 0, 0, FNV_OFFSET};
    for (ptrdiff_t i = 0; i < n;) {
        uint32_t entry = bytes[text[i++]], cls = entry >> 8;
        if (entry >= SPEC_BYTE_DROPPED) {
            if (entry != SPEC_BYTE_DROPPED) return LOOKUP_REPLACED;
            continue;
        }
        if (!cls) continue;
        r.start = r.used;
        r.hash = hash_step(FNV_OFFSET, entry & 0xff);
        r.buffer[r.used++] = entry & 0xff;
        if (cls > 1) /* a class of runs: the run goes on, past dropped code points, to one of another class */
            for (; i < n; i++) {
                entry = bytes[text[i]];
                if (entry >> 8 != cls) {
                    if (entry == SPEC_BYTE_DROPPED) continue;
                    break;
                }
                r.hash = hash_step(r.hash, entry & 0xff);
                r.buffer[r.used++] = entry & 0xff;
            }
        if (lookup_word_ends(e, &r, words, out) < 0) return -1;
    }
    return probe_words(e, words, r.n_words, r.buffer, out);
}

/* A text of kind 1: lookup_latin1_plain, or lookup_words_of_kind when a code point of it has a longer
 * replacement. */
static int
lookup_latin1(const SpecEncoder *e, const CodePoints *text, const CharMap *map, Int64s *out, SpecScratch *s)
{
    ptrdiff_t first = out->length;
    int status = lookup_latin1_plain(e, text->data, text->length, e->lookup_bytes[map != NULL], out, s);
    if (status != LOOKUP_REPLACED) return status;
    out->length = first;
    return lookup_words_of_kind(e, text, 1, map, out, s);
}

/* lookup_words_of_kind with the storage kind a constant, so that each kind's loop reads it directly. */
static int
lookup_words(const SpecEncoder *e, const CodePoints *text, const CharMap *map, Int64s *out, SpecScratch *s)
{
    if (text->kind == 1) return lookup_latin1(e, text, map, out, s);
    if (text->kind == 2) return lookup_words_of_kind(e, text, 2, map, out, s);
    return lookup_words_of_kind(e, text, 4, map, out, s);
}

/* A word of jieba's: its ids, or with map_words those of the class runs of the word mapped (s->normalized
 * is free for it: the parts are not mapped then). */
static int
encode_jieba_word(const SpecEncoder *e, const uint32_t *cps, ptrdiff_t n, Int64s *out, SpecScratch *s)
{
    CodePoints word = {4, cps, n};
    if (!e->map_words) return encode_word(e, &word, word_hash(e, &word), out, s);
    if (!e->has_map) return encode_class_runs(e, cps, n, out, s);
    n = char_map_apply(&e->map, cps, n, SPEC_GROWTH * n, &s->normalized, &s->normalized_capacity);
    if (n < 0) return n == -1 ? -1 : SPEC_GROWS;
    return encode_class_runs(e, s->normalized, n, out, s);
}

/* The ids of jieba's words of cps[0 .. n) (no whole word among them). Full mode may join letters that
 * are not adjacent: such a word's later pieces are joined to it in s->word. */
static int
encode_jieba_cut(const SpecEncoder *e, const uint32_t *cps, ptrdiff_t n, Int64s *out, SpecScratch *s)
{
    s->spans.length = 0;
    if (jieba_cut(&e->jieba, cps, n, &s->spans, &s->jieba) < 0) return -1;
    const int64_t *spans = s->spans.data;
    for (ptrdiff_t k = 0; k < s->spans.length;) {
        ptrdiff_t start = (ptrdiff_t)spans[k], end = (ptrdiff_t)spans[k + 1], length = end - start;
        k += 2;
        if (k >= s->spans.length || spans[k] >= 0) {
            int status = encode_jieba_word(e, cps + start, length, out, s);
            if (status) return status;
            continue;
        }
        if (code_points_reserve(&s->word, &s->word_capacity, length) < 0) return -1;
        memcpy(s->word, cps + start, sizeof(uint32_t) * (size_t)length);
        for (; k < s->spans.length && spans[k] < 0; k += 2) {
            ptrdiff_t from = (ptrdiff_t)(-1 - spans[k]), size = (ptrdiff_t)spans[k + 1] - from;
            if (code_points_reserve(&s->word, &s->word_capacity, length + size) < 0) return -1;
            memcpy(s->word + length, cps + from, sizeof(uint32_t) * (size_t)size);
            length += size;
        }
        int status = encode_jieba_word(e, s->word, length, out, s);
        if (status) return status;
    }
    return 0;
}

typedef int (*EncodeStretch)(const SpecEncoder *, const uint32_t *, ptrdiff_t, Int64s *, SpecScratch *);

/* The ids of cps[0 .. n): the tokens of `matcher` where they occur, each its id (or, with `found`, what
 * found makes of it), and `between` on the rest. */
static int
encode_around(const SpecEncoder *e, const TokenMatcher *matcher, const uint32_t *cps, ptrdiff_t n, Int64s *out,
              SpecScratch *s, EncodeStretch between, EncodeStretch found)
{
    ptrdiff_t position = 0;
    for (;;) {
        ptrdiff_t length = 0;
        int64_t id = 0;
        ptrdiff_t at = token_matcher_find(matcher, cps, position, n, &length, &id);
        if (at > position) {
            int status = between(e, cps + position, at - position, out, s);
            if (status) return status;
        }
        if (at == n) return 0;
        int status = found ? found(e, cps + at, length, out, s) : int64s_push(out, id);
        if (status) return status;
        position = at + length;
    }
}

/* The ids of a piece by jieba: its whole words found first, each one word, jieba cutting the rest. */
static int
encode_jieba(const SpecEncoder *e, const uint32_t *cps, ptrdiff_t n, Int64s *out, SpecScratch *s)
{
    return encode_around(e, &e->whole_words, cps, n, out, s, encode_jieba_cut, encode_jieba_word);
}

/* The ids of the words of cps[0 .. n), a piece between added tokens: class runs, jieba's words, words
 * merged with a delimiter, or the words of an expression, which tile the piece. */
static int
encode_words(const SpecEncoder *e, const uint32_t *cps, ptrdiff_t n, Int64s *out, SpecScratch *s)
{
    cps = prefixed(e, cps, &n, s);
    if (!cps) return -1;
    CodePoints text = {4, cps, n};
    if (e->expression == SPEC_WHOLE_PIECES) { /* one word: a whole text is rarely seen again, so not cached */
        ptrdiff_t unknown_at;
        return n == 0 ? 0 : unigram_ids(&e->unigram, &s->path, &text, out, &unknown_at);
    }
    if (e->expression == SPEC_JIEBA) return encode_jieba(e, cps, n, out, s);
    if (e->expression) {
        ExpressionText view = {e->classes.classes, e->classes.n_classes, 4, cps, n};
        for (ptrdiff_t i = 0; i < n;) {
            ptrdiff_t end = e->expression == SPEC_MERGED_NEXT       ? class_merged_word_end(&e->classes, &text, i, CLASS_MERGE_NEXT)
                            : e->expression == SPEC_MERGED_PREVIOUS ? class_merged_word_end(&e->classes, &text, i, CLASS_MERGE_PREVIOUS)
                                                                    : expression_word_end(e->expression, &view, i);
            CodePoints word = code_points_slice(&text, i, end - i);
            int status = encode_word(e, &word, word_hash(e, &word), out, s);
            if (status) return status;
            i = end;
        }
        return 0;
    }
    if (e->model_kind == SPEC_MODEL_WORDS) return lookup_words(e, &text, NULL, out, s);
    return encode_class_runs(e, cps, n, out, s);
}

/* A part of the raw text between special tokens: normalized, then split at added tokens. */
static int
encode_part(const SpecEncoder *e, const uint32_t *cps, ptrdiff_t n, Int64s *out, SpecScratch *s)
{
    ptrdiff_t before = n > 0 ? e->part_prefix_length : 0, limit = SPEC_GROWTH * n;
    int mapped = e->has_map && !e->map_words; /* with map_words the map is jieba's words' */
    if (e->symbols) { /* sentencepiece's normalizer */
        n = charsmap_normalize(&e->charsmap, &e->rules, &(CodePoints){4, cps, n}, limit, 0, &s->charsmap);
        if (n < 0) return n == -1 ? -1 : SPEC_GROWS;
        cps = s->charsmap.out;
    } else if (mapped && e->reorders) { /* decomposed, ordered, composed (each O(n log n) at worst), mapped again */
        n = char_map_apply(&e->map, cps, n, limit, &s->decomposed, &s->decomposed_capacity);
        if (n < 0) return n == -1 ? -1 : SPEC_GROWS;
        if (canonical_order(&e->combining, s->decomposed, n, &s->marks, &s->marks_capacity) < 0) return -1;
        n = canonical_compose(&e->compositions, &e->combining, s->decomposed, n);
        n = char_map_apply(&e->after_map, s->decomposed, n, limit, &s->normalized, &s->normalized_capacity);
        if (n < 0) return n == -1 ? -1 : SPEC_GROWS;
        cps = s->normalized;
    } else if (mapped) {
        n = char_map_apply(&e->map, cps, n, limit, &s->normalized, &s->normalized_capacity);
        if (n < 0) return n == -1 ? -1 : SPEC_GROWS;
        cps = s->normalized;
    }
    if (before > 0) { /* the prefix, then the mapped part, in s->normalized */
        if (code_points_reserve(&s->normalized, &s->normalized_capacity, before + n) < 0) return -1;
        memmove(s->normalized + before, mapped ? s->normalized : cps, sizeof(uint32_t) * (size_t)n);
        memcpy(s->normalized, e->part_prefix, sizeof(uint32_t) * (size_t)before);
        cps = s->normalized;
        n += before;
    }
    return encode_around(e, &e->added, cps, n, out, s, encode_words, NULL);
}

/* out[first ..] through the id map, the dropped ones left out */
static void
map_ids(const SpecEncoder *e, Int64s *out, ptrdiff_t first)
{
    ptrdiff_t kept = first;
    for (ptrdiff_t k = first; k < out->length; k++) {
        int64_t id = out->data[k];
        int64_t mapped = id >= 0 && id < e->id_map.length ? e->id_map.data[id] : e->past_map;
        if (mapped >= 0) out->data[kept++] = mapped;
    }
    out->length = kept;
}

/* Whether a text's words are looked up straight from it: a word lookup over class runs, the normalizer
 * none or a character map, and no token, prefix or stage between them. */
static int
looks_up_words_directly(const SpecEncoder *e)
{
    return e->model_kind == SPEC_MODEL_WORDS && !e->expression && !e->piece_prefix && !e->special.n_tokens &&
           !e->added.n_tokens && !e->part_prefix_length && !e->symbols && !e->reorders && !e->map_words;
}

int
spec_encode_code_points(const SpecEncoder *e, const CodePoints *text, Int64s *out, SpecScratch *s)
{
    ptrdiff_t first = out->length, n = text->length;
    if (int64s_extend(out, &e->prefix) < 0) return -1;
    int status;
    if (looks_up_words_directly(e)) {
        status = lookup_words(e, text, e->has_map ? &e->map : NULL, out, s);
    } else {
        const uint32_t *cps = text->data;
        if (text->kind != 4) {
            if (code_points_reserve(&s->text, &s->text_capacity, n) < 0) return -1;
            /* text's fields read once (a store to s->text could alias them): each kind's copy vectorizes */
            const void *data = text->data;
            for (ptrdiff_t i = 0, kind = text->kind; i < n; i++) s->text[i] = code_point_at((int)kind, data, i);
            cps = s->text;
        }
        status = encode_around(e, &e->special, cps, n, out, s, encode_part, NULL);
    }
    if (status) return status;
    if (int64s_extend(out, &e->suffix) < 0) return -1;
    if (e->has_id_map) map_ids(e, out, first);
    return 0;
}

int
spec_encode(const SpecEncoder *e, const unsigned char *text, size_t n, Int64s *out, SpecScratch *s)
{
    if (code_points_reserve(&s->text, &s->text_capacity, (ptrdiff_t)n) < 0) return -1;
    ptrdiff_t length = 0;
    for (size_t i = 0; i < n;) {
        int size = 1;
        s->text[length++] = text[i] < 0x80 ? text[i] : utf8_next(text, n, i, &size);
        i += (size_t)size;
    }
    return spec_encode_code_points(e, &(CodePoints){4, s->text, length}, out, s);
}
