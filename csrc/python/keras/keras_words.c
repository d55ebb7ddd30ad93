/* csrc/python/keras/keras_words.c: the legacy Keras word rule, for kvec/text.py (kvec.Tokenizer).
 *
 * Keras word splitting is "maximal runs of characters that are not separators". Done in Python, every
 * word becomes a regex match object and a string before it is counted; here one pass over the code
 * points creates each word string once and counts it in a table probed without making word strings.
 *
 *   WordSplitter(separators)   .split(text, lower) -> list[str]
 *   WordCounter()              .add_texts(splitter, texts, lower) / .add_tokens(iterable)  one document
 *                                  each text, or the iterable
 *                              .result() -> (words, counts, document_counts) in first-occurrence order
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "keras.h"
#include "code_points.h"
#include "piece_map.h"

/* A word inside a text: its code points, and where they lie in the str `text` (NULL: in a buffer of
 * their own, such as a lowercased ASCII text). */
typedef struct {
    CodePoints points;
    PyObject *text;
    Py_ssize_t start;
} Span;

static PyObject *
span_str(const Span *w)
{
    if (!w->text) return PyUnicode_FromKindAndData(w->points.kind, w->points.data, w->points.length);
    return PyUnicode_Substring(w->text, w->start, w->start + w->points.length);
}

/* ------------------------------------------------------------------------------------------------ */
/* Separator sets                                                                                    */

typedef struct {
    unsigned char ascii[128];
    Py_UCS4 *other; /* code points >= 128, a set (code_point_set_make) */
    Py_ssize_t n_other;
} Separators;

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
    sep->n_other = (Py_ssize_t)code_point_set_make(sep->other, (size_t)sep->n_other);
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
    return code_point_set_has(sep->other, (size_t)sep->n_other, c);
}

/* A text ready to be cut into words: lowercased when asked. An ASCII text is lowercased into a buffer
 * by for_each_word as it cuts it (there str.lower changes A-Z alone), so no new str is made for it;
 * others go through str.lower. */
typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n;
    int ascii;
    int lower_ascii;   /* data is ASCII to be lowercased into buffer */
    PyObject *owner;   /* the str data belongs to (a new reference) */
    Py_UCS1 *buffer;   /* reused from text to text */
    Py_ssize_t capacity;
} Prepared;

static PyObject *str_lower; /* interned "lower": set by keras_words_init */

/* Prepares text (TypeError unless it is a str); -1 with an exception set. */
static int
prepare(Prepared *p, PyObject *text, int lower)
{
    Py_CLEAR(p->owner);
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be a str, got %.100s", Py_TYPE(text)->tp_name);
        return -1;
    }
    p->n = PyUnicode_GET_LENGTH(text);
    p->ascii = PyUnicode_IS_ASCII(text);
    p->lower_ascii = lower && p->ascii;
    if (p->lower_ascii) {
        if (p->n > p->capacity) {
            Py_UCS1 *buffer = PyMem_Realloc(p->buffer, (size_t)p->n);
            if (!buffer) {
                PyErr_NoMemory();
                return -1;
            }
            p->buffer = buffer;
            p->capacity = p->n;
        }
        p->kind = PyUnicode_1BYTE_KIND;
        p->data = PyUnicode_1BYTE_DATA(text);
        return 0;
    }
    p->owner = lower ? PyObject_CallMethodNoArgs(text, str_lower) : Py_NewRef(text);
    if (!p->owner) return -1;
    p->kind = PyUnicode_KIND(p->owner);
    p->data = PyUnicode_DATA(p->owner);
    p->n = PyUnicode_GET_LENGTH(p->owner);
    p->ascii = PyUnicode_IS_ASCII(p->owner);
    return 0;
}

static void
prepared_free(Prepared *p)
{
    Py_CLEAR(p->owner);
    PyMem_Free(p->buffer);
    p->buffer = NULL;
    p->capacity = 0;
}

/* Calls visit(span, hash, arg) for every word of the prepared text, with the word's
 * code_points_hash; visit returns -1 on error. */
typedef int (*visit_fn)(const Span *word, uint64_t hash, void *arg);

static int
for_each_word(const Separators *sep, const Prepared *text, visit_fn visit, void *arg)
{
    Py_ssize_t n = text->n;
    Py_ssize_t i = 0;
    const char *base = text->data;
    Span span = {{text->kind, base, 0}, text->owner, 0};
    if (text->ascii) { /* one pass: lowercase (into the buffer), cut, hash */
        const unsigned char *s = text->data;
        unsigned char *lowered = text->lower_ascii ? text->buffer : NULL;
        const unsigned char *table = sep->ascii;
        if (lowered) {
            base = (const char *)lowered;
            span.text = NULL;
        }
#define AT(k) (lowered ? (lowered[k] = s[k] >= 'A' && s[k] <= 'Z' ? s[k] + 32 : s[k]) : s[k])
        while (i < n) {
            unsigned char c = AT(i);
            if (table[c]) {
                i++;
                continue;
            }
            Py_ssize_t start = i;
            uint64_t h = FNV_OFFSET;
            do h = hash_step(h, c);
            while (++i < n && !table[c = AT(i)]);
            span.start = start;
            span.points = (CodePoints){PyUnicode_1BYTE_KIND, base + start, i - start};
            if (visit(&span, hash_end(h, i - start), arg) < 0) return -1;
        }
#undef AT
        return 0;
    }
    int kind = text->kind;
    while (i < n) {
        while (i < n && is_separator(sep, PyUnicode_READ(kind, base, i))) i++;
        if (i >= n) break;
        Py_ssize_t start = i;
        while (i < n && !is_separator(sep, PyUnicode_READ(kind, base, i))) i++;
        span.start = start;
        span.points = (CodePoints){kind, base + start * kind, i - start};
        if (visit(&span, code_points_hash(&span.points), arg) < 0) return -1;
    }
    return 0;
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
append_word(const Span *w, uint64_t Py_UNUSED(hash), void *list)
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
    Prepared prepared = {0};
    PyObject *out = prepare(&prepared, text, lower) < 0 ? NULL : PyList_New(0);
    if (out && for_each_word(&self->sep, &prepared, append_word, out) < 0) Py_CLEAR(out);
    prepared_free(&prepared);
    return out;
}

static PyMethodDef WordSplitter_methods[] = {
    {"split", (PyCFunction)WordSplitter_split, METH_VARARGS,
     "split(text, lower) -> list of words (maximal runs of non-separator characters)"},
    {NULL}};

PyTypeObject WordSplitterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._keras.WordSplitter",
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
    PieceMap table; /* word -> slot */
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
    piece_map_free(&self->table);
    if (piece_map_init(&self->table, 1024) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    Py_XSETREF(self->words, PyList_New(0));
    if (!self->words) return -1;
    Py_CLEAR(self->other_slots); /* slots of the words before */
    self->documents = 0;
    return 0;
}

static void
WordCounter_dealloc(WordCounter *self)
{
    piece_map_free(&self->table);
    Py_XDECREF(self->words);
    Py_XDECREF(self->other_slots);
    PyMem_Free(self->counts);
    PyMem_Free(self->docs);
    PyMem_Free(self->last_doc);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* 0, or -1 with an exception set when the counter's __init__ was not run */
static int
counter_ready(const WordCounter *self)
{
    if (self->words) return 0;
    PyErr_SetString(PyExc_RuntimeError, "WordCounter.__init__ was not called");
    return -1;
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
count_span(const Span *w, uint64_t h, void *arg)
{
    WordCounter *self = arg;
    const int64_t *seen = piece_map_get(&self->table, &w->points, h);
    if (seen) {
        bump(self, (Py_ssize_t)*seen);
        return 0;
    }
    PyObject *word = span_str(w);
    if (!word) return -1;
    Py_ssize_t slot = new_slot(self, word);
    if (slot < 0) return -1;
    if (piece_map_add(&self->table, &w->points, h, slot) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    bump(self, slot);
    return 0;
}

/* Tokens from Python may be any hashable object: those that are not words (a str, not empty) are
 * counted through a dict of slots. */
static int
count_token(WordCounter *self, PyObject *slots, PyObject *token)
{
    if (PyUnicode_Check(token) && PyUnicode_GET_LENGTH(token) > 0) {
        Span w = {{PyUnicode_KIND(token), PyUnicode_DATA(token), PyUnicode_GET_LENGTH(token)}, token, 0};
        return count_span(&w, code_points_hash(&w.points), self);
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

/* Counts one text's words as a document (not counted when the text cannot be prepared); -1 with an
 * exception set. */
static int
count_text(WordCounter *self, WordSplitter *splitter, Prepared *prepared, PyObject *text, int lower)
{
    if (prepare(prepared, text, lower) < 0) return -1;
    int rc = for_each_word(&splitter->sep, prepared, count_span, self);
    self->documents++;
    return rc;
}

/* add_texts(splitter, texts, lower): the words of each of a list of str counted, one document each
 * (stops at the first error, the texts before it counted) */
static PyObject *
count_texts(WordCounter *self, WordSplitter *splitter, PyObject *texts, int lower)
{
    Prepared prepared = {0};
    int rc = 0;
    for (Py_ssize_t t = 0; rc == 0 && t < PyList_GET_SIZE(texts); t++) {
        PyObject *text = PyList_GET_ITEM(texts, t);
        if (!PyUnicode_Check(text)) {
            PyErr_Format(PyExc_TypeError, "texts[%zd] must be a str, got %.100s", t, Py_TYPE(text)->tp_name);
            rc = -1;
            break;
        }
        rc = count_text(self, splitter, &prepared, text, lower);
    }
    prepared_free(&prepared);
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *
WordCounter_add_texts(WordCounter *self, PyObject *args)
{
    PyObject *splitter, *texts;
    int lower;
    if (!PyArg_ParseTuple(args, "O!O!p", &WordSplitterType, &splitter, &PyList_Type, &texts, &lower) ||
        counter_ready(self) < 0)
        return NULL;
    return count_texts(self, (WordSplitter *)splitter, texts, lower);
}

static PyObject *
WordCounter_add_tokens(WordCounter *self, PyObject *tokens)
{
    if (counter_ready(self) < 0) return NULL;
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
    if (counter_ready(self) < 0) return NULL;
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
WordCounter_get_documents(WordCounter *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLongLong(self->documents);
}

static PyMethodDef WordCounter_methods[] = {
    {"add_texts", (PyCFunction)WordCounter_add_texts, METH_VARARGS,
     "add_texts(splitter, texts, lower): count the words of each str of a list, one document each"},
    {"add_tokens", (PyCFunction)WordCounter_add_tokens, METH_O,
     "add_tokens(tokens): count an iterable of tokens as one document"},
    {"result", (PyCFunction)WordCounter_result, METH_NOARGS,
     "result() -> (words, counts, document_counts), words in first-occurrence order"},
    {NULL}};

static PyGetSetDef WordCounter_getset[] = {
    {"documents", (getter)WordCounter_get_documents, NULL, "number of documents added", NULL}, {NULL}};

PyTypeObject WordCounterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._keras.WordCounter",
    .tp_basicsize = sizeof(WordCounter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "WordCounter(): occurrence and document counts of words, in first-occurrence order.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)WordCounter_init,
    .tp_dealloc = (destructor)WordCounter_dealloc,
    .tp_methods = WordCounter_methods,
    .tp_getset = WordCounter_getset,
};

int
keras_words_init(void)
{
    str_lower = PyUnicode_InternFromString("lower");
    return str_lower ? 0 : -1;
}
