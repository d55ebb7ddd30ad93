/* csrc/core/spec_encoder.c: see spec_encoder.h. */
#include "spec_encoder.h"

#include <stdlib.h>
#include <string.h>

#include "spec_reader.h"
#include "utf8.h"

/* ------------------------------------------------------------------------------------------------ */
/* Reading the description (spec_reader.h checks every read against the end)                      */

#define ENTRY_SIZE 16 /* the smallest entry: one code point and its id, with the length */

static int
add_token(void *matcher, const CodePoints *token, int64_t id, uint32_t i)
{
    (void)i;
    return token_matcher_add(matcher, token->data, token->length, id);
}

static int
add_to_map(void *map, const CodePoints *key, int64_t id, uint32_t i)
{
    (void)i;
    return piece_map_add(map, key, code_points_hash(key), id) < 0 ? -1 : 0;
}

static void
read_tokens(Reader *r, TokenMatcher *matcher)
{
    uint32_t n = read_count(r, ENTRY_SIZE);
    if (r->error) return;
    if (token_matcher_init(matcher, n) < 0) {
        r->error = "out of memory";
        return;
    }
    read_entries(r, n, add_token, matcher);
    token_matcher_ready(matcher);
}

/* u32 n, then the n entries into a new map (not made on error) */
static void
read_map(Reader *r, PieceMap *map, int *made)
{
    uint32_t n = read_count(r, ENTRY_SIZE);
    if (r->error) return;
    if (piece_map_init(map, n) < 0) {
        r->error = "out of memory";
        return;
    }
    *made = 1;
    read_entries(r, n, add_to_map, map);
}

static void
read_ids(Reader *r, Int64s *ids)
{
    uint32_t n = read_count(r, 8);
    for (uint32_t i = 0; i < n && !r->error; i++)
        if (int64s_push(ids, read_id(r)) < 0) r->error = "out of memory";
}

/* u32 n, then n [first, last] pairs */
static uint32_t *
read_ranges(Reader *r, size_t *n)
{
    *n = read_count(r, 8);
    return r->error ? NULL : read_u32s(r, *n * 2);
}

static void
read_char_map(Reader *r, CharMap *map)
{
    map->n_pages = read_u32(r);
    for (size_t p = 0; p < CHAR_PAGES; p++) map->page_of[p] = read_u32(r);
    if (!r->error && map->n_pages > CHAR_PAGES) r->error = "the character map has too many pages";
    map->entries = r->error ? NULL : read_u32s(r, map->n_pages * 256);
    map->pool_length = read_u32(r);
    map->pool = r->error ? NULL : read_u32s(r, map->pool_length);
    if (map->final_sigma) {
        map->cased = read_ranges(r, &map->n_cased);
        map->ignorable = r->error ? NULL : read_ranges(r, &map->n_ignorable);
    }
    if (!r->error) r->error = char_map_check(map);
}

/* sentencepiece's normalizer (see spec_encoder.h): its rules, its map, its user-defined symbols */
static void
read_charsmap(Reader *r, SpecEncoder *e)
{
    uint32_t rules = read_u32(r), sizes[2];
    const unsigned char *blobs[2]; /* the trie's units, the replacements */
    for (int k = 0; k < 2; k++) {
        sizes[k] = read_count(r, 1);
        blobs[k] = r->at;
        r->at += sizes[k];
    }
    if (!r->error && rules > 7) r->error = "an unknown rule of sentencepiece's normalizer";
    int status = r->error ? 0 : charsmap_init(&e->charsmap, blobs[0], sizes[0], blobs[1], sizes[1]);
    if (status) r->error = status == -1 ? "out of memory" : "the character map's units are not whole u32 values";
    uint32_t n = read_count(r, 8);
    e->symbols = r->error ? NULL : calloc(n ? n : 1, sizeof(CodePoints));
    if (!r->error && !e->symbols) r->error = "out of memory";
    e->rules = (CharsMapRules){e->symbols, 0, rules & 1, rules >> 1 & 1, rules >> 2 & 1};
    for (uint32_t length; e->rules.n_symbols < n && !r->error; e->rules.n_symbols++) { /* freed up to here */
        uint32_t *symbol = read_string(r, &length);
        e->symbols[e->rules.n_symbols] = (CodePoints){4, symbol, symbol ? length : 0};
    }
}

static void
read_words(Reader *r, SpecEncoder *e)
{
    e->unk = read_i64(r);
    if (!r->error && e->unk < -1) r->error = "the id of unknown words is out of range";
    int made = 0;
    read_map(r, &e->words, &made);
    if (made) e->model_kind = SPEC_MODEL_WORDS;
}

typedef struct {
    SpecEncoder *encoder;
    CodePoints continuing_prefix;
} PieceReading;

/* a WordPiece piece: its id kept at its slot, the piece added under it */
static int
add_piece(void *reading, const CodePoints *piece, int64_t id, uint32_t slot)
{
    PieceReading *context = reading;
    context->encoder->piece_ids[slot] = id;
    return wordpiece_add(&context->encoder->wordpiece, piece, &context->continuing_prefix, slot);
}

static void
read_wordpiece(Reader *r, SpecEncoder *e)
{
    int64_t max_chars = read_i64(r);
    e->unk = read_i64(r);
    uint32_t prefix_length = read_u32(r);
    uint32_t *prefix = r->error ? NULL : read_u32s(r, prefix_length);
    uint32_t n = read_count(r, ENTRY_SIZE);
    if (!r->error && (max_chars < 0 || e->unk < -1)) r->error = "the WordPiece limits are out of range";
    if (!r->error) e->piece_ids = malloc(sizeof(int64_t) * (n ? n : 1));
    if (!r->error && (!e->piece_ids || wordpiece_init(&e->wordpiece, n, (ptrdiff_t)max_chars) < 0))
        r->error = "out of memory";
    if (!r->error) {
        e->model_kind = SPEC_MODEL_WORDPIECE;
        PieceReading reading = {e, {4, prefix, prefix_length}};
        read_entries(r, n, add_piece, &reading);
    }
    free(prefix);
}

/* BPE: the merges, then the first symbols' tables (see spec_encoder.h) */
static void
read_bpe(Reader *r, SpecEncoder *e)
{
    uint32_t n_merges = read_count(r, 12);
    if (r->error) return;
    if (bpe_words_init(&e->bpe, 1024) < 0 || pairmap_init(&e->ranks, n_merges) < 0) {
        r->error = "out of memory";
        bpe_words_free(&e->bpe);
        return;
    }
    e->model_kind = SPEC_MODEL_BPE;
    for (uint32_t rank = 0; rank < n_merges && !r->error; rank++) {
        int32_t a = read_id32(r), b = read_id32(r), merged = read_id32(r);
        PairSlot *slot = r->error ? NULL : pairmap_slot(&e->ranks, PAIR(a, b));
        if (slot) slot->value = ((int64_t)rank << 32) | (uint32_t)merged;
        else if (!r->error) r->error = "out of memory";
    }
    uint32_t n_chars = read_count(r, 12);
    for (uint32_t i = 0; i < n_chars && !r->error; i++) {
        uint64_t key = (uint64_t)read_u32(r) | (uint64_t)read_u32(r) << 32;
        int32_t id = read_id32(r);
        if (!r->error && (key >> 32 > 3 || (key & 0xffffffffu) > 0x10FFFF)) r->error = "a BPE symbol is out of range";
        PairSlot *slot = r->error ? NULL : pairmap_slot(&e->bpe.chars, key);
        if (slot) slot->value = id;
        else if (!r->error) r->error = "out of memory";
    }
    e->bpe.byte_fallback = read_u32(r) != 0;
    for (int b = 0; e->bpe.byte_fallback && b < 256 && !r->error; b++) {
        int64_t id = (int32_t)read_u32(r);
        e->bpe.byte_ids[b] = id < 0 ? -1 : (int32_t)id;
    }
    e->bpe.unk_id = read_i64(r);
    e->bpe.fuse_unk = read_u32(r) != 0;
    if (!r->error && (e->bpe.unk_id < BPE_UNK_MISSING || e->bpe.unk_id > INT32_MAX))
        r->error = "the unk id is out of range";
    unsigned char **affixes[2] = {&e->bpe.prefix, &e->bpe.suffix};
    size_t *lengths[2] = {&e->bpe.prefix_length, &e->bpe.suffix_length};
    for (int k = 0; k < 2 && !r->error; k++) {
        uint32_t length = read_u32(r);
        if (!has(r, length)) break;
        *affixes[k] = malloc(length + 1);
        if (!*affixes[k]) {
            r->error = "out of memory";
            break;
        }
        memcpy(*affixes[k], r->at, length);
        *lengths[k] = length;
        r->at += length;
    }
    if (read_u32(r) != 0 && !r->error) {
        e->bpe.spelled = malloc(sizeof(int32_t) * 1024);
        if (!e->bpe.spelled) r->error = "out of memory";
        for (int k = 0; k < 1024 && !r->error; k++) {
            e->bpe.spelled[k] = (int32_t)read_u32(r);
            /* a kind no word has (an affix that is empty) may be -1; every other entry is an id */
            int unused = ((k >> 8) & 1 && !e->bpe.prefix_length) || ((k >> 8) & 2 && !e->bpe.suffix_length);
            if (e->bpe.spelled[k] < 0 && !unused && !r->error) r->error = "a byte symbol has no id";
        }
    }
    if (read_u32(r) == 0 || r->error) return;
    read_map(r, &e->bpe.whole, &e->bpe.has_whole);
    for (int b = 0; e->bpe.spelled && b < 256 && !r->error; b++) {
        e->bpe.spelling[b] = read_u32(r);
        if (e->bpe.spelling[b] > 0x10FFFF && !r->error) r->error = "a spelling is past U+10FFFF";
    }
}

/* Unigram: the pieces, their scores and the unknown characters' rules (see spec_encoder.h) */
static void
read_unigram(Reader *r, SpecEncoder *e)
{
    uint32_t n = read_count(r, 12);
    if (r->error) return;
    uint32_t *cps = NULL;
    uint32_t *offset = malloc(sizeof(uint32_t) * (n ? n : 1));
    uint16_t *length = malloc(sizeof(uint16_t) * (n ? n : 1));
    double *scores = malloc(sizeof(double) * (n ? n : 1));
    ptrdiff_t total = 0, capacity = 0;
    if (!offset || !length || !scores) r->error = "out of memory";
    for (uint32_t p = 0; p < n && !r->error; p++) {
        uint32_t size = read_count(r, 4);
        if (!r->error && size > UNIGRAM_LONGEST_PIECE) r->error = "a piece is longer than 65535 code points";
        if (!r->error && total + size > UINT32_MAX) r->error = "the pieces hold more than 2^32 - 1 code points";
        if (!r->error && code_points_reserve(&cps, &capacity, total + size) < 0) r->error = "out of memory";
        for (uint32_t k = 0; k < size && !r->error; k++) {
            cps[total + k] = read_u32(r);
            if (cps[total + k] > 0x10FFFF && !r->error) r->error = "a piece holds a value past U+10FFFF";
        }
        offset[p] = (uint32_t)total;
        length[p] = (uint16_t)size;
        total += size;
        uint64_t bits = (uint64_t)read_i64(r);
        memcpy(&scores[p], &bits, sizeof(double));
    }
    UnigramModel *m = &e->unigram;
    if (!r->error) {
        int built = unigram_trie_build(&m->trie, n, cps, offset, length);
        if (built == -1) r->error = "out of memory";
        else if (built < 0) r->error = "the pieces hold more than 2^32 - 1 code points";
        else {
            m->chars = cps; /* the trie reads them */
            cps = NULL;
        }
    }
    if (!r->error) {
        e->model_kind = SPEC_MODEL_UNIGRAM;
        unigram_trie_set_scores(&m->trie, scores);
        uint64_t bits = (uint64_t)read_i64(r);
        memcpy(&m->unk_score, &bits, sizeof(double));
        int64_t unk = read_i64(r);
        if (!r->error && (unk < -1 || unk >= (int64_t)n)) r->error = "the unk id is out of range";
        m->unk_id = (int32_t)unk;
        m->has_bytes = read_u32(r) != 0;
        for (int b = 0; m->has_bytes && b < 256 && !r->error; b++) {
            m->byte_ids[b] = (int32_t)read_u32(r);
            if ((m->byte_ids[b] < -1 || m->byte_ids[b] >= (int64_t)n) && !r->error) r->error = "a byte id is out of range";
        }
        uint32_t rule = read_u32(r);
        if (!r->error && rule != UNIGRAM_SENTENCEPIECE && rule != UNIGRAM_HUGGING_FACE) r->error = "an unknown Unigram rule";
        m->rule = (int)rule;
    }
    free(cps);
    free(offset);
    free(length);
    free(scores);
}

/* jieba's section (see spec_encoder.h): its dictionary, HMM, the user's words and the whole words */
static void
read_jieba(Reader *r, SpecEncoder *e)
{
    uint32_t mode = read_u32(r), hmm = read_u32(r);
    if (!r->error && (mode > JIEBA_FULL || hmm > 1)) r->error = "jieba's mode or HMM flag is out of range";
    uint32_t length = read_count(r, 1);
    if (r->error) return;
    ptrdiff_t bad_line = jieba_dict_read(&e->jieba_dict, r->at, length);
    r->at += length;
    if (bad_line) {
        r->error = bad_line < 0 ? "out of memory" : "jieba's dictionary has a line that is not an entry";
        return;
    }
    e->jieba = (JiebaCutter){&e->jieba_dict, NULL, NULL, (int)mode, (int)hmm, 0};
    double *values = has(r, 8 * (size_t)JIEBA_HMM_VALUES) ? malloc(sizeof(double) * JIEBA_HMM_VALUES) : NULL;
    e->jieba_hmm = values ? malloc(sizeof(JiebaHmm)) : NULL;
    if (!r->error && !e->jieba_hmm) r->error = "out of memory";
    for (size_t k = 0; k < JIEBA_HMM_VALUES && !r->error; k++) {
        uint64_t bits = (uint64_t)read_i64(r);
        memcpy(&values[k], &bits, sizeof(double));
    }
    if (!r->error) jieba_hmm_set(e->jieba_hmm, values);
    free(values);
    e->jieba.hmm = e->jieba_hmm;
    uint32_t n = read_count(r, ENTRY_SIZE);
    if (!r->error && n) {
        if (jieba_dict_init(&e->jieba_user, n * 2) < 0) r->error = "out of memory";
        else e->jieba.user = &e->jieba_user;
    }
    for (uint32_t i = 0; i < n && !r->error; i++) {
        uint32_t size;
        uint32_t *word = read_string(r, &size);
        int64_t count = read_i64(r);
        int64_t total = e->jieba_dict.total + e->jieba_user.total;
        if (!r->error && (count < 0 || count > INT64_MAX - total)) r->error = "a user word's count is out of range";
        if (!r->error && jieba_dict_add(&e->jieba_user, word, size, count, 1) < 0) r->error = "out of memory";
        free(word);
    }
    n = read_count(r, 8);
    if (!r->error && token_matcher_init(&e->whole_words, n) < 0) r->error = "out of memory";
    for (uint32_t i = 0; i < n && !r->error; i++) {
        uint32_t size;
        uint32_t *word = read_string(r, &size);
        if (word && token_matcher_add(&e->whole_words, word, size, i) < 0) r->error = "out of memory";
        free(word);
    }
    if (!r->error) token_matcher_ready(&e->whole_words);
    e->map_words = read_u32(r) != 0;
}

const char *
spec_encoder_init(SpecEncoder *e, const unsigned char *bytes, size_t n)
{
    memset(e, 0, sizeof(*e));
    Reader r = {bytes, bytes + n, NULL};
    if (!has(&r, 4) || memcmp(r.at, "KVEC", 4) != 0) return "not a kvec pipeline description";
    r.at += 4;
    if (read_u32(&r) != SPEC_VERSION && !r.error) r.error = "a description of another version";
    uint32_t normalizer = read_u32(&r);
    if (!r.error && normalizer > 4) r.error = "an unknown normalizer kind";
    if (!r.error && normalizer == 4) read_charsmap(&r, e);
    if (!r.error && normalizer >= 1 && normalizer <= 3) {
        e->has_map = 1;
        e->map.final_sigma = normalizer == 2;
        read_char_map(&r, &e->map);
    }
    if (!r.error && normalizer == 3) {
        e->reorders = 1;
        uint32_t n_ranges = read_count(&r, 12);
        e->combining.ranges = r.error ? NULL : read_u32s(&r, 3 * (size_t)n_ranges);
        if (e->combining.ranges) e->combining.n_ranges = n_ranges;
        if (!r.error) r.error = combining_classes_check(&e->combining);
        uint32_t n_pairs = read_count(&r, 12);
        e->compositions.triples = r.error ? NULL : read_u32s(&r, 3 * (size_t)n_pairs);
        if (e->compositions.triples) e->compositions.n_pairs = n_pairs;
        if (!r.error) r.error = compositions_check(&e->compositions);
        if (!r.error) read_char_map(&r, &e->after_map);
    }
    e->part_prefix = read_code_points(&r, &e->part_prefix_length);
    if (!r.error && e->part_prefix_length > SPEC_LONGEST_PREFIX) r.error = "a prefix is longer than 32 code points";
    read_tokens(&r, &e->special);
    read_tokens(&r, &e->added);
    uint32_t n_classes = read_u32(&r);
    if (!r.error && has(&r, n_classes)) {
        e->class_bytes = malloc(n_classes ? n_classes : 1);
        if (!e->class_bytes) r.error = "out of memory";
        else memcpy(e->class_bytes, r.at, n_classes);
        r.at += n_classes;
        e->classes.classes = e->class_bytes;
        e->classes.n_classes = n_classes;
    }
    uint32_t default_class = read_u32(&r);
    if (!r.error && default_class > 255) r.error = "a character class is out of range";
    e->classes.default_class = (int)default_class;
    uint32_t expression = read_u32(&r);
    if (!r.error && expression > SPEC_MERGED_PREVIOUS) r.error = "an unknown expression";
    e->expression = (int)expression;
    if (!r.error && expression == SPEC_JIEBA) read_jieba(&r, e);
    if (!r.error && e->map_words && e->part_prefix) r.error = "a prefix is put before parts that are not mapped";
    if (!r.error && e->map_words && (e->reorders || e->symbols))
        r.error = "jieba's words are mapped by a normalizer that decomposes or is sentencepiece's";
    e->piece_prefix = read_code_points(&r, &e->piece_prefix_length);
    if (!r.error && e->piece_prefix_length > SPEC_LONGEST_PREFIX) r.error = "a prefix is longer than 32 code points";
    uint32_t model = read_u32(&r);
    if (!r.error && (model < SPEC_MODEL_WORDPIECE || model > SPEC_MODEL_UNIGRAM)) r.error = "an unknown model kind";
    if (!r.error && model == SPEC_MODEL_SPLIT) e->model_kind = SPEC_MODEL_SPLIT;
    if (!r.error && model == SPEC_MODEL_WORDPIECE) read_wordpiece(&r, e);
    if (!r.error && model == SPEC_MODEL_WORDS) read_words(&r, e);
    if (!r.error && model == SPEC_MODEL_BPE) read_bpe(&r, e);
    if (!r.error && model == SPEC_MODEL_UNIGRAM) read_unigram(&r, e);
    if (!r.error && e->expression == SPEC_WHOLE_PIECES && e->model_kind != SPEC_MODEL_UNIGRAM)
        r.error = "whole pieces are words of a Unigram model only";
    read_ids(&r, &e->prefix);
    read_ids(&r, &e->suffix);
    e->has_id_map = read_u32(&r) != 0;
    if (e->has_id_map && !r.error) {
        e->past_map = read_i64(&r);
        uint32_t n = read_count(&r, 8);
        for (uint32_t i = 0; i < n && !r.error; i++) {
            int64_t id = read_i64(&r);
            if (id < -1 && !r.error) r.error = "an id of the map is out of range";
            if (!r.error && int64s_push(&e->id_map, id) < 0) r.error = "out of memory";
        }
        if (!r.error && e->past_map < -1) r.error = "an id of the map is out of range";
    }
    if (!r.error && r.at != r.end) r.error = "bytes follow the description";
    if (r.error) spec_encoder_free(e);
    return r.error;
}

void
spec_encoder_free(SpecEncoder *e)
{
    charsmap_free(&e->charsmap);
    for (ptrdiff_t k = 0; k < e->rules.n_symbols; k++) free((void *)e->symbols[k].data);
    free(e->symbols);
    free(e->map.entries);
    free(e->map.pool);
    free(e->map.cased);
    free(e->map.ignorable);
    free(e->combining.ranges);
    free(e->compositions.triples);
    free(e->after_map.entries);
    free(e->after_map.pool);
    token_matcher_free(&e->special);
    token_matcher_free(&e->added);
    free(e->class_bytes);
    free(e->piece_prefix);
    free(e->part_prefix);
    jieba_dict_free(&e->jieba_dict);
    jieba_dict_free(&e->jieba_user);
    free(e->jieba_hmm);
    token_matcher_free(&e->whole_words);
    if (e->model_kind == SPEC_MODEL_WORDPIECE) wordpiece_free(&e->wordpiece);
    if (e->model_kind == SPEC_MODEL_WORDS) piece_map_free(&e->words);
    if (e->model_kind == SPEC_MODEL_UNIGRAM) unigram_model_free(&e->unigram);
    if (e->model_kind == SPEC_MODEL_BPE) {
        PAIRMAP_FREE(e->ranks.slots);
        bpe_words_free(&e->bpe);
    }
    free(e->piece_ids);
    int64s_free(&e->prefix);
    int64s_free(&e->suffix);
    int64s_free(&e->id_map);
    memset(e, 0, sizeof(*e));
}

void
spec_scratch_free(SpecScratch *s)
{
    free(s->text);
    free(s->normalized);
    free(s->prefixed);
    free(s->decomposed);
    free(s->marks);
    free(s->utf8);
    int64s_free(&s->slots);
    unigram_path_free(&s->path);
    if (s->cache_ready) piece_map_free(&s->words);
    int64s_free(&s->word_ids);
    jieba_scratch_free(&s->jieba);
    int64s_free(&s->spans);
    free(s->word);
    charsmap_scratch_free(&s->charsmap);
    memset(s, 0, sizeof(*s));
}

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
static int
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

/* The ids of one word (not empty) appended to `out`: its id in a word lookup; WordPiece's pieces or
 * BPE's tokens, from the cache or the model. */
static int
encode_word(const SpecEncoder *e, const CodePoints *word, Int64s *out, SpecScratch *s)
{
    if (e->model_kind == SPEC_MODEL_SPLIT) return split_word(word, out, s);
    int single = s->cache_ready ? single_of(word) : -1;
    if (single >= 0 && s->singles[single]) {
        int64_t value = s->singles[single];
        return recall(s, value < 0 ? value : value - 1, out);
    }
    uint64_t h = code_points_hash(word);
    if (e->model_kind == SPEC_MODEL_WORDS) {
        const int64_t *id = piece_map_get(&e->words, word, h);
        if (id) return int64s_push(out, *id);
        return e->unk < 0 ? 0 : int64s_push(out, e->unk);
    }
    const int64_t *value = single < 0 && s->cache_ready ? piece_map_get(&s->words, word, h) : NULL;
    if (value) return recall(s, *value, out);
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
    int unknown = wordpiece_segment(&e->wordpiece, word, &s->slots, NULL);
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

/* The ids of the class runs of text[0 .. n). */
static int
encode_class_runs(const SpecEncoder *e, const CodePoints *text, Int64s *out, SpecScratch *s)
{
    ptrdiff_t start, end = 0;
    while ((end = class_run_next(&e->classes, text, end, &start)) > start) {
        CodePoints word = code_points_slice(text, start, end - start);
        int status = encode_word(e, &word, out, s);
        if (status) return status;
    }
    return 0;
}

/* Words probed together by lookup_class_runs. */
#define LOOKUP_BATCH 16

/* encode_class_runs for a word lookup (SPEC_MODEL_WORDS, which keeps no word cache): the words of text
 * taken LOOKUP_BATCH at a time, hashed, and their slots and keys in the vocabulary fetched ahead of the
 * probes, so a big vocabulary's cache misses overlap; each word's id, the unknown id, or none without
 * one, as encode_word gives them. */
static int
lookup_class_runs(const SpecEncoder *e, const CodePoints *text, Int64s *out)
{
    CodePoints words[LOOKUP_BATCH];
    uint64_t hashes[LOOKUP_BATCH];
    ptrdiff_t start, end = 0;
    for (;;) {
        int n = 0;
        while (n < LOOKUP_BATCH && (end = class_run_next(&e->classes, text, end, &start)) > start) {
            words[n] = code_points_slice(text, start, end - start);
            hashes[n] = code_points_hash(&words[n]);
            piece_map_prefetch(&e->words, hashes[n++]);
        }
        for (int k = 0; k < n; k++) piece_map_prefetch_key(&e->words, hashes[k]);
        for (int k = 0; k < n; k++) {
            const int64_t *id = piece_map_get(&e->words, &words[k], hashes[k]);
            if (id ? int64s_push(out, *id) < 0 : e->unk >= 0 && int64s_push(out, e->unk) < 0) return -1;
        }
        if (n < LOOKUP_BATCH) return 0;
    }
}

/* A word of jieba's: its ids, or with map_words those of the class runs of the word mapped (s->normalized
 * is free for it: the parts are not mapped then). */
static int
encode_jieba_word(const SpecEncoder *e, const uint32_t *cps, ptrdiff_t n, Int64s *out, SpecScratch *s)
{
    CodePoints word = {4, cps, n};
    if (!e->map_words) return encode_word(e, &word, out, s);
    if (!e->has_map) return encode_class_runs(e, &word, out, s);
    n = char_map_apply(&e->map, cps, n, SPEC_GROWTH * n, &s->normalized, &s->normalized_capacity);
    if (n < 0) return n == -1 ? -1 : SPEC_GROWS;
    CodePoints mapped = {4, s->normalized, n};
    return encode_class_runs(e, &mapped, out, s);
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
            int status = encode_word(e, &word, out, s);
            if (status) return status;
            i = end;
        }
        return 0;
    }
    if (e->model_kind == SPEC_MODEL_WORDS) return lookup_class_runs(e, &text, out);
    return encode_class_runs(e, &text, out, s);
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

/* The ids of the text in s->text[0 .. length). */
static int
encode_text(const SpecEncoder *e, ptrdiff_t length, Int64s *out, SpecScratch *s)
{
    ptrdiff_t first = out->length;
    if (int64s_extend(out, &e->prefix) < 0) return -1;
    int status = encode_around(e, &e->special, s->text, length, out, s, encode_part, NULL);
    if (status) return status;
    if (int64s_extend(out, &e->suffix) < 0) return -1;
    if (e->has_id_map) map_ids(e, out, first);
    return 0;
}

int
spec_encode_code_points(const SpecEncoder *e, const CodePoints *text, Int64s *out, SpecScratch *s)
{
    if (code_points_reserve(&s->text, &s->text_capacity, text->length) < 0) return -1;
    for (ptrdiff_t i = 0; i < text->length; i++) s->text[i] = code_point_at(text->kind, text->data, i);
    return encode_text(e, text->length, out, s);
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
    return encode_text(e, length, out, s);
}
