/* csrc/core/spec_description.c: reading a description into a SpecEncoder, and freeing it (see spec_encoder.h). */
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
        else if (unigram_trie_index_ascii(&m->trie) < 0) {
            unigram_trie_free(&m->trie);
            r->error = "out of memory";
        } else {
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

/* e->lookup_bytes, from its map and classes */
static void
fill_lookup_bytes(SpecEncoder *e)
{
    for (uint32_t c = 0; c < 256; c++) {
        uint32_t entry = e->has_map ? e->map.entries[(size_t)e->map.page_of[0] * 256 + c] : CHAR_SAME;
        const uint32_t *to = entry == CHAR_SAME ? (const uint32_t[]){1, c} : e->map.pool + entry; /* size, then it */
        uint32_t m = to[0] == 1 ? to[1] : 0x100;
        e->lookup_bytes[0][c] = c | (uint32_t)class_of_code_point(&e->classes, c) << 8;
        e->lookup_bytes[1][c] = m | (uint32_t)class_of_code_point(&e->classes, m) << 8;
        if (m >= 0x100) e->lookup_bytes[1][c] = to[0] ? SPEC_BYTE_OTHER : SPEC_BYTE_DROPPED;
    }
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
    if (!r.error) fill_lookup_bytes(e);
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
