/* csrc/core/spec_encoder.h: a tokenizer pipeline described in bytes (written by kvec/native_spec.py),
 * checked, and run over UTF-8 texts without Python: the TensorFlow kernels' encoder (csrc/tf/).
 *
 * The description, little-endian throughout (u32, i64; code points as u32):
 *   "KVEC" u32 version (2)
 *   normalizer   u32 kind: 0 none; 1 a character map (csrc/core/char_map.h):
 *                u32 n_pages, u32 page_of[0x1100], u32 entries[n_pages * 256], u32 pool_length, u32 pool[];
 *                2 the same, then Python's final sigma rule: u32 n, n [first, last] u32 pairs of cased
 *                code points, u32 n, n pairs of case-ignorable ones;
 *                3 a decomposition: a character map (as 1), then canonical ordering (csrc/core/
 *                canonical_order.h): u32 n, n [first, last, class] u32 triples, then canonical composition
 *                (csrc/core/canonical_compose.h): u32 n (0: none), n [first, second, composite] u32
 *                triples, then a second character map (as 1) applied to the ordered text;
 *                4 sentencepiece's normalizer (csrc/core/precompiled_charsmap.h): u32 rules (1 the
 *                dummy prefix, 2 remove extra whitespaces, 4 escape whitespaces, or'ed), u32 n, u8
 *                units[n] (the trie's little-endian u32 units), u32 n, u8 replacements[n], u32 n, n
 *                times u32 length, u32 code points[] (the user-defined symbols, longest first);
 *                then u32 length, u32 code points[]: put before each part that is not empty, after it is
 *                mapped (a Prepend normalizer)
 *   special      u32 n, then n times: u32 length, u32 code points[length], i64 id (matched in raw text)
 *   added        the same (matched in each normalized part between special tokens)
 *   pre-tokenizer u32 n_classes, u8 classes[n_classes], u32 the class of code points past the table
 *                (csrc/core/class_runs.h); u32 expression: 0 words are class runs, 1 GPT-2's, 2 cl100k's
 *                (csrc/core/expressions.h), 3 each piece is one word (a model that segments whole texts),
 *                4 jieba's words (csrc/core/jieba_cut.h), then: u32 mode (0 accurate, 1 search, 2 full),
 *                u32 hmm (0 or 1), u32 length, u8 dictionary[length] (a jieba dictionary file: `word
 *                count [tag]` lines), f64 hmm tables[JIEBA_HMM_VALUES] (csrc/core/jieba_hmm.h), u32 n,
 *                n times u32 length, u32 code points[], i64 count (the user's words, added in order),
 *                u32 n, n times u32 length, u32 code points[] (whole words: found first, leftmost then
 *                longest, each one word, jieba cutting what lies between), u32 then (0, or 1: each word
 *                is then mapped by the normalizer, which does not map the parts, and cut into class runs,
 *                as the Keras Tokenizer treats a Jieba analyzer's words);
 *                5 Hugging Face's merged_with_next over the classes (csrc/core/class_runs.h: class 1 a
 *                delimiter that starts a word, class 3 a word apart, all else text), 6 its
 *                merged_with_previous (class 1 a delimiter that ends a word);
 *                u32 length, u32 code points[]: a prefix put before each piece between added tokens that
 *                does not start with it (ByteLevel's space)
 *   model        u32 kind: 1 WordPiece: i64 max_chars, i64 unk id (-1: none), u32 prefix length,
 *                u32 prefix[], u32 n_pieces, then n_pieces times: u32 length, u32 code points[], i64 id;
 *                2 a word lookup (the Keras Tokenizer's word_index): i64 the id of unknown words (-1:
 *                they are dropped), u32 n_words, then n_words times: u32 length, u32 code points[], i64 id;
 *                3 BPE (csrc/core/bpe.h): u32 n_merges, then n_merges times i32 left, i32 right, i32
 *                merged (highest priority first); u32 n_chars, then n_chars times u64 kind << 32 | code
 *                point, i32 id; u32 byte fallback (0, or 1 then i32 byte_ids[256], -1 for missing);
 *                i64 unk id (-1: unknown characters dropped, -2: an error); u32 fuse_unk; u32 length,
 *                the prefix's UTF-8; u32 length, the suffix's UTF-8; u32 spelled (0, or 1 then i32
 *                ids[1024]: words are spelled byte by byte, kind * 256 + byte); u32 ignore_merges (0, or
 *                1 then u32 n, n times u32 length, u32 code points[], i64 id: the vocabulary, then, for
 *                spelled words, u32 spelling[256])
 *                4 none: the words themselves are the output (a word splitter; see spec_encode);
 *                5 Unigram (csrc/core/unigram_path.h): u32 n_pieces, then n_pieces times u32 length, u32
 *                code points[] (none: never matched), f64 score; f64 the unknown score; i64 unk id (-1:
 *                none); u32 byte fallback (0, or 1 then i32 byte_ids[256], -1 for missing); u32 the rule
 *                (0 sentencepiece, 1 Hugging Face)
 *   post         u32 n, i64 ids put before each text; u32 n, i64 ids put after it
 *   id map       u32 0, or 1 then i64 the id of ids past the map, u32 n, i64 map[n]: each id of a text
 *                becomes map[id] (-1: dropped), as the Keras Tokenizer indexes a subword analyzer's tokens
 * Nothing may follow. Each text runs as kvec.pipeline.Pipeline encodes it: special tokens split the raw
 * text, each part between them is normalized, added tokens split the normalized part, the pieces between
 * them are cut into words, and the model gives each word its ids.
 *
 * Bounds. A description comes inside a SavedModel anyone may send, so what it may make the encoder do is
 * bounded, and checked in time linear in its size:
 *   - every count (pages, entries, tokens, pieces, words, merges, ranges, ids, lengths) is at most what
 *     the bytes left can hold, each entry taking its smallest size (read_count); pages at most 0x1100;
 *   - a replacement of a character map holds at most CHAR_LONGEST_REPLACEMENT (32) code points, the
 *     part and piece prefixes at most SPEC_LONGEST_PREFIX (32): refused above;
 *   - a character map is checked in O(pages + entries + pool), the combining classes and compositions in
 *     O(their count), every other section in O(its size) (hash tables built from it);
 *   - a part of m code points normalizes to at most SPEC_GROWTH * m code points (32: a map's longest
 *     replacement; a decomposition's second map may only keep within it), plus its prefix (or
 *     sentencepiece's dummy prefix); a text that
 *     would grow past it is refused (spec_encode returns SPEC_GROWS) before anything is allocated past it;
 *   - a model gives at most 4 ids per code point of a word (byte fallback: its UTF-8 bytes), plus the
 *     post-processor's ids per text; so the memory of one text is O(its length): its buffers hold at
 *     most 3 * SPEC_GROWTH code points and its ids 4 * SPEC_GROWTH per input byte, which the op keeps
 *     within 4 KB per input byte for any description, 64 bytes for text that does not grow
 *     (tests/test_hostile_descriptions.py).
 * Per text, every stage runs in O(n log n) at worst whatever the text; the token matcher, WordPiece,
 * Unigram, jieba and sentencepiece's user-defined symbols by a factor that is the description's, not the text's (each loop states its cost). */
#ifndef KVEC_CORE_SPEC_ENCODER_H
#define KVEC_CORE_SPEC_ENCODER_H

#include "int64s.h"
#include "canonical_compose.h"
#include "char_map.h"
#include "class_runs.h"
#include "expressions.h"
#include "jieba_cut.h"
#include "bpe.h"
#include "precompiled_charsmap.h"
#include "token_matcher.h"
#include "unigram_path.h"
#include "wordpiece.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPEC_VERSION 2
#define SPEC_GROWTH CHAR_LONGEST_REPLACEMENT        /* normalized code points per code point of a part */
#define SPEC_LONGEST_PREFIX CHAR_LONGEST_REPLACEMENT /* code points of a part's or a piece's prefix */

enum { SPEC_NO_PIECE = 1, SPEC_GROWS = 2 }; /* spec_encode's failures but memory */

enum { SPEC_MODEL_WORDPIECE = 1, SPEC_MODEL_WORDS = 2, SPEC_MODEL_BPE = 3, SPEC_MODEL_SPLIT = 4, SPEC_MODEL_UNIGRAM = 5 };
enum { /* expressions past csrc/core/expressions.h's */
    SPEC_WHOLE_PIECES = EXPRESSION_CL100K + 1, /* each piece is one word */
    SPEC_JIEBA,                                /* jieba's words */
    SPEC_MERGED_NEXT,                          /* merged_with_next over the classes */
    SPEC_MERGED_PREVIOUS,                      /* merged_with_previous over the classes */
};

typedef struct {
    int has_map;
    CharMap map;
    int reorders;                 /* the map decomposes: then canonical ordering, then after_map */
    CombiningClasses combining;
    Compositions compositions;    /* none: the decomposed text stays decomposed */
    CharMap after_map;
    CodePoints *symbols;          /* sentencepiece's normalizer (NULL: none): its user-defined symbols, */
    CharsMapRules rules;          /* its whitespace rules over them, */
    CharsMap charsmap;            /* its precompiled character map */
    uint32_t *part_prefix; /* put before each part that is not empty, once mapped; NULL: none */
    ptrdiff_t part_prefix_length;
    TokenMatcher special, added;
    unsigned char *class_bytes;
    ClassTable classes;
    int expression;          /* EXPRESSION_*: words by that expression instead of class runs */
    JiebaDict jieba_dict;    /* SPEC_JIEBA: jieba's dictionary, */
    JiebaDict jieba_user;    /* the user's words over it (when it has any), */
    JiebaHmm *jieba_hmm;     /* its HMM, */
    JiebaCutter jieba;       /* the cutter over them, */
    TokenMatcher whole_words; /* the words found before it cuts, */
    int map_words;           /* and 1: the normalizer maps jieba's words, which are then cut into class runs */
    uint32_t *piece_prefix;  /* put before each piece between added tokens; NULL: none */
    ptrdiff_t piece_prefix_length;
    int model_kind;
    WordPiece wordpiece;
    int64_t *piece_ids; /* slot -> id */
    PieceMap words;     /* the word lookup: word -> id */
    PairMap ranks;      /* BPE's merges */
    BpeWords bpe;       /* BPE's first symbols */
    UnigramModel unigram;
    int64_t unk;        /* WordPiece: -1 none (an error); the word lookup: -1 unknown words are dropped */
    Int64s prefix, suffix;
    int has_id_map;
    Int64s id_map;      /* id -> the id given out, -1: dropped */
    int64_t past_map;   /* for ids past the map */
    uint32_t lookup_bytes[2][256]; /* a word lookup's code points below 0x100, unmapped and mapped: each one
                                      (bits 0-7) and its class (8-15), SPEC_BYTE_DROPPED or SPEC_BYTE_OTHER */
} SpecEncoder;
enum { SPEC_BYTE_DROPPED = 1 << 16, SPEC_BYTE_OTHER = 1 << 17 }; /* mapped to none; to more, or past 0xFF */

/* What one thread reuses from text to text: buffers, and a cache of the ids of the words it has seen
 * (a word seen again costs a hash and a compare), emptied when it holds SPEC_CACHE_WORDS words or
 * SPEC_CACHE_IDS ids. Zeroed, it is ready; the cache belongs to one encoder. */
#ifndef SPEC_CACHE_WORDS /* a build may set smaller bounds (the sanitizer tests do, to empty it often) */
#define SPEC_CACHE_WORDS (1 << 20)
#endif
#ifndef SPEC_CACHE_IDS
#define SPEC_CACHE_IDS (1 << 23)
#endif
#define SPEC_SINGLES 128 /* the words of one ASCII character are cached apart, in a table */

typedef struct {
    uint32_t *text, *normalized, *prefixed, *decomposed, *marks;
    ptrdiff_t text_capacity, normalized_capacity, prefixed_capacity, decomposed_capacity, marks_capacity;
    Int64s slots;
    UnigramPath path;
    int cache_ready;
    PieceMap words;   /* word -> its place in word_ids, or -1 - its id when it has one id */
    int64_t singles[SPEC_SINGLES]; /* one ASCII character's words (two words in five in English text):
                                      0 not seen, else place + 1, or -1 - id as in `words` */
    Int64s word_ids;  /* at each place: the word's id count, then its ids */
    unsigned char *utf8; /* a word splitter's words, back to back */
    ptrdiff_t utf8_length, utf8_capacity;
    JiebaScratch jieba;
    Int64s spans;        /* jieba's words of a piece */
    uint32_t *word;      /* a jieba word joined from its pieces; a word lookup's words */
    ptrdiff_t word_capacity;
    CharsMapScratch charsmap; /* sentencepiece's normalizer's */
} SpecScratch;

/* The encoder of the description bytes[0 .. n). Returns NULL, or what is wrong with the description (or
 * "out of memory"); on error nothing needs freeing. */
const char *spec_encoder_init(SpecEncoder *encoder, const unsigned char *bytes, size_t n);
void spec_encoder_free(SpecEncoder *encoder);

/* Appends the ids of the UTF-8 text[0 .. n) to `out`. Returns 0, SPEC_NO_PIECE when a word has no piece
 * and the vocabulary no unknown token, SPEC_GROWS when a part would normalize past SPEC_GROWTH code
 * points per code point, -1 when out of memory. A word splitter (model 4) appends each word's
 * UTF-8 (lone surrogates as three bytes) to scratch->utf8 instead, and its end there to `out`. */
int spec_encode(const SpecEncoder *encoder, const unsigned char *text, size_t n, Int64s *out, SpecScratch *scratch);
/* spec_encode of a text given as code points (a Python str's storage, which need not be decoded). */
int spec_encode_code_points(const SpecEncoder *encoder, const CodePoints *text, Int64s *out, SpecScratch *scratch);
void spec_scratch_free(SpecScratch *scratch);

#ifdef __cplusplus
}
#endif

#endif
