/* csrc/python/encoder/word_encoder.c: the kvec._encoder extension, for kvec/pipeline.py: texts to token ids in one
 * pass, for pipelines whose words are runs of character classes.
 *
 *   WordEncoder(classes, tokenize, max_words=2**20, triggers="")
 *       classes: bytes, one class per code point (code points past its end are class 2):
 *                0 separates words and is dropped, 1 is a word of its own, 2..255 form words of maximal
 *                runs of the same class (BERT's split is whitespace 0, punctuation 1, the rest 2).
 *       tokenize: callable word -> list of int ids, the pipeline's own model; called once per distinct
 *                word (a cache of at most max_words words and 64 MB of records, emptied when full,
 *                remembers the answers).
 *       triggers: characters that flag a text (the first characters of tokens matched before the model).
 *       expression: "gpt2" or "cl100k": cut words as that regular expression does instead
 *                (csrc/expressions.h; classes 2 other, 3 whitespace, 4 letters, 5 numbers, 6 CR and LF).
 *       merge: 1 or 2 cut words by Hugging Face's delimiter behaviours merged_with_previous and
 *                merged_with_next instead: class 1 is a delimiter, class 3 a word apart, all else text
 *                (csrc/core/class_runs.h; 0: class runs).
 *       cache: False gives every word to word_model (required then), for models that sample: BPE
 *                dropout draws each word's merges afresh, in the order of the words.
 *       rules: a CharRules (csrc/python/encoder/char_rules.h), the normalizer applied to each text before its words
 *                are cut; None: the texts come normalized.
 *       prefix, suffix: ids put before and after each text's ids (a post-processor's special tokens).
 *       word_model: the model's capsule (csrc/python/word_model.h), which segments new words without the GIL;
 *                None: every new word is given to tokenize, with the GIL.
 *   .encode(texts) -> (values, row_lengths, flagged, redo): the ids of all texts back to back, as bytes
 *                holding int64, how many belong to each text, which texts hold a trigger character, and
 *                which texts the rules could not normalize alone (a contextual character: they get no
 *                ids here, and the caller encodes them). texts is a list of str or UTF-8 bytes.
 *
 * A word seen before costs a hash and a compare; no str object is made for it. The scan runs without
 * the GIL (texts are immutable str objects held for the call), so threads encoding batches at once,
 * such as tf.data's parallel map, use every core. A word not cached yet is segmented by the word model
 * during the scan, once per call, and put in the cache afterwards under a write lock, still without
 * the GIL; without a word model (or for a word it leaves to Python) it is learnt from tokenize, with
 * the GIL, and its ids put in place of a marker.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <pthread.h>
#include <string.h>

#include "char_rules.h"
#include "class_runs.h"
#include "expressions.h"
#include "hash.h"
#include "id_rows.h"
#include "int64s_from_python.h"
#include "misses.h"
#include "module.h"
#include "piece_table.h"
#include "word_model.h"
#include "words.h"


/* The word cache. Each word has a record in `pool`: its hash, its id count and length, its ids, then
 * its code points (two per int64), all on one or two cache lines. The table is open addressing over
 * 8-byte cells (the hash's top half and the record's offset + 1), so a probe reads one small array
 * and confirms the word against its code points only when the tags agree. */
enum { REC_HASH, REC_SIZES, REC_HEADER };
#define REC_IDS(r) ((Py_ssize_t)((uint64_t)(r)[REC_SIZES] >> 32))
#define REC_LENGTH(r) ((Py_ssize_t)((uint64_t)(r)[REC_SIZES] & 0xffffffffu))
#define REC_CHARS(r) ((const uint32_t *)((r) + REC_HEADER + REC_IDS(r)))

typedef struct {
    uint32_t tag, record; /* record 0: an empty cell */
} Cell;

typedef struct {
    PyObject_HEAD
    unsigned char *classes;
    Py_ssize_t n_classes;
    PyObject *tokenize;
    PyObject *word_model_capsule; /* NULL: none */
    const WordModel *word_model;
    PyObject *model;              /* the capsule's */
    Py_ssize_t max_words;
    int expression; /* EXPRESSION_GPT2, EXPRESSION_CL100K: words by that expression instead of class runs */
    int merge; /* MERGE_PREVIOUS, MERGE_NEXT: words by a delimiter behaviour instead */
    int cache; /* 0: every word to the word model (a model that samples), nothing remembered */
    CharRules *rules; /* the normalizer, or NULL */
    Int64s prefix, suffix; /* ids around each text's */
    unsigned char trigger_low[256]; /* code points below 256 that flag a text */
    unsigned char low_list[256];
    int n_low;
    Py_UCS4 *trigger_high;          /* sorted, the others */
    Py_ssize_t n_triggers, n_trigger_high;
    Cell *cells;
    size_t mask, used;
    Int64s pool;
    pthread_rwlock_t lock; /* scans read the cache; learning words writes it */
    int lock_ready;
} WordEncoder;

/* The records kept across batches, in int64s (64 MB): past it the cache starts again, and a pool that
 * grew larger (one batch's new words may need more) is given back. */
#define POOL_BUDGET ((Py_ssize_t)1 << 23)

/* The cache emptied; -1 when out of memory (no exception set: this may run without the GIL). */
static int
cache_reset(WordEncoder *self)
{
    if (self->pool.capacity > POOL_BUDGET) {
        PyMem_RawFree(self->pool.data);
        self->pool.data = NULL;
        self->pool.capacity = 0;
    }
    PyMem_RawFree(self->cells);
    self->cells = PyMem_RawCalloc(1024, sizeof(Cell));
    self->mask = 1023;
    self->used = 0;
    self->pool.length = 0;
    return self->cells ? 0 : -1;
}

static inline int
record_is(const int64_t *record, const Span *w)
{
    if (REC_LENGTH(record) != w->length) return 0;
    const uint32_t *c = REC_CHARS(record);
    if (w->kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *p = (const Py_UCS1 *)w->data + w->start;
        for (Py_ssize_t i = 0; i < w->length; i++)
            if (c[i] != p[i]) return 0;
        return 1;
    }
    for (Py_ssize_t i = 0; i < w->length; i++)
        if (c[i] != PyUnicode_READ(w->kind, w->data, w->start + i)) return 0;
    return 1;
}

/* The cell of the span's word, or the empty cell where it would go. */
static inline Cell *
cache_probe(const WordEncoder *self, const Span *w, uint64_t h)
{
    uint32_t tag = (uint32_t)(h >> 32);
    size_t i = (size_t)h & self->mask;
    for (;;) {
        Cell *cell = &self->cells[i];
        if (!cell->record) return cell;
        if (cell->tag == tag && record_is(self->pool.data + cell->record - 1, w)) return cell;
        i = (i + 1) & self->mask;
    }
}

static int
cache_grow(WordEncoder *self)
{
    size_t size = (self->mask + 1) * 2;
    Cell *cells = PyMem_RawCalloc(size, sizeof(Cell));
    if (!cells) return -1; /* no exception set, as in cache_reset */
    for (size_t i = 0; i <= self->mask; i++) {
        Cell cell = self->cells[i];
        if (!cell.record) continue;
        size_t j = (size_t)self->pool.data[cell.record - 1 + REC_HASH] & (size - 1);
        while (cells[j].record) j = (j + 1) & (size - 1);
        cells[j] = cell;
    }
    PyMem_RawFree(self->cells);
    self->cells = cells;
    self->mask = size - 1;
    return 0;
}

static int
encoder_set_triggers(WordEncoder *self, PyObject *triggers)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(triggers);
    self->trigger_high = PyMem_Malloc(sizeof(Py_UCS4) * (size_t)(n ? n : 1));
    if (!self->trigger_high) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ_CHAR(triggers, i);
        if (c < 256) {
            if (!self->trigger_low[c]) self->low_list[self->n_low++] = (unsigned char)c;
            self->trigger_low[c] = 1;
            continue;
        }
        Py_ssize_t j = self->n_trigger_high; /* insertion keeps the list sorted */
        while (j > 0 && self->trigger_high[j - 1] > c) j--;
        if (j > 0 && self->trigger_high[j - 1] == c) continue;
        memmove(self->trigger_high + j + 1, self->trigger_high + j, sizeof(Py_UCS4) * (size_t)(self->n_trigger_high - j));
        self->trigger_high[j] = c;
        self->n_trigger_high++;
    }
    self->n_triggers = n;
    return 0;
}

/* Whether the text holds a trigger character (the first character of a token matched before the
 * model: such texts need a closer look). */
static int
text_has_trigger(const WordEncoder *self, const Span *text)
{
    Py_ssize_t n = text->length;
    int kind = text->kind;
    const void *data = text->data;
    if (kind == PyUnicode_1BYTE_KIND) {
        for (int k = 0; k < self->n_low; k++)
            if (memchr(data, self->low_list[k], (size_t)n)) return 1;
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 256) {
            if (self->trigger_low[c]) return 1;
            continue;
        }
        Py_ssize_t lo = 0, hi = self->n_trigger_high;
        while (lo < hi) {
            Py_ssize_t mid = (lo + hi) / 2;
            if (self->trigger_high[mid] < c) lo = mid + 1;
            else hi = mid;
        }
        if (lo < self->n_trigger_high && self->trigger_high[lo] == c) return 1;
    }
    return 0;
}

enum { MERGE_NONE, MERGE_PREVIOUS, MERGE_NEXT };

static int
WordEncoder_init(WordEncoder *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"classes", "tokenize", "max_words", "triggers", "expression",
                             "rules", "prefix", "suffix", "word_model", "merge", "cache", NULL};
    Py_buffer classes;
    PyObject *tokenize, *triggers = NULL, *rules = Py_None, *prefix = NULL, *suffix = NULL, *word_model = Py_None;
    Py_ssize_t max_words = 1 << 20;
    int merge = MERGE_NONE, cache = 1;
    const char *expression = "";
    if (self->lock_ready) {
        PyErr_SetString(PyExc_RuntimeError, "a WordEncoder is initialized once");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*O|nUsOOOOip", kwlist, &classes, &tokenize, &max_words, &triggers,
                                     &expression, &rules, &prefix, &suffix, &word_model, &merge, &cache))
        return -1;
    self->expression = !strcmp(expression, "gpt2") ? EXPRESSION_GPT2 : !strcmp(expression, "cl100k") ? EXPRESSION_CL100K : 0;
    if (merge < MERGE_NONE || merge > MERGE_NEXT || (merge && self->expression) || (*expression && !self->expression)) {
        PyBuffer_Release(&classes);
        PyErr_Format(PyExc_ValueError,
                     "expression must be '', 'gpt2' or 'cl100k', and merge 0, 1 or 2 (0 with an expression); got %.20s, %d",
                     expression, merge);
        return -1;
    }
    if (!cache && word_model == Py_None) {
        PyBuffer_Release(&classes);
        PyErr_SetString(PyExc_ValueError, "cache=False needs a word_model");
        return -1;
    }
    self->cache = cache;
    if (word_model != Py_None) {
        if (!(self->word_model = word_model_open(word_model, &self->model))) {
            PyBuffer_Release(&classes);
            return -1;
        }
        self->word_model_capsule = Py_NewRef(word_model);
    }
    if ((prefix && int64s_from_sequence(&self->prefix, prefix, "prefix") < 0) ||
        (suffix && int64s_from_sequence(&self->suffix, suffix, "suffix") < 0)) {
        PyBuffer_Release(&classes);
        return -1;
    }
    if (rules != Py_None && !PyObject_TypeCheck(rules, &CharRulesType)) {
        PyBuffer_Release(&classes);
        PyErr_Format(PyExc_TypeError, "rules must be a CharRules or None, got %.100s", Py_TYPE(rules)->tp_name);
        return -1;
    }
    if (!PyCallable_Check(tokenize)) {
        PyBuffer_Release(&classes);
        PyErr_SetString(PyExc_TypeError, "tokenize must be a callable word -> list of int");
        return -1;
    }
    if (max_words < 1) {
        PyBuffer_Release(&classes);
        PyErr_SetString(PyExc_ValueError, "max_words must be >= 1");
        return -1;
    }
    self->classes = PyMem_Malloc(classes.len ? (size_t)classes.len : 1);
    if (!self->classes) {
        PyBuffer_Release(&classes);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(self->classes, classes.buf, (size_t)classes.len);
    self->n_classes = classes.len;
    PyBuffer_Release(&classes);
    if (triggers && encoder_set_triggers(self, triggers) < 0) return -1;
    Py_INCREF(tokenize);
    self->tokenize = tokenize;
    if (rules != Py_None) self->rules = (CharRules *)Py_NewRef(rules);
    self->max_words = max_words;
    self->merge = merge;
    if (self->expression && self->n_classes < 256) {
        PyErr_SetString(PyExc_ValueError, "an expression needs a class table of every code point");
        return -1;
    }
    if (pthread_rwlock_init(&self->lock, NULL) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "could not create the encoder's lock");
        return -1;
    }
    self->lock_ready = 1;
    if (cache_reset(self) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void
WordEncoder_dealloc(WordEncoder *self)
{
    PyMem_RawFree(self->cells);
    PyMem_RawFree(self->pool.data);
    PyMem_Free(self->classes);
    PyMem_Free(self->trigger_high);
    Py_XDECREF(self->tokenize);
    Py_XDECREF(self->word_model_capsule);
    Py_XDECREF(self->rules);
    PyMem_RawFree(self->prefix.data);
    PyMem_RawFree(self->suffix.data);
    if (self->lock_ready) pthread_rwlock_destroy(&self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Caches the ids of a word not cached yet in the empty cell found for it; returns the offset of the
 * word's record in the pool, or -1 when out of memory (no exception set: this may run without the
 * GIL). */
static Py_ssize_t
encoder_insert(WordEncoder *self, Cell *cell, uint64_t h, const Span *w, const int64_t *ids, Py_ssize_t n)
{
    Py_ssize_t record = self->pool.length, size = REC_HEADER + n + (w->length + 1) / 2;
    if (n > 0x7fffffff || w->length > 0x7fffffff || record + size >= 0xffffffff || int64s_reserve(&self->pool, size) < 0)
        return -1;
    int64_t *r = self->pool.data + record;
    if (n) memcpy(r + REC_HEADER, ids, sizeof(int64_t) * (size_t)n); /* ids may be NULL when there are none */
    r[REC_HASH] = (int64_t)h;
    r[REC_SIZES] = (int64_t)(((uint64_t)n << 32) | (uint64_t)w->length);
    r[size - 1] = 0; /* the unused half of an odd length */
    uint32_t *chars = (uint32_t *)(r + REC_HEADER + n);
    for (Py_ssize_t i = 0; i < w->length; i++) chars[i] = PyUnicode_READ(w->kind, w->data, w->start + i);
    self->pool.length += size;
    cell->tag = (uint32_t)(h >> 32);
    cell->record = (uint32_t)(record + 1);
    if (++self->used * 2 > self->mask && cache_grow(self) < 0) return -1;
    return record;
}

/* Asks tokenize for the ids of a word not cached yet and caches them; returns the offset of the word's
 * record in the pool, or -1 with an exception set. Needs the GIL. */
static Py_ssize_t
encoder_learn(WordEncoder *self, Cell *cell, uint64_t h, const Span *w)
{
    PyObject *word = span_str(w);
    if (!word) return -1;
    PyObject *ids = PyObject_CallOneArg(self->tokenize, word);
    Py_DECREF(word);
    if (!ids) return -1;
    Int64s values = {0};
    int read = int64s_from_sequence(&values, ids, "tokenize(word)");
    Py_DECREF(ids);
    Py_ssize_t record = read < 0 ? -1 : encoder_insert(self, cell, h, w, values.data, values.length);
    PyMem_RawFree(values.data);
    if (record < 0 && read == 0) PyErr_NoMemory();
    return record;
}

static inline int
class_of(const WordEncoder *self, Py_UCS4 c)
{
    ClassTable table = {self->classes, self->n_classes, 2};
    return class_of_code_point(&table, c);
}

static inline int
copy_ids(Int64s *values, const int64_t *ids, Py_ssize_t count)
{
    if (int64s_reserve(values, count) < 0) return -1;
    int64_t *out = values->data + values->length;
    for (Py_ssize_t k = 0; k < count; k++) out[k] = ids[k];
    values->length += count;
    return 0;
}

/* The word model's ids of a word appended to `out`, as WordModel.word_ids gives them; an id below 0,
 * which no vocabulary has and which marks a missed word in a call's ids, leaves the word to Python
 * (1, nothing appended). */
static inline int
model_word_ids(const WordEncoder *self, const Span *span, Int64s *out)
{
    ptrdiff_t before = out->length;
    int status = self->word_model->word_ids(self->model, span, out);
    for (ptrdiff_t k = before; status == 0 && k < out->length; k++) status = out->data[k] < 0;
    if (status == 1) out->length = before;
    return status;
}

/* The ids of the word at [start, start + length) go to values: the cache's, or for a word not cached
 * yet the word model's, asked once per call and cached afterwards; a word left to tokenize becomes a
 * marker -(its miss number + 1). Without the cache (a model that samples), the word model's for each
 * word, drawn afresh. Returns -1 when out of memory, 1 when an uncached word is left to Python. */
static inline int
encoder_emit(WordEncoder *self, const Span *span, uint64_t h, Py_ssize_t t, Int64s *values, Misses *misses)
{
    if (!self->cache) return model_word_ids(self, span, values);
    Cell *cell = cache_probe(self, span, h);
    if (cell->record) {
        const int64_t *record = self->pool.data + cell->record - 1;
        return copy_ids(values, record + REC_HEADER, REC_IDS(record));
    }
    Py_ssize_t number = misses_find_or_add(misses, span, h, t);
    if (number < 0) return -1;
    Miss *miss = &misses->data[number];
    if (miss->n_ids == MISS_UNSEGMENTED) {
        miss->n_ids = MISS_LEFT;
        if (self->word_model) {
            miss->first_id = misses->ids.length;
            int segmented = model_word_ids(self, span, &misses->ids);
            if (segmented < 0) return -1;
            if (segmented == 0) miss->n_ids = misses->ids.length - miss->first_id;
        }
    }
    if (miss->n_ids >= 0) return copy_ids(values, misses->ids.data + miss->first_id, miss->n_ids);
    misses->markers = 1;
    return int64s_push(values, -(number + 1));
}

/* The words of one text whose characters are all below 256 (a 1-byte str), hashed while scanned. */
static int
encoder_scan_latin1(WordEncoder *self, const Span *text, Py_ssize_t t, Int64s *values, Misses *misses)
{
    const Py_UCS1 *s = text->data;
    const unsigned char *classes = self->classes;
    Py_ssize_t size = text->length, i = 0;
    Span span = *text;
    while (i < size) {
        int cls = classes[s[i]];
        if (cls == 0) {
            i++;
            continue;
        }
        Py_ssize_t start = i;
        uint64_t h = hash_step(FNV_OFFSET, s[i++]);
        if (cls > 1)
            while (i < size && classes[s[i]] == cls) h = hash_step(h, s[i++]);
        span.start = start;
        span.length = i - start;
        int emitted = encoder_emit(self, &span, hash_end(h, span.length), t, values, misses);
        if (emitted) return emitted;
    }
    return 0;
}

/* The words of a regular expression (csrc/expressions.c), whatever the text's kind. */
static int
encoder_scan_expression(WordEncoder *self, const Span *text, Py_ssize_t t, Int64s *values, Misses *misses)
{
    ExpressionText view = {self->classes, self->n_classes, text->kind, text->data, text->length};
    Span span = *text;
    for (Py_ssize_t i = 0; i < text->length;) {
        Py_ssize_t end = expression_word_end(self->expression, &view, i);
        span.start = i;
        span.length = end - i;
        int emitted = encoder_emit(self, &span, hash_code_points(span.kind, span.data, i, span.length), t, values, misses);
        if (emitted) return emitted;
        i = end;
    }
    return 0;
}

/* Words by Hugging Face's delimiter behaviours (csrc/core/class_runs.h states the rule). */
static int
encoder_scan_merged(WordEncoder *self, const Span *text, Py_ssize_t t, Int64s *values, Misses *misses)
{
    Py_ssize_t n = text->length, i = 0;
    Span span = *text;
    ClassTable table = {self->classes, self->n_classes, 2};
    CodePoints view = {span.kind, span.data, n};
    while (i < n) {
        Py_ssize_t start = i;
        i = class_merged_word_end(&table, &view, i, self->merge);
        span.start = start;
        span.length = i - start;
        int emitted = encoder_emit(self, &span, hash_code_points(span.kind, span.data, start, span.length), t, values, misses);
        if (emitted) return emitted;
    }
    return 0;
}

/* Without the GIL: the view of text t that words are cut from, the str itself or, with rules, its
 * normalized code points in a buffer of its own (text NULL; 1 byte per code point when all are below
 * 256, so the 1-byte scan takes it). Returns 1, 0 when the rules cannot normalize the text alone, or
 * -1 when out of memory. */
static int
encoder_view(const WordEncoder *self, PyObject *text, Span *view, Py_UCS4 **scratch, Py_ssize_t *capacity)
{
    *view = (Span){PyUnicode_KIND(text), PyUnicode_DATA(text), 0, PyUnicode_GET_LENGTH(text), text};
    if (!self->rules) return 1;
    Py_ssize_t length = 0;
    int applied = char_rules_apply(self->rules, view->kind, view->data, view->length, scratch, capacity, &length);
    if (applied <= 0) return applied;
    const Py_UCS4 *chars = *scratch;
    Py_UCS4 max = 0;
    for (Py_ssize_t i = 0; i < length; i++)
        if (chars[i] > max) max = chars[i];
    int kind = max < 256 ? PyUnicode_1BYTE_KIND : max < 65536 ? PyUnicode_2BYTE_KIND : PyUnicode_4BYTE_KIND;
    void *data = PyMem_RawMalloc((size_t)(length ? length : 1) * (size_t)kind);
    if (!data) return -1;
    if (kind == PyUnicode_1BYTE_KIND)
        for (Py_ssize_t i = 0; i < length; i++) ((Py_UCS1 *)data)[i] = (Py_UCS1)chars[i];
    else if (kind == PyUnicode_2BYTE_KIND)
        for (Py_ssize_t i = 0; i < length; i++) ((Py_UCS2 *)data)[i] = (Py_UCS2)chars[i];
    else
        memcpy(data, chars, sizeof(Py_UCS4) * (size_t)length);
    *view = (Span){kind, data, 0, length, NULL};
    return 1;
}

/* The words of one text by runs of character classes (csrc/core/class_runs.h), whatever its kind. */
static int
encoder_scan_classes(WordEncoder *self, const Span *text, Py_ssize_t t, Int64s *values, Misses *misses)
{
    CodePoints whole = {text->kind, (const char *)text->data + text->start * text->kind, text->length};
    Span span = *text;
    Py_ssize_t start, end = 0;
    ClassTable table = {self->classes, self->n_classes, 2};
    while ((end = class_run_next(&table, &whole, end, &start)) > start) {
        span.start = text->start + start;
        span.length = end - start;
        uint64_t h = hash_code_points(span.kind, span.data, span.start, span.length);
        int emitted = encoder_emit(self, &span, h, t, values, misses);
        if (emitted) return emitted;
    }
    return 0;
}

/* Runs without the GIL, under the read lock: the ids of every word of every text (markers for words
 * not cached yet) and how many each text has; views[t] is what text t was scanned as. Returns -1 when
 * out of memory. */
static int
encoder_scan(WordEncoder *self, PyObject **texts, Py_ssize_t n, Span *views, Int64s *values, Int64s *lengths,
             Misses *misses, Int64s *flagged, Int64s *redo)
{
    int latin1_table = self->n_classes >= 256, status = 0;
    Py_UCS4 *scratch = NULL;
    Py_ssize_t capacity = 0;
    for (Py_ssize_t t = 0; t < n; t++) {
        int viewed = encoder_view(self, texts[t], &views[t], &scratch, &capacity);
        if (viewed < 0) goto no_memory;
        if (viewed == 0) {
            views[t] = (Span){PyUnicode_1BYTE_KIND, NULL, 0, 0, texts[t]};
            if (int64s_push(redo, t) < 0) goto no_memory;
            lengths->data[lengths->length++] = 0;
            continue;
        }
        const Span *text = &views[t];
        if (self->n_triggers && text_has_trigger(self, text)) {
            if (int64s_push(flagged, t) < 0) goto no_memory;
        }
        Py_ssize_t before = values->length;
        if (int64s_extend(values, &self->prefix) < 0) goto no_memory;
        int cut;
        if (self->expression) cut = encoder_scan_expression(self, text, t, values, misses);
        else if (self->merge) cut = encoder_scan_merged(self, text, t, values, misses);
        else if (latin1_table && text->kind == PyUnicode_1BYTE_KIND) cut = encoder_scan_latin1(self, text, t, values, misses);
        else cut = encoder_scan_classes(self, text, t, values, misses);
        if (cut == 1) { /* a word only the model's Python function can answer, uncached: the text goes to Python */
            values->length = before;
            if (int64s_push(redo, t) < 0) goto no_memory;
            lengths->data[lengths->length++] = 0;
            continue;
        }
        if (cut < 0 || int64s_extend(values, &self->suffix) < 0) goto no_memory;
        lengths->data[lengths->length++] = values->length - before;
    }
    goto done;
no_memory:
    status = -1;
done:
    PyMem_RawFree(scratch);
    return status;
}

/* Under the write lock: caches every missed word, with the ids the word model found for it or else
 * tokenize's (which needs the GIL), then puts the ids of the words left to tokenize in place of their
 * markers. Returns 0, -1 when out of memory (no exception set: without markers this runs without the
 * GIL), or -2 with an exception set. */
static int
encoder_cache_misses(WordEncoder *self, Int64s *values, Int64s *lengths, Misses *misses)
{
    /* a full cache starts again (records learnt below stay valid until the next batch); so does one
     * whose records pass the memory budget */
    if ((Py_ssize_t)self->used + misses->length > self->max_words || self->pool.length > POOL_BUDGET) {
        if (cache_reset(self) < 0) return -1;
    }
    for (Py_ssize_t m = 0; m < misses->length; m++) {
        Miss *miss = &misses->data[m];
        Span span = miss_span(misses, miss);
        Cell *cell = cache_probe(self, &span, miss->hash); /* another thread may have learnt it */
        if (cell->record) {
            miss->record = (Py_ssize_t)cell->record - 1;
            continue;
        }
        if (miss->n_ids >= 0) {
            miss->record = encoder_insert(self, cell, miss->hash, &span, misses->ids.data + miss->first_id, miss->n_ids);
            if (miss->record < 0) return -1;
        } else if ((miss->record = encoder_learn(self, cell, miss->hash, &span)) < 0) {
            return -2;
        }
    }
    if (!misses->markers) return 0;
    Int64s out = {0};
    Py_ssize_t position = 0;
    for (Py_ssize_t t = 0; t < lengths->length; t++) {
        Py_ssize_t end = position + lengths->data[t], before = out.length;
        for (; position < end; position++) {
            int64_t v = values->data[position];
            if (v >= 0) {
                if (int64s_push(&out, v) < 0) goto no_memory;
                continue;
            }
            const int64_t *record = self->pool.data + misses->data[-v - 1].record;
            Py_ssize_t count = REC_IDS(record);
            if (count == 0) continue; /* a word without ids (out may have no buffer yet) */
            if (int64s_reserve(&out, count) < 0) goto no_memory;
            memcpy(out.data + out.length, record + REC_HEADER, sizeof(int64_t) * (size_t)count);
            out.length += count;
        }
        lengths->data[t] = out.length - before;
    }
    PyMem_RawFree(values->data);
    *values = out;
    return 0;
no_memory:
    PyMem_RawFree(out.data);
    return -1;
}

static PyObject *
WordEncoder_encode(WordEncoder *self, PyObject *arg)
{
    if (!self->lock_ready) {
        PyErr_SetString(PyExc_RuntimeError, "WordEncoder.__init__ was not called");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(arg, "texts must be a list of str");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), ready = 0;
    PyObject **texts = PyMem_Malloc(sizeof(PyObject *) * (size_t)(n ? n : 1));
    Span *views = PyMem_RawCalloc((size_t)(n ? n : 1), sizeof(Span));
    Int64s values = {0}, lengths = {0}, flagged = {0}, redo = {0};
    Misses misses = {0};
    misses.views = views;
    PyObject *result = NULL;
    if (!texts || !views || int64s_reserve(&lengths, n + 1) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (; ready < n; ready++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, ready);
        if (PyUnicode_Check(item)) {
            Py_INCREF(item);
            texts[ready] = item;
        } else if (PyBytes_Check(item)) {
            texts[ready] = PyUnicode_DecodeUTF8(PyBytes_AS_STRING(item), PyBytes_GET_SIZE(item), "strict");
            if (!texts[ready]) goto done;
        } else {
            PyErr_Format(PyExc_TypeError, "texts[%zd] must be a str, got %.100s", ready, Py_TYPE(item)->tp_name);
            goto done;
        }
        if (self->rules && char_rules_learn(self->rules, texts[ready]) < 0) {
            Py_DECREF(texts[ready]);
            goto done;
        }
    }
    /* status 0, -1: out of memory, -2: an exception is set */
    int status, cached = 0;
    Py_BEGIN_ALLOW_THREADS
    pthread_rwlock_rdlock(&self->lock);
    status = encoder_scan(self, texts, n, views, &values, &lengths, &misses, &flagged, &redo);
    pthread_rwlock_unlock(&self->lock);
    if (status == 0 && misses.length && !misses.markers) {
        /* the word model found every word, and its ids are in place: the cache takes them if no other
         * thread is scanning, else a later call learns them (waiting would idle this thread) */
        if (pthread_rwlock_trywrlock(&self->lock) == 0) {
            status = encoder_cache_misses(self, &values, &lengths, &misses);
            pthread_rwlock_unlock(&self->lock);
        }
        cached = 1;
    }
    Py_END_ALLOW_THREADS
    if (status == 0 && misses.length && !cached) {
        Py_BEGIN_ALLOW_THREADS /* never wait for the lock while holding the GIL */
        pthread_rwlock_wrlock(&self->lock);
        Py_END_ALLOW_THREADS
        status = encoder_cache_misses(self, &values, &lengths, &misses);
        pthread_rwlock_unlock(&self->lock);
    }
    if (status == -1) PyErr_NoMemory();
    if (status < 0) goto done;
    PyObject *v = PyBytes_FromStringAndSize((const char *)values.data, (Py_ssize_t)sizeof(int64_t) * values.length);
    PyObject *l = PyBytes_FromStringAndSize((const char *)lengths.data, (Py_ssize_t)sizeof(int64_t) * lengths.length);
    PyObject *f = PyBytes_FromStringAndSize((const char *)flagged.data, (Py_ssize_t)sizeof(int64_t) * flagged.length);
    PyObject *r = PyBytes_FromStringAndSize((const char *)redo.data, (Py_ssize_t)sizeof(int64_t) * redo.length);
    if (v && l && f && r) result = PyTuple_Pack(4, v, l, f, r);
    Py_XDECREF(v);
    Py_XDECREF(l);
    Py_XDECREF(f);
    Py_XDECREF(r);
done:
    for (Py_ssize_t i = 0; i < ready; i++) Py_DECREF(texts[i]);
    if (views)
        for (Py_ssize_t i = 0; i < n; i++)
            if (!views[i].text) PyMem_RawFree((void *)views[i].data);
    PyMem_RawFree(views);
    PyMem_Free(texts);
    PyMem_RawFree(redo.data);
    PyMem_RawFree(misses.ids.data);
    PyMem_RawFree(values.data);
    PyMem_RawFree(lengths.data);
    PyMem_RawFree(flagged.data);
    PyMem_RawFree(misses.data);
    PyMem_RawFree(misses.slots);
    Py_DECREF(seq);
    return result;
}

static PyObject *
WordEncoder_cached_words(WordEncoder *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(self->used);
}

static PyMethodDef WordEncoder_methods[] = {
    {"encode", (PyCFunction)WordEncoder_encode, METH_O,
     "encode(texts) -> (values, row_lengths, flagged, redo): int64 ids of all texts back to back, per-text "
     "counts, the positions of texts holding a trigger character, and of texts left to the caller, as bytes"},
    {NULL}};

static PyGetSetDef WordEncoder_getset[] = {
    {"cached_words", (getter)WordEncoder_cached_words, NULL, "how many words the cache holds", NULL},
    {NULL}};

static PyTypeObject WordEncoderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._encoder.WordEncoder",
    .tp_basicsize = sizeof(WordEncoder),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "WordEncoder(classes, tokenize, max_words=2**20, triggers='', expression='', rules=None, prefix=(), suffix=(), "
              "word_model=None, merge=0, cache=True): texts to ids "
              "through a word cache.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)WordEncoder_init,
    .tp_dealloc = (destructor)WordEncoder_dealloc,
    .tp_methods = WordEncoder_methods,
    .tp_getset = WordEncoder_getset,
};

static PyMethodDef module_functions[] = {
    {"id_rows", id_rows, METH_VARARGS,
     "id_rows(values, row_lengths) -> one list of int per row, from int64 buffers (ids >= 0)"},
    {"encodings", encodings, METH_VARARGS,
     "encodings(cls, values, row_lengths, tokenizer, texts) -> one Encoding per row (see csrc/python/encoder/id_rows.c)"},
    {NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "kvec._encoder", NULL, -1, module_functions, NULL, NULL, NULL, NULL};

static const ModuleType types[] = {
    {"WordEncoder", &WordEncoderType}, {"CharRules", &CharRulesType}, {"PieceTable", &PieceTableType}};

PyMODINIT_FUNC
PyInit__encoder(void)
{
    return create_module(&module, types, sizeof(types) / sizeof(types[0]));
}
