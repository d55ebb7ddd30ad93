/* kvec._native: the hot loops behind kvec's Python API.
 *
 * Keras word splitting is "maximal runs of characters that are not separators". Done in Python, every
 * word becomes a regex match object and a string before it is counted; here one pass over the code
 * points creates each word string once and feeds it straight to a dict lookup.
 *
 *   WordSplitter(separators)   .split(text, lower) -> list[str]
 *                              .ids(text, lower, lookup, oov) -> list   (oov None: unknown words dropped)
 *   WordLookup(dict)           the dict's str keys in a table probed without making word strings
 *   BpeRanks(merges)           .merge(ids, starts=True) -> (ids, starts): a BPE model's rank-ordered merging
 *   WordPieceTable(vocab, prefix, unk_token, max_chars)
 *                              .spans(word) -> [(id, start, end)], .ids(word) -> [id]: WordPiece's greedy match
 *   BottomUpLearner(words, counts, joiner)  .tokens(thresh, rounds): the bottom-up WordPiece rounds
 *   WordCounter()              .add_text(splitter, text, lower) / .add_tokens(iterable)  one document each
 *                              .result() -> (words, counts, document_counts) in first-occurrence order
 *   bpe_merge_loop(ids, sizes, counts, vocab_size, current_size, min_frequency, max_length, add_merge)
 *       Hugging Face's BpeTrainer merge loop over words given as array('i') ids back to back and
 *       array('q') word lengths, calling back for each new token's id
 *   fill_padded(out, sequences, pre_padding, pre_truncating) -> bool
 *       copies a list of int/float lists into a 2-D C-contiguous int32/int64/float32/float64 buffer;
 *       returns False without promising anything about `out` when an element needs NumPy's own
 *       conversion rules (the caller then takes the general path).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_texts.h"
#include "_words.h"

/* ------------------------------------------------------------------------------------------------ */
/* Separator sets                                                                                    */

typedef struct {
    unsigned char ascii[128];
    Py_UCS4 *other; /* sorted code points >= 128 */
    Py_ssize_t n_other;
} Separators;

static int
compare_code_points(const void *x, const void *y)
{
    Py_UCS4 a = *(const Py_UCS4 *)x, b = *(const Py_UCS4 *)y;
    return (a > b) - (a < b);
}

static int
separators_init(Separators *sep, PyObject *chars)
{
    memset(sep->ascii, 0, sizeof(sep->ascii));
    sep->other = NULL;
    sep->n_other = 0;
    if (!PyUnicode_Check(chars)) {
        PyErr_SetString(PyExc_TypeError, "separators must be a str");
        return -1;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(chars);
    int kind = PyUnicode_KIND(chars);
    const void *data = PyUnicode_DATA(chars);
    sep->other = PyMem_Malloc(sizeof(Py_UCS4) * (n ? n : 1));
    if (!sep->other) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 128) sep->ascii[c] = 1;
        else sep->other[sep->n_other++] = c;
    }
    /* sorted, without duplicates, for the binary search */
    qsort(sep->other, (size_t)sep->n_other, sizeof(Py_UCS4), compare_code_points);
    Py_ssize_t kept = 0;
    for (Py_ssize_t i = 0; i < sep->n_other; i++)
        if (kept == 0 || sep->other[kept - 1] != sep->other[i]) sep->other[kept++] = sep->other[i];
    sep->n_other = kept;
    return 0;
}

static void
separators_free(Separators *sep)
{
    PyMem_Free(sep->other);
    sep->other = NULL;
}

static inline int
is_separator(const Separators *sep, Py_UCS4 c)
{
    if (c < 128) return sep->ascii[c];
    Py_ssize_t lo = 0, hi = sep->n_other;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (sep->other[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    return lo < sep->n_other && sep->other[lo] == c;
}

/* Calls visit(span, arg) for every word of `text`; visit returns -1 on error. */
typedef int (*visit_fn)(const Span *word, void *arg);

static int
for_each_word(const Separators *sep, PyObject *text, visit_fn visit, void *arg)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t i = 0;
    Span span = {PyUnicode_KIND(text), PyUnicode_DATA(text), 0, 0, text};
    if (PyUnicode_IS_ASCII(text)) {
        const unsigned char *s = PyUnicode_1BYTE_DATA(text);
        const unsigned char *table = sep->ascii;
        while (i < n) {
            while (i < n && table[s[i]]) i++;
            if (i >= n) break;
            Py_ssize_t start = i;
            while (i < n && !table[s[i]]) i++;
            span.start = start;
            span.length = i - start;
            if (visit(&span, arg) < 0) return -1;
        }
        return 0;
    }
    while (i < n) {
        while (i < n && is_separator(sep, PyUnicode_READ(span.kind, span.data, i))) i++;
        if (i >= n) break;
        Py_ssize_t start = i;
        while (i < n && !is_separator(sep, PyUnicode_READ(span.kind, span.data, i))) i++;
        span.start = start;
        span.length = i - start;
        if (visit(&span, arg) < 0) return -1;
    }
    return 0;
}


static PyObject *str_lower; /* interned "lower" */

/* A new reference to text, lowercased when asked; TypeError unless text is a str. */
static PyObject *
prepared_text(PyObject *text, int lower)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be a str, got %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    if (lower) return PyObject_CallMethodNoArgs(text, str_lower);
    Py_INCREF(text);
    return text;
}

/* ------------------------------------------------------------------------------------------------ */
/* WordSplitter                                                                                      */

typedef struct {
    PyObject_HEAD
    Separators sep;
} WordSplitter;

static int
WordSplitter_init(WordSplitter *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"separators", NULL};
    PyObject *chars;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "U", kwlist, &chars)) return -1;
    separators_free(&self->sep);
    return separators_init(&self->sep, chars);
}

static void
WordSplitter_dealloc(WordSplitter *self)
{
    separators_free(&self->sep);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
append_word(const Span *w, void *list)
{
    PyObject *word = span_str(w);
    if (!word) return -1;
    int rc = PyList_Append((PyObject *)list, word);
    Py_DECREF(word);
    return rc;
}

static PyObject *
WordSplitter_split(WordSplitter *self, PyObject *args)
{
    PyObject *text;
    int lower;
    if (!PyArg_ParseTuple(args, "Op", &text, &lower)) return NULL;
    PyObject *prepared = prepared_text(text, lower);
    if (!prepared) return NULL;
    PyObject *out = PyList_New(0);
    if (out && for_each_word(&self->sep, prepared, append_word, out) < 0) Py_CLEAR(out);
    Py_DECREF(prepared);
    return out;
}

/* WordLookup: a read-only copy of a str -> object dict, probed with spans. */
typedef struct {
    PyObject_HEAD
    WordTable table;
} WordLookup;

static int
WordLookup_init(WordLookup *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"mapping", NULL};
    PyObject *mapping;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!", kwlist, &PyDict_Type, &mapping)) return -1;
    table_free(&self->table);
    if (table_init(&self->table, (size_t)PyDict_GET_SIZE(mapping)) < 0) return -1;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(mapping, &pos, &key, &value)) {
        if (!PyUnicode_Check(key)) continue; /* only str keys can equal a word */
        Span w = {PyUnicode_KIND(key), PyUnicode_DATA(key), 0, PyUnicode_GET_LENGTH(key), key};
        uint64_t h = hash_code_points(w.kind, w.data, 0, w.length);
        Entry *e = table_probe(&self->table, &w, h);
        if (e->word) continue; /* equal str keys cannot repeat in a dict */
        Py_INCREF(key);
        Py_INCREF(value);
        if (table_fill(&self->table, e, h, key, value, 0) < 0) return -1;
    }
    return 0;
}

static void
WordLookup_dealloc(WordLookup *self)
{
    table_free(&self->table);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject WordLookupType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._native.WordLookup",
    .tp_basicsize = sizeof(WordLookup),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "WordLookup(mapping): a read-only copy of a str-keyed dict for WordSplitter.ids.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)WordLookup_init,
    .tp_dealloc = (destructor)WordLookup_dealloc,
};

typedef struct {
    PyObject *out;
    WordTable *table;
    PyObject *oov; /* NULL: drop unknown words */
} IdsState;

static int
append_id(const Span *w, void *arg)
{
    IdsState *st = arg;
    Entry *e = table_probe(st->table, w, hash_code_points(w->kind, w->data, w->start, w->length));
    if (e->word) return PyList_Append(st->out, e->value);
    if (st->oov) return PyList_Append(st->out, st->oov);
    return 0;
}

static PyObject *
WordSplitter_ids(WordSplitter *self, PyObject *args)
{
    PyObject *text, *lookup, *oov;
    int lower;
    if (!PyArg_ParseTuple(args, "OpO!O", &text, &lower, &WordLookupType, &lookup, &oov)) return NULL;
    PyObject *prepared = prepared_text(text, lower);
    if (!prepared) return NULL;
    IdsState st = {PyList_New(0), &((WordLookup *)lookup)->table, oov == Py_None ? NULL : oov};
    if (st.out && for_each_word(&self->sep, prepared, append_id, &st) < 0) Py_CLEAR(st.out);
    Py_DECREF(prepared);
    return st.out;
}

static PyMethodDef WordSplitter_methods[] = {
    {"split", (PyCFunction)WordSplitter_split, METH_VARARGS,
     "split(text, lower) -> list of words (maximal runs of non-separator characters)"},
    {"ids", (PyCFunction)WordSplitter_ids, METH_VARARGS,
     "ids(text, lower, lookup, oov) -> [lookup[w] for each word w]; unknown words become oov, or are "
     "dropped when oov is None"},
    {NULL}};

static PyTypeObject WordSplitterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._native.WordSplitter",
    .tp_basicsize = sizeof(WordSplitter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "WordSplitter(separators): splits text into maximal runs of non-separator characters.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)WordSplitter_init,
    .tp_dealloc = (destructor)WordSplitter_dealloc,
    .tp_methods = WordSplitter_methods,
};

/* ------------------------------------------------------------------------------------------------ */
/* WordCounter                                                                                       */

typedef struct {
    PyObject_HEAD
    WordTable table; /* word -> slot */
    PyObject *words; /* list: slot -> word */
    PyObject *other_slots; /* dict: non-str token -> slot, made on first use */
    int64_t *counts, *docs, *last_doc;
    Py_ssize_t capacity;
    int64_t documents;
} WordCounter;

static int
WordCounter_init(WordCounter *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "", kwlist)) return -1;
    table_free(&self->table);
    if (table_init(&self->table, 1024) < 0) return -1;
    Py_XSETREF(self->words, PyList_New(0));
    if (!self->words) return -1;
    self->documents = 0;
    return 0;
}

static void
WordCounter_dealloc(WordCounter *self)
{
    table_free(&self->table);
    Py_XDECREF(self->words);
    Py_XDECREF(self->other_slots);
    PyMem_Free(self->counts);
    PyMem_Free(self->docs);
    PyMem_Free(self->last_doc);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
grow(WordCounter *self)
{
    Py_ssize_t capacity = self->capacity ? self->capacity * 2 : 1024;
    int64_t *c = PyMem_Realloc(self->counts, sizeof(int64_t) * capacity);
    if (!c) goto fail;
    self->counts = c;
    c = PyMem_Realloc(self->docs, sizeof(int64_t) * capacity);
    if (!c) goto fail;
    self->docs = c;
    c = PyMem_Realloc(self->last_doc, sizeof(int64_t) * capacity);
    if (!c) goto fail;
    self->last_doc = c;
    self->capacity = capacity;
    return 0;
fail:
    PyErr_NoMemory();
    return -1;
}

static inline void
bump(WordCounter *self, Py_ssize_t slot)
{
    self->counts[slot]++;
    if (self->last_doc[slot] != self->documents) {
        self->last_doc[slot] = self->documents;
        self->docs[slot]++;
    }
}

/* A new slot for a word not seen before; steals `word`. */
static Py_ssize_t
new_slot(WordCounter *self, PyObject *word)
{
    Py_ssize_t slot = PyList_GET_SIZE(self->words);
    if ((slot >= self->capacity && grow(self) < 0) || PyList_Append(self->words, word) < 0) {
        Py_DECREF(word);
        return -1;
    }
    Py_DECREF(word);
    self->counts[slot] = 0;
    self->docs[slot] = 0;
    self->last_doc[slot] = -1;
    return slot;
}

static int
count_span(const Span *w, void *arg)
{
    WordCounter *self = arg;
    uint64_t h = hash_code_points(w->kind, w->data, w->start, w->length);
    Entry *e = table_probe(&self->table, w, h);
    if (e->word) {
        bump(self, e->slot);
        return 0;
    }
    PyObject *word = span_str(w);
    if (!word) return -1;
    Py_INCREF(word); /* one reference for the words list (taken by new_slot), one for the table */
    Py_ssize_t slot = new_slot(self, word);
    if (slot < 0) {
        Py_DECREF(word);
        return -1;
    }
    if (table_fill(&self->table, e, h, word, NULL, slot) < 0) return -1;
    bump(self, slot);
    return 0;
}

/* Tokens from Python may be any hashable object: they are counted through a dict of slots. */
static int
count_token(WordCounter *self, PyObject *slots, PyObject *token)
{
    if (PyUnicode_Check(token)) {
        Span w = {PyUnicode_KIND(token), PyUnicode_DATA(token), 0, PyUnicode_GET_LENGTH(token), token};
        return count_span(&w, self);
    }
    PyObject *found = PyDict_GetItemWithError(slots, token);
    Py_ssize_t slot;
    if (found) {
        slot = PyLong_AsSsize_t(found);
    } else {
        if (PyErr_Occurred()) return -1;
        Py_INCREF(token);
        slot = new_slot(self, token);
        if (slot < 0) return -1;
        PyObject *number = PyLong_FromSsize_t(slot);
        if (!number) return -1;
        int rc = PyDict_SetItem(slots, token, number);
        Py_DECREF(number);
        if (rc < 0) return -1;
    }
    bump(self, slot);
    return 0;
}

static PyObject *
WordCounter_add_text(WordCounter *self, PyObject *args)
{
    PyObject *splitter, *text;
    int lower;
    if (!PyArg_ParseTuple(args, "O!Op", &WordSplitterType, &splitter, &text, &lower)) return NULL;
    PyObject *prepared = prepared_text(text, lower);
    if (!prepared) return NULL;
    int rc = for_each_word(&((WordSplitter *)splitter)->sep, prepared, count_span, self);
    Py_DECREF(prepared);
    self->documents++;
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *
WordCounter_add_tokens(WordCounter *self, PyObject *tokens)
{
    PyObject *it = PyObject_GetIter(tokens);
    if (!it) return NULL;
    if (!self->other_slots && !(self->other_slots = PyDict_New())) {
        Py_DECREF(it);
        return NULL;
    }
    PyObject *token;
    int rc = 0;
    while (rc == 0 && (token = PyIter_Next(it))) {
        rc = count_token(self, self->other_slots, token);
        Py_DECREF(token);
    }
    Py_DECREF(it);
    self->documents++;
    if (rc < 0 || PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

static PyObject *
int64_list(const int64_t *values, Py_ssize_t n)
{
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLongLong(values[i]);
        if (!v) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

static PyObject *
WordCounter_result(WordCounter *self, PyObject *Py_UNUSED(ignored))
{
    Py_ssize_t n = PyList_GET_SIZE(self->words);
    PyObject *counts = int64_list(self->counts, n);
    PyObject *docs = counts ? int64_list(self->docs, n) : NULL;
    if (!docs) {
        Py_XDECREF(counts);
        return NULL;
    }
    return Py_BuildValue("(ONN)", self->words, counts, docs);
}

static PyObject *
WordCounter_get_documents(WordCounter *self, void *closure)
{
    return PyLong_FromLongLong(self->documents);
}

static PyMethodDef WordCounter_methods[] = {
    {"add_text", (PyCFunction)WordCounter_add_text, METH_VARARGS,
     "add_text(splitter, text, lower): count the words of one document"},
    {"add_tokens", (PyCFunction)WordCounter_add_tokens, METH_O,
     "add_tokens(tokens): count an iterable of tokens as one document"},
    {"result", (PyCFunction)WordCounter_result, METH_NOARGS,
     "result() -> (words, counts, document_counts), words in first-occurrence order"},
    {NULL}};

static PyGetSetDef WordCounter_getset[] = {
    {"documents", (getter)WordCounter_get_documents, NULL, "number of documents added", NULL}, {NULL}};

static PyTypeObject WordCounterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._native.WordCounter",
    .tp_basicsize = sizeof(WordCounter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "WordCounter(): occurrence and document counts of words, in first-occurrence order.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)WordCounter_init,
    .tp_dealloc = (destructor)WordCounter_dealloc,
    .tp_methods = WordCounter_methods,
    .tp_getset = WordCounter_getset,
};

/* ------------------------------------------------------------------------------------------------ */
/* fill_padded                                                                                       */

enum target { T_INT32, T_INT64, T_FLOAT32, T_FLOAT64 };

static int
target_of(const Py_buffer *view, enum target *t)
{
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    if (f[0] == '\0' || f[1] != '\0') return -1;
    switch (f[0]) {
    case 'i': case 'l': case 'q':
        if (view->itemsize == 4) { *t = T_INT32; return 0; }
        if (view->itemsize == 8) { *t = T_INT64; return 0; }
        return -1;
    case 'f': *t = T_FLOAT32; return view->itemsize == 4 ? 0 : -1;
    case 'd': *t = T_FLOAT64; return view->itemsize == 8 ? 0 : -1;
    default: return -1;
    }
}

/* Writes one element; returns 0, or 1 when NumPy's own conversion is needed. */
static inline int
store(char *dst, enum target t, PyObject *v)
{
    if (PyLong_Check(v)) {
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || (x == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return 1;
        }
        switch (t) {
        case T_INT32:
            if (x < INT32_MIN || x > INT32_MAX) return 1;
            *(int32_t *)dst = (int32_t)x;
            return 0;
        case T_INT64: *(int64_t *)dst = (int64_t)x; return 0;
        case T_FLOAT32:
        case T_FLOAT64: {
            if (x > (1LL << 53) || x < -(1LL << 53)) return 1; /* keep rounding questions out */
            double d = (double)x;
            if (t == T_FLOAT32) *(float *)dst = (float)d;
            else *(double *)dst = d;
            return 0;
        }
        }
    }
    if (PyFloat_CheckExact(v) && (t == T_FLOAT32 || t == T_FLOAT64)) {
        double d = PyFloat_AS_DOUBLE(v);
        if (t == T_FLOAT32) *(float *)dst = (float)d;
        else *(double *)dst = d;
        return 0;
    }
    return 1;
}

static PyObject *
fill_padded(PyObject *module, PyObject *args)
{
    PyObject *out, *sequences;
    int pre_padding, pre_truncating;
    if (!PyArg_ParseTuple(args, "OO!pp", &out, &PyList_Type, &sequences, &pre_padding, &pre_truncating))
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(out, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return NULL;
    enum target t;
    int ok = view.ndim == 2 && target_of(&view, &t) == 0 && view.shape[0] == PyList_GET_SIZE(sequences);
    if (ok) {
        Py_ssize_t rows = view.shape[0], maxlen = view.shape[1], size = view.itemsize;
        for (Py_ssize_t r = 0; ok && r < rows; r++) {
            PyObject *seq = PyList_GET_ITEM(sequences, r);
            if (!PyList_CheckExact(seq) && !PyTuple_CheckExact(seq)) {
                ok = 0;
                break;
            }
            PyObject **items = PySequence_Fast_ITEMS(seq);
            Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
            Py_ssize_t first = 0, kept = n;
            if (n > maxlen) {
                kept = maxlen;
                if (pre_truncating) first = n - maxlen;
            }
            char *row = (char *)view.buf + r * maxlen * size;
            char *dst = row + (pre_padding ? (maxlen - kept) * size : 0);
            for (Py_ssize_t k = 0; k < kept; k++, dst += size) {
                if (store(dst, t, items[first + k])) {
                    ok = 0;
                    break;
                }
            }
        }
    }
    PyBuffer_Release(&view);
    return PyBool_FromLong(ok);
}

/* ------------------------------------------------------------------------------------------------ */
/* bpe_merge_loop: the merge loop of Hugging Face tokenizers' BpeTrainer                             */
/*                                                                                                   */
/* Words are linked lists of symbol ids (with each symbol's length in characters). Pair counts are    */
/* 64-bit and kept up to date from the deltas of every word merge. A max-heap orders entries by       */
/* count, then by the smallest (a, b); every entry carries the words it was pushed for, a stale count */
/* is refreshed and pushed back, and a merge never decrements the merged pair's own count: all as the */
/* library does.                                                                                     */

typedef struct {
    uint64_t key; /* (a << 32) | b; EMPTY_KEY when free */
    int64_t value;
} PairSlot;

#define EMPTY_KEY UINT64_MAX

typedef struct {
    PairSlot *slots;
    size_t mask, used;
} PairMap;

static int
pairmap_init(PairMap *m, size_t capacity)
{
    size_t size = 1024;
    while (size < capacity * 2) size <<= 1;
    m->slots = PyMem_Malloc(size * sizeof(PairSlot));
    if (!m->slots) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < size; i++) m->slots[i].key = EMPTY_KEY;
    m->mask = size - 1;
    m->used = 0;
    return 0;
}

static inline size_t
pair_hash(uint64_t key)
{
    return (size_t)mix64(key);
}

/* The slot of key, inserted with value 0 when missing; NULL on memory error. */
static PairSlot *
pairmap_slot(PairMap *m, uint64_t key)
{
    size_t i = pair_hash(key) & m->mask;
    while (m->slots[i].key != EMPTY_KEY && m->slots[i].key != key) i = (i + 1) & m->mask;
    if (m->slots[i].key == key) return &m->slots[i];
    if ((m->used + 1) * 2 > m->mask) {
        PairMap bigger;
        if (pairmap_init(&bigger, m->mask + 1) < 0) return NULL;
        for (size_t j = 0; j <= m->mask; j++) {
            if (m->slots[j].key == EMPTY_KEY) continue;
            size_t k = pair_hash(m->slots[j].key) & bigger.mask;
            while (bigger.slots[k].key != EMPTY_KEY) k = (k + 1) & bigger.mask;
            bigger.slots[k] = m->slots[j];
        }
        bigger.used = m->used;
        PyMem_Free(m->slots);
        *m = bigger;
        return pairmap_slot(m, key);
    }
    m->slots[i].key = key;
    m->slots[i].value = 0;
    m->used++;
    return &m->slots[i];
}

/* Word indices. Most heap entries name one or two words, which stay inline (no allocation); a longer
 * list spills to the heap. */
#define INTVEC_INLINE 2

typedef struct {
    int32_t *spill; /* NULL while the items are inline */
    int32_t size, capacity;
    int32_t inline_items[INTVEC_INLINE];
} IntVec;

static inline int32_t *
intvec_items(const IntVec *v)
{
    return v->spill ? v->spill : (int32_t *)v->inline_items;
}

static int
intvec_push(IntVec *v, int32_t x)
{
    if (!v->spill && v->size < INTVEC_INLINE) {
        v->inline_items[v->size++] = x;
        return 0;
    }
    if (!v->spill || v->size == v->capacity) {
        int32_t capacity = v->spill ? v->capacity * 2 : 4 * INTVEC_INLINE;
        int32_t *items = PyMem_Realloc(v->spill, (size_t)capacity * sizeof(int32_t));
        if (!items) {
            PyErr_NoMemory();
            return -1;
        }
        if (!v->spill) memcpy(items, v->inline_items, sizeof(v->inline_items));
        v->spill = items;
        v->capacity = capacity;
    }
    v->spill[v->size++] = x;
    return 0;
}

typedef struct {
    int64_t count;
    uint64_t pair;
    IntVec words;
} HeapEntry;

typedef struct {
    HeapEntry *entries;
    Py_ssize_t size, capacity;
} Heap;

/* Higher count first; on equal counts the smaller (a, b) first. */
static inline int
heap_before(const HeapEntry *x, const HeapEntry *y)
{
    if (x->count != y->count) return x->count > y->count;
    return x->pair < y->pair;
}

static int
heap_push(Heap *h, HeapEntry e)
{
    if (h->size == h->capacity) {
        Py_ssize_t capacity = h->capacity ? h->capacity * 2 : 1024;
        HeapEntry *entries = PyMem_Realloc(h->entries, capacity * sizeof(HeapEntry));
        if (!entries) {
            PyErr_NoMemory();
            return -1;
        }
        h->entries = entries;
        h->capacity = capacity;
    }
    Py_ssize_t i = h->size++;
    while (i > 0) {
        Py_ssize_t parent = (i - 1) / 2;
        if (!heap_before(&e, &h->entries[parent])) break;
        h->entries[i] = h->entries[parent];
        i = parent;
    }
    h->entries[i] = e;
    return 0;
}

static HeapEntry
heap_pop(Heap *h)
{
    HeapEntry top = h->entries[0];
    HeapEntry last = h->entries[--h->size];
    Py_ssize_t i = 0;
    for (;;) {
        Py_ssize_t child = 2 * i + 1;
        if (child >= h->size) break;
        if (child + 1 < h->size && heap_before(&h->entries[child + 1], &h->entries[child])) child++;
        if (!heap_before(&h->entries[child], &last)) break;
        h->entries[i] = h->entries[child];
        i = child;
    }
    if (h->size) h->entries[i] = last;
    return top;
}

/* Pairs whose count grew in one merge round, with the words they grew in. */
typedef struct {
    PairMap index; /* pair -> position in lists + 1 */
    uint64_t *pairs;
    IntVec *lists;
    Py_ssize_t size, capacity;
} Pending;

static int
pending_add(Pending *p, uint64_t pair, int32_t word)
{
    PairSlot *slot = pairmap_slot(&p->index, pair);
    if (!slot) return -1;
    if (slot->value == 0) {
        if (p->size == p->capacity) {
            Py_ssize_t capacity = p->capacity ? p->capacity * 2 : 64;
            uint64_t *pairs = PyMem_Realloc(p->pairs, capacity * sizeof(uint64_t));
            if (!pairs) goto nomem;
            p->pairs = pairs;
            IntVec *lists = PyMem_Realloc(p->lists, capacity * sizeof(IntVec));
            if (!lists) goto nomem;
            p->lists = lists;
            p->capacity = capacity;
        }
        p->pairs[p->size] = pair;
        p->lists[p->size] = (IntVec){0};
        slot->value = ++p->size;
    }
    IntVec *list = &p->lists[slot->value - 1];
    if (list->size && intvec_items(list)[list->size - 1] == word) return 0; /* same word, same round */
    return intvec_push(list, word);
nomem:
    PyErr_NoMemory();
    return -1;
}

static void
pending_clear(Pending *p)
{
    for (size_t i = 0; i <= p->index.mask; i++) p->index.slots[i].key = EMPTY_KEY;
    p->index.used = 0;
    p->size = 0;
}

/* Words as linked lists of symbols. Word w's symbols live at [start[w], start[w] + n0[w]) (n0: its
 * length in characters); next/prev link the symbols still present, as indices inside the word (-1: none),
 * and a symbol merged into its left neighbour gets the id -1. The first symbol is never removed.
 *
 * A short word is merged by walking it. A long word (more than LONG_WORD characters) would make every
 * merge cost its whole length, so the occurrences of each pair in long words are indexed: a merge visits
 * only the occurrences of its pair, and training time grows with the word's length, not its square. */
#define LONG_WORD 64

typedef struct {
    int32_t *ids;
    int32_t *lengths; /* characters per symbol */
    int32_t *next, *prev;
    Py_ssize_t *start;
    int32_t *n0;
    int64_t *counts;
    Py_ssize_t n_words;
} Words;

/* An occurrence of a pair in a long word: the word and the index of the pair's left symbol. */
typedef struct {
    int32_t word, at;
} Place;

typedef struct {
    Place *items;
    Py_ssize_t size, capacity;
} PlaceVec;

/* pair -> the places it was formed at in long words (some since merged away: checked when read) */
typedef struct {
    PairMap index; /* pair -> position in lists + 1 */
    PlaceVec *lists;
    Py_ssize_t size, capacity;
} PlaceIndex;

static int
placevec_push(PlaceVec *v, Place p)
{
    if (v->size == v->capacity) {
        Py_ssize_t capacity = v->capacity ? v->capacity * 2 : 4;
        Place *items = PyMem_Realloc(v->items, capacity * sizeof(Place));
        if (!items) {
            PyErr_NoMemory();
            return -1;
        }
        v->items = items;
        v->capacity = capacity;
    }
    v->items[v->size++] = p;
    return 0;
}

/* The place list of pair; created empty when missing (create) or NULL when missing (!create). */
static PlaceVec *
places_of(PlaceIndex *x, uint64_t pair, int create, int *error)
{
    *error = 0;
    if (!create) {
        size_t i = pair_hash(pair) & x->index.mask;
        while (x->index.slots[i].key != EMPTY_KEY && x->index.slots[i].key != pair) i = (i + 1) & x->index.mask;
        return x->index.slots[i].key == pair ? &x->lists[x->index.slots[i].value - 1] : NULL;
    }
    PairSlot *slot = pairmap_slot(&x->index, pair);
    if (!slot) goto fail;
    if (slot->value == 0) {
        if (x->size == x->capacity) {
            Py_ssize_t capacity = x->capacity ? x->capacity * 2 : 64;
            PlaceVec *lists = PyMem_Realloc(x->lists, capacity * sizeof(PlaceVec));
            if (!lists) {
                PyErr_NoMemory();
                goto fail;
            }
            x->lists = lists;
            x->capacity = capacity;
        }
        x->lists[x->size] = (PlaceVec){NULL, 0, 0};
        slot->value = ++x->size;
    }
    return &x->lists[slot->value - 1];
fail:
    *error = 1;
    return NULL;
}

static void
placeindex_free(PlaceIndex *x)
{
    for (Py_ssize_t i = 0; i < x->size; i++) PyMem_Free(x->lists[i].items);
    PyMem_Free(x->lists);
    PyMem_Free(x->index.slots);
}

#define PAIR(a, b) (((uint64_t)(uint32_t)(a) << 32) | (uint32_t)(b))

typedef struct {
    Words *ws;
    PairMap *pair_counts;
    Pending *pending;
    PlaceIndex *places;
    int64_t max_length;
} MergeState;

/* Count a change of the pair formed at symbol `at` of word w; new pairs of long words are indexed. */
static int
apply_change(MergeState *st, uint64_t pair, int delta, int32_t w, int32_t at)
{
    PairSlot *slot = pairmap_slot(st->pair_counts, pair);
    if (!slot) return -1;
    slot->value += delta * st->ws->counts[w];
    if (delta < 0) return 0;
    if (st->ws->n0[w] > LONG_WORD) {
        int error;
        PlaceVec *v = places_of(st->places, pair, 1, &error);
        if (error || placevec_push(v, (Place){w, at}) < 0) return -1;
    }
    return pending_add(st->pending, pair, w);
}

/* Whether (a, b) is formed at symbol i of word w. */
static inline int
pair_at(const Words *ws, int32_t w, int32_t i, int32_t a, int32_t b)
{
    const int32_t *ids = ws->ids + ws->start[w];
    int32_t j = ws->next[ws->start[w] + i];
    return ids[i] == a && j >= 0 && ids[j] == b;
}

/* Merge (a, b) formed at symbol i of word w into new_id, reporting the count changes around it as
 * Hugging Face's Word::merge does. */
static int
merge_at(MergeState *st, int32_t w, int32_t i, int32_t a, int32_t b, int32_t new_id)
{
    Words *ws = st->ws;
    Py_ssize_t s = ws->start[w];
    int32_t *ids = ws->ids + s, *lens = ws->lengths + s, *next = ws->next + s, *prev = ws->prev + s;
    int32_t j = next[i];
    int64_t length = (int64_t)lens[i] + lens[j];
    int32_t before = prev[i];
    if (before >= 0) {
        if (apply_change(st, PAIR(ids[before], a), -1, w, before) < 0) return -1;
        if (lens[before] + length < st->max_length && apply_change(st, PAIR(ids[before], new_id), 1, w, before) < 0)
            return -1;
    }
    ids[i] = new_id;
    lens[i] = (int32_t)length;
    ids[j] = -1;
    next[i] = next[j];
    if (next[i] >= 0) prev[next[i]] = i;
    int32_t after = next[i];
    if (after >= 0) {
        if (apply_change(st, PAIR(b, ids[after]), -1, w, i) < 0) return -1;
        if (lens[after] + length < st->max_length && apply_change(st, PAIR(new_id, ids[after]), 1, w, i) < 0)
            return -1;
    }
    return 0;
}

/* Merge every non-overlapping (a, b) of a short word, left to right. */
static int
merge_short_word(MergeState *st, int32_t w, int32_t a, int32_t b, int32_t new_id)
{
    const Words *ws = st->ws;
    for (int32_t i = 0; i >= 0; i = ws->next[ws->start[w] + i])
        if (pair_at(ws, w, i, a, b) && merge_at(st, w, i, a, b, new_id) < 0) return -1;
    return 0;
}

static int
compare_places(const void *x, const void *y)
{
    const Place *p = x, *q = y;
    if (p->word != q->word) return p->word < q->word ? -1 : 1;
    return (p->at > q->at) - (p->at < q->at);
}

/* Merge (a, b) in the given words, each word left to right, in the order given. Places of the pair in
 * long words that are listed are taken out of the index (merged or found stale); the others stay. */
static int
merge_words(MergeState *st, const IntVec *words, int32_t a, int32_t b, int32_t new_id, uint8_t *listed)
{
    Words *ws = st->ws;
    const int32_t *listed_words = intvec_items(words);
    Place *found = NULL;
    Py_ssize_t n_found = 0;
    int any_long = 0;
    for (Py_ssize_t k = 0; k < words->size; k++)
        if (ws->n0[listed_words[k]] > LONG_WORD) listed[listed_words[k]] = any_long = 1;
    if (any_long) {
        int error;
        PlaceVec *v = places_of(st->places, PAIR(a, b), 0, &error);
        if (v && v->size) {
            found = PyMem_Malloc(v->size * sizeof(Place));
            if (!found) {
                PyErr_NoMemory();
                return -1;
            }
            Py_ssize_t kept = 0;
            for (Py_ssize_t k = 0; k < v->size; k++) {
                Place p = v->items[k];
                if (!pair_at(ws, p.word, p.at, a, b)) continue; /* merged away since */
                if (listed[p.word]) found[n_found++] = p;
                else v->items[kept++] = p;
            }
            v->size = kept;
            qsort(found, n_found, sizeof(Place), compare_places);
        }
    }
    int ok = 1;
    for (Py_ssize_t k = 0; ok && k < words->size; k++) {
        int32_t w = listed_words[k];
        if (ws->n0[w] <= LONG_WORD) {
            ok = merge_short_word(st, w, a, b, new_id) == 0;
            continue;
        }
        listed[w] = 0;
        /* this word's places: a run of the sorted list */
        Py_ssize_t lo = 0, hi = n_found;
        while (lo < hi) {
            Py_ssize_t mid = (lo + hi) / 2;
            if (found[mid].word < w) lo = mid + 1;
            else hi = mid;
        }
        for (; ok && lo < n_found && found[lo].word == w; lo++)
            if (pair_at(ws, w, found[lo].at, a, b)) /* not taken by the merge on its left (a == b) */
                ok = merge_at(st, w, found[lo].at, a, b, new_id) == 0;
    }
    for (Py_ssize_t k = 0; k < words->size; k++) listed[listed_words[k]] = 0;
    PyMem_Free(found);
    return ok ? 0 : -1;
}

/* Words from the symbol ids back to back (int32), each word's length (int64) and a list of counts. */
static int
load_words(const Py_buffer *ids, const Py_buffer *sizes, PyObject *counts, Words *ws)
{
    if (ids->len % sizeof(int32_t) || sizes->len % sizeof(int64_t)) {
        PyErr_SetString(PyExc_TypeError, "ids must be array('i') and sizes array('q')");
        return -1;
    }
    Py_ssize_t n = sizes->len / (Py_ssize_t)sizeof(int64_t), total = ids->len / (Py_ssize_t)sizeof(int32_t);
    const int64_t *size = sizes->buf;
    if (PyList_GET_SIZE(counts) != n) {
        PyErr_SetString(PyExc_ValueError, "sizes and counts differ in length");
        return -1;
    }
    if (n > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "more than 2**31 - 1 distinct words");
        return -1;
    }
    Py_ssize_t sum = 0;
    for (Py_ssize_t w = 0; w < n; w++) {
        if (size[w] < 0 || size[w] > INT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "a word must have 0 to 2**31 - 1 symbols");
            return -1;
        }
        sum += (Py_ssize_t)size[w];
    }
    if (sum != total) {
        PyErr_SetString(PyExc_ValueError, "the word sizes do not add up to the number of ids");
        return -1;
    }
    ws->n_words = n;
    ws->ids = PyMem_Malloc((total + 1) * sizeof(int32_t));
    ws->lengths = PyMem_Malloc((total + 1) * sizeof(int32_t));
    ws->next = PyMem_Malloc((total + 1) * sizeof(int32_t));
    ws->prev = PyMem_Malloc((total + 1) * sizeof(int32_t));
    ws->start = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t));
    ws->n0 = PyMem_Malloc((n + 1) * sizeof(int32_t));
    ws->counts = PyMem_Malloc((n + 1) * sizeof(int64_t));
    if (!ws->ids || !ws->lengths || !ws->next || !ws->prev || !ws->start || !ws->n0 || !ws->counts) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(ws->ids, ids->buf, total * sizeof(int32_t));
    Py_ssize_t at = 0;
    for (Py_ssize_t w = 0; w < n; w++) {
        int32_t length = (int32_t)size[w];
        ws->start[w] = at;
        ws->n0[w] = length;
        for (int32_t i = 0; i < length; i++) {
            ws->lengths[at] = 1;
            ws->next[at] = i + 1 < length ? i + 1 : -1;
            ws->prev[at++] = i - 1;
        }
        ws->counts[w] = PyLong_AsLongLong(PyList_GET_ITEM(counts, w));
        if (ws->counts[w] == -1 && PyErr_Occurred()) return -1;
    }
    return 0;
}

static void
words_free(Words *ws)
{
    PyMem_Free(ws->ids);
    PyMem_Free(ws->lengths);
    PyMem_Free(ws->next);
    PyMem_Free(ws->prev);
    PyMem_Free(ws->start);
    PyMem_Free(ws->n0);
    PyMem_Free(ws->counts);
}

static PyObject *
bpe_merge_loop(PyObject *module, PyObject *args)
{
    PyObject *counts, *add_merge;
    Py_buffer ids, sizes;
    Py_ssize_t vocab_size, current_size;
    long long min_frequency, max_length;
    if (!PyArg_ParseTuple(args, "y*y*O!nnLLO", &ids, &sizes, &PyList_Type, &counts, &vocab_size, &current_size,
                          &min_frequency, &max_length, &add_merge))
        return NULL;
    Words ws = {0};
    PairMap pair_counts = {0};
    Pending pending = {0};
    PlaceIndex places = {0};
    Heap heap = {0};
    uint8_t *listed = NULL;
    MergeState st = {&ws, &pair_counts, &pending, &places, max_length};
    PyObject *merges = PyList_New(0);
    int ok = merges && load_words(&ids, &sizes, counts, &ws) == 0 && pairmap_init(&pair_counts, 1024) == 0 &&
             pairmap_init(&pending.index, 1024) == 0 && pairmap_init(&places.index, 1024) == 0;
    PyBuffer_Release(&ids);
    PyBuffer_Release(&sizes);
    if (ok) {
        listed = PyMem_Calloc(ws.n_words + 1, 1);
        if (!listed) ok = (PyErr_NoMemory(), 0);
    }

    /* Count every pair and the words it occurs in (the initial entries). */
    for (Py_ssize_t w = 0; ok && w < ws.n_words; w++) {
        int32_t *ids = ws.ids + ws.start[w];
        for (int32_t i = 0; ok && i + 1 < ws.n0[w]; i++)
            ok = apply_change(&st, PAIR(ids[i], ids[i + 1]), 1, (int32_t)w, i) == 0;
    }
    for (Py_ssize_t k = 0; ok && k < pending.size; k++) {
        int64_t count = pairmap_slot(&pair_counts, pending.pairs[k])->value;
        if (count > 0) {
            ok = heap_push(&heap, (HeapEntry){count, pending.pairs[k], pending.lists[k]}) == 0;
            pending.lists[k] = (IntVec){0};
        } else {
            PyMem_Free(pending.lists[k].spill);
        }
    }
    if (ok) pending_clear(&pending);

    while (ok && current_size < vocab_size && heap.size) {
        HeapEntry top = heap_pop(&heap);
        int64_t current = pairmap_slot(&pair_counts, top.pair)->value;
        if (top.count != current) {
            top.count = current;
            ok = heap_push(&heap, top) == 0;
            continue;
        }
        if (current < 1 || min_frequency > current) {
            PyMem_Free(top.words.spill);
            break;
        }
        int32_t a = (int32_t)(top.pair >> 32), b = (int32_t)(top.pair & 0xffffffffu);
        PyObject *result = PyObject_CallFunction(add_merge, "ii", a, b);
        long new_id = -1;
        if (result && PyArg_ParseTuple(result, "ln", &new_id, &current_size)) {
            PyObject *pair = Py_BuildValue("(ii)", a, b);
            ok = pair && PyList_Append(merges, pair) == 0;
            Py_XDECREF(pair);
        } else {
            ok = 0;
        }
        Py_XDECREF(result);
        if (ok) ok = merge_words(&st, &top.words, a, b, (int32_t)new_id, listed) == 0;
        PyMem_Free(top.words.spill);
        for (Py_ssize_t k = 0; ok && k < pending.size; k++) {
            int64_t count = pairmap_slot(&pair_counts, pending.pairs[k])->value;
            if (count > 0) {
                ok = heap_push(&heap, (HeapEntry){count, pending.pairs[k], pending.lists[k]}) == 0;
                pending.lists[k] = (IntVec){0};
            } else {
                PyMem_Free(pending.lists[k].spill);
            }
        }
        if (ok) pending_clear(&pending);
    }

    for (Py_ssize_t k = 0; k < heap.size; k++) PyMem_Free(heap.entries[k].words.spill);
    for (Py_ssize_t k = 0; k < pending.size; k++) PyMem_Free(pending.lists[k].spill);
    PyMem_Free(heap.entries);
    PyMem_Free(pending.index.slots);
    PyMem_Free(pending.pairs);
    PyMem_Free(pending.lists);
    PyMem_Free(pair_counts.slots);
    PyMem_Free(listed);
    placeindex_free(&places);
    words_free(&ws);
    if (!ok) {
        Py_XDECREF(merges);
        return NULL;
    }
    return merges;
}

/* ------------------------------------------------------------------------------------------------ */
/* WordPieceTable: greedy longest-match-first WordPiece over a vocabulary keyed by code points       */

typedef struct {
    PyObject_HEAD
    WordTable starts, continuations; /* pieces at a word's start; pieces after it, prefix removed */
    Py_ssize_t longest_start, longest_continuation;
    Py_ssize_t max_chars; /* longer words are unknown */
    PyObject *unk_id;     /* None: the vocabulary has no unknown token */
    PyObject *unk_token;
} WordPieceTable;

static int
wordpiece_add(WordTable *table, PyObject *key, Py_ssize_t skip, PyObject *id, Py_ssize_t *longest)
{
    Span w = {PyUnicode_KIND(key), PyUnicode_DATA(key), skip, PyUnicode_GET_LENGTH(key) - skip, key};
    if (w.length <= 0) return 0;
    uint64_t h = hash_code_points(w.kind, w.data, w.start, w.length);
    Entry *e = table_probe(table, &w, h);
    if (e->word) return 0;
    PyObject *piece = span_str(&w);
    if (!piece) return -1;
    Py_INCREF(id);
    if (w.length > *longest) *longest = w.length;
    return table_fill(table, e, h, piece, id, 0);
}

static int
WordPieceTable_init(WordPieceTable *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"vocab", "prefix", "unk_token", "max_chars", NULL};
    PyObject *vocab, *prefix, *unk_token;
    Py_ssize_t max_chars;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!UOn", kwlist, &PyDict_Type, &vocab, &prefix, &unk_token, &max_chars))
        return -1;
    PyObject *unk_id = PyDict_GetItemWithError(vocab, unk_token);
    if (!unk_id && PyErr_Occurred()) return -1;
    Py_XSETREF(self->unk_id, Py_NewRef(unk_id ? unk_id : Py_None));
    Py_XSETREF(self->unk_token, Py_NewRef(unk_token));
    self->max_chars = max_chars;
    table_free(&self->starts);
    table_free(&self->continuations);
    if (table_init(&self->starts, (size_t)PyDict_GET_SIZE(vocab)) < 0 ||
        table_init(&self->continuations, (size_t)PyDict_GET_SIZE(vocab)) < 0)
        return -1;
    self->longest_start = self->longest_continuation = 0;
    Py_ssize_t pos = 0, skip = PyUnicode_GET_LENGTH(prefix);
    PyObject *key, *id;
    while (PyDict_Next(vocab, &pos, &key, &id)) {
        if (!PyUnicode_Check(key) || !PyLong_Check(id)) {
            PyErr_SetString(PyExc_TypeError, "vocab must map str tokens to int ids");
            return -1;
        }
        if (wordpiece_add(&self->starts, key, 0, id, &self->longest_start) < 0) return -1;
        if (PyUnicode_Tailmatch(key, prefix, 0, skip, -1) == 1 &&
            wordpiece_add(&self->continuations, key, skip, id, &self->longest_continuation) < 0)
            return -1;
    }
    return 0;
}

static void
WordPieceTable_dealloc(WordPieceTable *self)
{
    table_free(&self->starts);
    table_free(&self->continuations);
    Py_XDECREF(self->unk_id);
    Py_XDECREF(self->unk_token);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The unknown token standing for the whole word (ValueError when the vocabulary has none). */
static PyObject *
wordpiece_unknown(WordPieceTable *self, Py_ssize_t n, int with_spans)
{
    if (self->unk_id == Py_None) {
        PyErr_Format(PyExc_ValueError, "unk_token %R is not in the vocabulary", self->unk_token);
        return NULL;
    }
    PyObject *piece = with_spans ? Py_BuildValue("(Onn)", self->unk_id, (Py_ssize_t)0, n) : Py_NewRef(self->unk_id);
    if (!piece) return NULL;
    PyObject *out = PyList_New(1);
    if (!out) {
        Py_DECREF(piece);
        return NULL;
    }
    PyList_SET_ITEM(out, 0, piece);
    return out;
}

/* [(id, start, end), ...] of the word's pieces (or only their ids): the longest piece at each point;
 * the unknown token for the whole word when it is too long or some part matches no piece. */
static PyObject *
wordpiece_match(WordPieceTable *self, PyObject *word, int with_spans)
{
    if (!PyUnicode_Check(word)) {
        PyErr_Format(PyExc_TypeError, "word must be a str, got %.100s", Py_TYPE(word)->tp_name);
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(word), start = 0;
    if (n > self->max_chars) return wordpiece_unknown(self, n, with_spans);
    Span w = {PyUnicode_KIND(word), PyUnicode_DATA(word), 0, 0, word};
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    while (start < n) {
        WordTable *table = start ? &self->continuations : &self->starts;
        Py_ssize_t longest = start ? self->longest_continuation : self->longest_start;
        Py_ssize_t end = n - start < longest ? n : start + longest;
        Entry *e = NULL;
        for (; end > start; end--) {
            w.start = start;
            w.length = end - start;
            e = table_probe(table, &w, hash_code_points(w.kind, w.data, w.start, w.length));
            if (e->word) break;
        }
        if (end == start) {
            Py_DECREF(out);
            return wordpiece_unknown(self, n, with_spans);
        }
        PyObject *piece = with_spans ? Py_BuildValue("(Onn)", e->value, start, end) : Py_NewRef(e->value);
        if (!piece || PyList_Append(out, piece) < 0) {
            Py_XDECREF(piece);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(piece);
        start = end;
    }
    return out;
}

static PyObject *
WordPieceTable_spans(WordPieceTable *self, PyObject *word)
{
    return wordpiece_match(self, word, 1);
}

static PyObject *
WordPieceTable_ids(WordPieceTable *self, PyObject *word)
{
    return wordpiece_match(self, word, 0);
}

static PyMethodDef WordPieceTable_methods[] = {
    {"spans", (PyCFunction)WordPieceTable_spans, METH_O,
     "spans(word) -> [(id, start, end), ...] by greedy longest match; the unknown token for the whole "
     "word when it is too long or a part matches nothing"},
    {"ids", (PyCFunction)WordPieceTable_ids, METH_O, "ids(word) -> the ids of spans(word)"},
    {NULL}};

static PyTypeObject WordPieceTableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._native.WordPieceTable",
    .tp_basicsize = sizeof(WordPieceTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "WordPieceTable(vocab, prefix, unk_token, max_chars): WordPiece's greedy longest-match-first "
              "segmentation.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)WordPieceTable_init,
    .tp_dealloc = (destructor)WordPieceTable_dealloc,
    .tp_methods = WordPieceTable_methods,
};

/* ------------------------------------------------------------------------------------------------ */
/* BpeRanks: a model's merges, applied lowest rank first, leftmost on ties                          */

typedef struct {
    PyObject_HEAD
    PairMap ranks; /* (a, b) -> (rank << 32) | new_id */
} BpeRanks;

static int
BpeRanks_init(BpeRanks *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"merges", NULL};
    PyObject *merges;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!", kwlist, &PyList_Type, &merges)) return -1;
    PyMem_Free(self->ranks.slots);
    if (pairmap_init(&self->ranks, (size_t)PyList_GET_SIZE(merges)) < 0) return -1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(merges); i++) {
        long a, b, new_id;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(merges, i), "lll", &a, &b, &new_id)) return -1;
        PairSlot *slot = pairmap_slot(&self->ranks, PAIR(a, b));
        if (!slot) return -1;
        slot->value = ((int64_t)i << 32) | (uint32_t)new_id;
    }
    return 0;
}

static void
BpeRanks_dealloc(BpeRanks *self)
{
    PyMem_Free(self->ranks.slots);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static inline int64_t
rank_of(PairMap *ranks, int32_t a, int32_t b)
{
    size_t i = pair_hash(PAIR(a, b)) & ranks->mask;
    uint64_t key = PAIR(a, b);
    while (ranks->slots[i].key != EMPTY_KEY) {
        if (ranks->slots[i].key == key) return ranks->slots[i].value;
        i = (i + 1) & ranks->mask;
    }
    return -1;
}

static void
minheap_push(uint64_t *heap, Py_ssize_t *size, uint64_t x)
{
    Py_ssize_t i = (*size)++;
    while (i > 0 && heap[(i - 1) / 2] > x) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = x;
}

static uint64_t
minheap_pop(uint64_t *heap, Py_ssize_t *size)
{
    uint64_t top = heap[0], last = heap[--*size];
    Py_ssize_t i = 0;
    for (;;) {
        Py_ssize_t child = 2 * i + 1;
        if (child >= *size) break;
        if (child + 1 < *size && heap[child + 1] < heap[child]) child++;
        if (heap[child] >= last) break;
        heap[i] = heap[child];
        i = child;
    }
    if (*size) heap[i] = last;
    return top;
}

/* merge(ids) -> (merged ids, the first symbol index of each merged token) */
static PyObject *
BpeRanks_merge(BpeRanks *self, PyObject *args)
{
    PyObject *symbols;
    int with_starts = 1;
    if (!PyArg_ParseTuple(args, "O!|p", &PyList_Type, &symbols, &with_starts)) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(symbols);
    int32_t *ids = PyMem_Malloc((n + 1) * sizeof(int32_t));
    Py_ssize_t *next = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t)), *prev = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t));
    char *alive = PyMem_Malloc(n + 1);
    uint64_t *heap = PyMem_Malloc((3 * n + 1) * sizeof(uint64_t)); /* n initial + at most 2 per merge */
    PyObject *out_ids = NULL, *out_starts = NULL, *result = NULL;
    Py_ssize_t size = 0;
    if (!ids || !next || !prev || !alive || !heap) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long id = PyLong_AsLong(PyList_GET_ITEM(symbols, i));
        if (id == -1 && PyErr_Occurred()) goto done;
        ids[i] = (int32_t)id;
        next[i] = i + 1 < n ? i + 1 : -1;
        prev[i] = i - 1;
        alive[i] = 1;
    }
    for (Py_ssize_t i = 0; i + 1 < n; i++) {
        int64_t r = rank_of(&self->ranks, ids[i], ids[i + 1]);
        if (r >= 0) minheap_push(heap, &size, ((uint64_t)(r >> 32) << 32) | (uint64_t)i);
    }
    while (size) {
        uint64_t top = minheap_pop(heap, &size);
        Py_ssize_t pos = (Py_ssize_t)(top & 0xffffffffu);
        int64_t rank = (int64_t)(top >> 32);
        Py_ssize_t right = next[pos];
        if (!alive[pos] || right == -1) continue;
        int64_t r = rank_of(&self->ranks, ids[pos], ids[right]);
        if (r < 0 || (r >> 32) != rank) continue; /* an expired entry */
        ids[pos] = (int32_t)(r & 0xffffffff);
        alive[right] = 0;
        next[pos] = next[right];
        if (next[pos] != -1) prev[next[pos]] = pos;
        if (prev[pos] != -1) {
            int64_t rp = rank_of(&self->ranks, ids[prev[pos]], ids[pos]);
            if (rp >= 0) minheap_push(heap, &size, ((uint64_t)(rp >> 32) << 32) | (uint64_t)prev[pos]);
        }
        if (next[pos] != -1) {
            int64_t rn = rank_of(&self->ranks, ids[pos], ids[next[pos]]);
            if (rn >= 0) minheap_push(heap, &size, ((uint64_t)(rn >> 32) << 32) | (uint64_t)pos);
        }
    }
    out_ids = PyList_New(0);
    if (!out_ids) goto done;
    if (!with_starts) {
        for (Py_ssize_t i = 0; i < n; i++) {
            if (!alive[i]) continue;
            PyObject *id = PyLong_FromLong(ids[i]);
            int rc = id ? PyList_Append(out_ids, id) : -1;
            Py_XDECREF(id);
            if (rc < 0) goto done;
        }
        result = Py_NewRef(out_ids);
        goto done;
    }
    out_starts = PyList_New(0);
    if (!out_starts) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!alive[i]) continue;
        PyObject *id = PyLong_FromLong(ids[i]), *start = PyLong_FromSsize_t(i);
        int rc = id && start ? (PyList_Append(out_ids, id) | PyList_Append(out_starts, start)) : -1;
        Py_XDECREF(id);
        Py_XDECREF(start);
        if (rc < 0) goto done;
    }
    result = PyTuple_Pack(2, out_ids, out_starts);
done:
    Py_XDECREF(out_ids);
    Py_XDECREF(out_starts);
    PyMem_Free(ids);
    PyMem_Free(next);
    PyMem_Free(prev);
    PyMem_Free(alive);
    PyMem_Free(heap);
    return result;
}

static PyMethodDef BpeRanks_methods[] = {
    {"merge", (PyCFunction)BpeRanks_merge, METH_VARARGS,
     "merge(ids, starts=True) -> (ids, starts): apply the merges lowest rank first, leftmost on ties; "
     "starts[k] is the index of the first input symbol of output token k. With starts=False, only the ids."},
    {NULL}};

static PyTypeObject BpeRanksType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._native.BpeRanks",
    .tp_basicsize = sizeof(BpeRanks),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "BpeRanks(merges): merges as (left id, right id, new id), highest priority first.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)BpeRanks_init,
    .tp_dealloc = (destructor)BpeRanks_dealloc,
    .tp_methods = BpeRanks_methods,
};

/* ------------------------------------------------------------------------------------------------ */
/* BottomUpLearner: the rounds of Google's bottom-up WordPiece learner for one word list             */
/*                                                                                                   */
/* A token is (joined, code points): a substring of a word, marked "joined" when it starts inside the */
/* word and the joiner is in use. Callers guarantee no word contains the joiner, so joined and plain  */
/* tokens never spell the same string.                                                               */

typedef struct {
    uint64_t hash;
    int64_t count;
    int32_t word, start, end; /* the code points words[word][start:end] */
    int8_t joined;
    int8_t used;
} TokenSlot;

typedef struct {
    TokenSlot *slots;
    size_t mask, used;
    Py_ssize_t *order;  /* slot indices in insertion order */
    Py_ssize_t longest; /* the most code points of any entry */
} TokenTable;

typedef struct {
    PyObject_HEAD
    Texts words;
    int64_t *counts;
    PyObject *joiner; /* str or None */
    int has_joiner;
    TokenTable first_round; /* discounted counts of round one (threshold-independent) */
    int first_ready;
} BottomUpLearner;

static inline uint64_t
token_hash_step(uint64_t h, uint32_t c)
{
    return (h ^ c) * 0x100000001b3ULL;
}

static inline uint64_t
token_hash_start(int joined)
{
    return 0xcbf29ce484222325ULL ^ (joined ? 0x9e3779b97f4a7c15ULL : 0);
}

static int
tokentable_init(TokenTable *t, size_t capacity)
{
    size_t size = 1024;
    while (size < capacity * 2) size <<= 1;
    t->slots = PyMem_Calloc(size, sizeof(TokenSlot));
    t->order = PyMem_Malloc((size / 2 + 1) * sizeof(Py_ssize_t));
    if (!t->slots || !t->order) {
        PyErr_NoMemory();
        return -1;
    }
    t->mask = size - 1;
    t->used = 0;
    t->longest = 0;
    return 0;
}

static void
tokentable_free(TokenTable *t)
{
    PyMem_Free(t->slots);
    PyMem_Free(t->order);
    t->slots = NULL;
    t->order = NULL;
}

static inline int
same_token(BottomUpLearner *L, const TokenSlot *slot, int joined, const uint32_t *cps, Py_ssize_t n)
{
    if (slot->joined != joined || slot->end - slot->start != n) return 0;
    return memcmp(L->words.cps + L->words.offset[slot->word] + slot->start, cps, n * sizeof(uint32_t)) == 0;
}

static int tokentable_grow(TokenTable *t);

/* The slot for (joined, words[w][start:end]) with the given hash; inserted (count 0) if `insert`. */
static TokenSlot *
tokentable_find(BottomUpLearner *L, TokenTable *t, uint64_t hash, int joined, Py_ssize_t w, Py_ssize_t start,
                Py_ssize_t end, int insert)
{
    const uint32_t *cps = L->words.cps + L->words.offset[w] + start;
    size_t i = (size_t)mix64(hash) & t->mask;
    while (t->slots[i].used) {
        if (t->slots[i].hash == hash && same_token(L, &t->slots[i], joined, cps, end - start)) return &t->slots[i];
        i = (i + 1) & t->mask;
    }
    if (!insert) return NULL;
    if ((t->used + 1) * 2 > t->mask) {
        if (tokentable_grow(t) < 0) return NULL;
        return tokentable_find(L, t, hash, joined, w, start, end, insert);
    }
    TokenSlot *slot = &t->slots[i];
    *slot = (TokenSlot){hash, 0, (int32_t)w, (int32_t)start, (int32_t)end, (int8_t)joined, 1};
    t->order[t->used++] = (Py_ssize_t)i;
    if (end - start > t->longest) t->longest = end - start;
    return slot;
}

static int
tokentable_grow(TokenTable *t)
{
    TokenTable bigger;
    if (tokentable_init(&bigger, t->mask + 1) < 0) return -1;
    for (size_t k = 0; k < t->used; k++) {
        TokenSlot *old = &t->slots[t->order[k]];
        size_t i = (size_t)mix64(old->hash) & bigger.mask;
        while (bigger.slots[i].used) i = (i + 1) & bigger.mask;
        bigger.slots[i] = *old;
        bigger.order[bigger.used++] = (Py_ssize_t)i;
    }
    bigger.longest = t->longest;
    tokentable_free(t);
    *t = bigger;
    return 0;
}

/* The rounds' discounted counts, without the discounting.
 *
 * A round counts c(v), the occurrences of token v starting at a wordpiece start, then walks tokens
 * longest first subtracting each one's (already discounted) count d(u) from its shorter prefixes. The
 * table is closed under prefixes, so by induction from the longest tokens the counts in the subtree
 * under v add up to c(v), and d(v) = c(v) - sum of c over v's one-longer extensions: the occurrences
 * of v that reach the end of their word. So a round only adds each word's count to the suffixes that
 * start at its piece starts, one table probe per start instead of one per substring plus a discount.
 * Tokens that are never such a suffix have d = 0; they matter only for a threshold <= 0, and
 * `with_prefixes` then also enters every shorter substring with count 0.
 *
 * The starts are every position when `tokens` is NULL, else those of the greedy longest-match split by
 * `tokens` (words that cannot be split are skipped). */
static int
count_suffixes(BottomUpLearner *L, TokenTable *tokens, int with_prefixes, TokenTable *table)
{
    Py_ssize_t *starts = NULL;
    uint64_t *hashes = NULL;
    Py_ssize_t longest = L->words.longest;
    starts = PyMem_Malloc((longest + 1) * sizeof(Py_ssize_t));
    hashes = PyMem_Malloc((longest + 2) * sizeof(uint64_t));
    if (!starts || !hashes) {
        PyMem_Free(starts);
        PyMem_Free(hashes);
        PyErr_NoMemory();
        return -1;
    }
    int rc = 0;
    for (Py_ssize_t w = 0; rc == 0 && w < L->words.n; w++) {
        Py_ssize_t n = L->words.length[w], n_starts = 0;
        const uint32_t *cps = L->words.cps + L->words.offset[w];
        if (!tokens) {
            for (Py_ssize_t i = 0; i < n; i++) starts[n_starts++] = i;
        } else {
            Py_ssize_t start = 0;
            while (start < n) {
                int joined = start > 0 && L->has_joiner;
                /* nothing longer than the longest token can match, so the search starts there */
                Py_ssize_t end = start + tokens->longest < n ? start + tokens->longest : n;
                uint64_t h = token_hash_start(joined);
                for (Py_ssize_t i = start + 1; i <= end; i++) hashes[i] = h = token_hash_step(h, cps[i - 1]);
                while (end > start && !tokentable_find(L, tokens, hashes[end], joined, w, start, end, 0)) end--;
                if (end == start) {
                    n_starts = -1;
                    break;
                }
                starts[n_starts++] = start;
                start = end;
            }
            if (n_starts < 0) continue;
        }
        for (Py_ssize_t k = 0; rc == 0 && k < n_starts; k++) {
            Py_ssize_t start = starts[k];
            int joined = start > 0 && L->has_joiner;
            uint64_t h = token_hash_start(joined);
            for (Py_ssize_t end = start + 1; end <= n; end++) {
                h = token_hash_step(h, cps[end - 1]);
                if (end < n && !with_prefixes) continue;
                TokenSlot *slot = tokentable_find(L, table, h, joined, w, start, end, 1);
                if (!slot) {
                    rc = -1;
                    break;
                }
                if (end == n) slot->count += L->counts[w];
            }
        }
    }
    PyMem_Free(starts);
    PyMem_Free(hashes);
    return rc;
}

/* tokens := entries of `table` counted at least `thresh`, plus every character (and joined
 * character) with count 1 when absent. */
static int
select_tokens(BottomUpLearner *L, TokenTable *table, int64_t thresh, TokenTable *tokens)
{
    if (table) {
        for (size_t k = 0; k < table->used; k++) {
            TokenSlot *slot = &table->slots[table->order[k]];
            if (slot->count < thresh) continue;
            TokenSlot *kept = tokentable_find(L, tokens, slot->hash, slot->joined, slot->word, slot->start, slot->end, 1);
            if (!kept) return -1;
            kept->count = slot->count;
        }
    }
    for (Py_ssize_t w = 0; w < L->words.n; w++) {
        const uint32_t *cps = L->words.cps + L->words.offset[w];
        for (Py_ssize_t i = 0; i < L->words.length[w]; i++) {
            for (int joined = 0; joined <= L->has_joiner; joined++) {
                uint64_t h = token_hash_step(token_hash_start(joined), cps[i]);
                size_t before = tokens->used;
                TokenSlot *slot = tokentable_find(L, tokens, h, joined, w, i, i + 1, 1);
                if (!slot) return -1;
                if (tokens->used != before) slot->count = 1; /* absent: added with count 1 */
            }
        }
    }
    return 0;
}

static int
BottomUpLearner_init(BottomUpLearner *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"words", "counts", "joiner", NULL};
    PyObject *words, *counts, *joiner;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!O", kwlist, &PyList_Type, &words, &PyList_Type, &counts,
                                     &joiner))
        return -1;
    if (PyList_GET_SIZE(counts) != PyList_GET_SIZE(words)) {
        PyErr_SetString(PyExc_ValueError, "words and counts differ in length");
        return -1;
    }
    if (texts_init(&self->words, words, "words") < 0) return -1;
    self->counts = int64_array(counts, self->words.n, "counts");
    if (!self->counts) return -1;
    Py_INCREF(joiner);
    self->joiner = joiner;
    self->has_joiner = joiner != Py_None;
    return 0;
}

static void
BottomUpLearner_dealloc(BottomUpLearner *self)
{
    texts_free(&self->words);
    PyMem_Free(self->counts);
    Py_XDECREF(self->joiner);
    tokentable_free(&self->first_round);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
token_str(BottomUpLearner *L, const TokenSlot *slot)
{
    PyObject *piece = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, L->words.cps + L->words.offset[slot->word] + slot->start,
                                                slot->end - slot->start);
    if (!piece || !slot->joined) return piece;
    PyObject *joined = PyUnicode_Concat(L->joiner, piece);
    Py_DECREF(piece);
    return joined;
}

/* tokens(thresh, num_iterations) -> {token: count} after the rounds, characters included */
static PyObject *
BottomUpLearner_tokens(BottomUpLearner *self, PyObject *args)
{
    long long thresh;
    int iterations;
    if (!PyArg_ParseTuple(args, "Li", &thresh, &iterations)) return NULL;
    TokenTable tokens = {0}, table = {0};
    PyObject *result = NULL;
    if (tokentable_init(&tokens, 1024) < 0) goto done;
    if (select_tokens(self, NULL, 0, &tokens) < 0) goto done;
    /* a threshold <= 0 also keeps tokens counted 0, so those rounds enter every prefix (not cached) */
    int with_prefixes = thresh <= 0;
    for (int round = 0; round < iterations; round++) {
        TokenTable *counted;
        if (round == 0 && !with_prefixes) {
            if (!self->first_ready) {
                if (tokentable_init(&self->first_round, 1024) < 0 ||
                    count_suffixes(self, NULL, 0, &self->first_round) < 0)
                    goto done;
                self->first_ready = 1;
            }
            counted = &self->first_round;
        } else {
            if (tokentable_init(&table, tokens.used) < 0 || count_suffixes(self, round ? &tokens : NULL, with_prefixes, &table) < 0)
                goto done;
            counted = &table;
        }
        tokentable_free(&tokens);
        if (tokentable_init(&tokens, counted->used) < 0 || select_tokens(self, counted, thresh, &tokens) < 0) goto done;
        if (counted == &table) tokentable_free(&table);
    }
    result = PyDict_New();
    for (size_t k = 0; result && k < tokens.used; k++) {
        TokenSlot *slot = &tokens.slots[tokens.order[k]];
        PyObject *key = token_str(self, slot), *value = PyLong_FromLongLong(slot->count);
        if (!key || !value || PyDict_SetItem(result, key, value) < 0) Py_CLEAR(result);
        Py_XDECREF(key);
        Py_XDECREF(value);
    }
done:
    tokentable_free(&tokens);
    tokentable_free(&table);
    return result;
}

static PyMethodDef BottomUpLearner_methods[] = {
    {"tokens", (PyCFunction)BottomUpLearner_tokens, METH_VARARGS,
     "tokens(thresh, num_iterations) -> {token: count} after the learning rounds, characters included"},
    {NULL}};

static PyTypeObject BottomUpLearnerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._native.BottomUpLearner",
    .tp_basicsize = sizeof(BottomUpLearner),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "BottomUpLearner(words, counts, joiner): the rounds of the bottom-up WordPiece learner.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)BottomUpLearner_init,
    .tp_dealloc = (destructor)BottomUpLearner_dealloc,
    .tp_methods = BottomUpLearner_methods,
};

/* ------------------------------------------------------------------------------------------------ */

static PyMethodDef module_methods[] = {
    {"bpe_merge_loop", bpe_merge_loop, METH_VARARGS,
     "bpe_merge_loop(words, counts, vocab_size, current_size, min_frequency, max_length, add_merge) -> "
     "merged pairs in order; add_merge(a, b) -> (new_id, vocabulary size) names each new token"},
    {"fill_padded", fill_padded, METH_VARARGS,
     "fill_padded(out, sequences, pre_padding, pre_truncating) -> bool: copy int/float lists into a "
     "padded 2-D buffer; False when an element needs NumPy's conversion rules"},
    {NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "kvec._native", "The hot loops behind kvec's Python API.", -1, module_methods};

PyMODINIT_FUNC
PyInit__native(void)
{
    str_lower = PyUnicode_InternFromString("lower");
    if (!str_lower) return NULL;
    if (PyType_Ready(&WordSplitterType) < 0 || PyType_Ready(&WordCounterType) < 0 ||
        PyType_Ready(&WordLookupType) < 0 || PyType_Ready(&BpeRanksType) < 0 ||
        PyType_Ready(&BottomUpLearnerType) < 0 || PyType_Ready(&WordPieceTableType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    Py_INCREF(&WordSplitterType);
    Py_INCREF(&WordCounterType);
    Py_INCREF(&WordLookupType);
    Py_INCREF(&BpeRanksType);
    Py_INCREF(&BottomUpLearnerType);
    Py_INCREF(&WordPieceTableType);
    if (PyModule_AddObject(m, "WordPieceTable", (PyObject *)&WordPieceTableType) < 0 ||
        PyModule_AddObject(m, "WordSplitter", (PyObject *)&WordSplitterType) < 0 ||
        PyModule_AddObject(m, "BottomUpLearner", (PyObject *)&BottomUpLearnerType) < 0 ||
        PyModule_AddObject(m, "BpeRanks", (PyObject *)&BpeRanksType) < 0 ||
        PyModule_AddObject(m, "WordLookup", (PyObject *)&WordLookupType) < 0 ||
        PyModule_AddObject(m, "WordCounter", (PyObject *)&WordCounterType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
