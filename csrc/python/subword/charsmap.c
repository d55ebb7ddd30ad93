/* csrc/python/subword/charsmap.c: sentencepiece's normalizer, for kvec/charsmap.py and
 * kvec.normalizers.SentencePieceNormalizer.
 *
 *   CharsMapTable(units, replacements)
 *       units: the darts-clone double-array trie of the precompiled character map, as little-endian
 *              uint32 bytes; replacements: the blob of NUL-terminated replacement strings its values
 *              point into.
 *       .normalize_batch(texts, symbols, add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces)
 *           -> list of normalized texts, each as normalize gives it
 *       .normalize(text, symbols, add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces, spans)
 *           -> (normalized, starts, ends): at each position a user-defined symbol (the first of
 *              `symbols` that starts there; pass them longest first) is kept as it is, else the longest
 *              key of the map that covers whole characters is replaced, else one character is kept.
 *              Then sentencepiece's whitespace rules. With `spans`, starts and ends (int64 bytes) give
 *              for each output character the input characters [start, end) it stands for; the dummy
 *              prefix has start == end. With all three flags off the result is the map alone.
 *
 * The trie walk reads every unit through a bounds check: a corrupt map gives a wrong replacement or
 * none, never a read outside the units.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "subword.h"
#include "utf8.h"

#define WINDOW 16              /* characters offered to the trie at each position, as sentencepiece */
#define SPACE 0x20
#define ESCAPED_SPACE 0x2581   /* ▁ */

typedef struct {
    PyObject_HEAD
    uint32_t *units;
    Py_ssize_t n_units;
    char *replacements;
    Py_ssize_t n_replacements;
    PyObject *decoded; /* {value: str}, filled on first use */
    /* ASCII shortcuts: a character kept as it is when the map has no key for it alone and none that
     * begins with it and the character after it (an ASCII character or the end of the text) */
    unsigned char keyed[128];           /* it alone is a key */
    unsigned char pairs[128][128 / 8];  /* some key begins with these two */
    /* other characters of the Basic Multilingual Plane: kept as they are when no key begins with
     * their UTF-8 (a bit per code point: some key does) */
    unsigned char begins_key[0x10000 / 8];
} CharsMapTable;

/* darts-clone's offset of a unit: 22 bits, shifted left by 8 when bit 9 is set */
static inline int64_t
unit_offset(uint32_t unit)
{
    return (int64_t)(unit >> 10) << ((unit & (1u << 9)) >> 6);
}

/* The longest key that is a prefix of key[0:length] (stopping at a NUL byte): 1 with its value and
 * its length in bytes, or 0. */
static int
longest_key(const CharsMapTable *t, const unsigned char *key, Py_ssize_t length, uint32_t *value, Py_ssize_t *found)
{
    if (!t->n_units) return 0;
    int hit = 0;
    int64_t position = unit_offset(t->units[0]);
    for (Py_ssize_t i = 0; i < length && key[i]; i++) {
        position ^= key[i];
        if (position < 0 || position >= t->n_units) break;
        uint32_t unit = t->units[position];
        if ((unit & ((1u << 31) | 0xFFu)) != key[i]) break;
        position ^= unit_offset(unit);
        if ((unit >> 8) & 1 && position >= 0 && position < t->n_units) {
            *value = t->units[position] & 0x7FFFFFFFu;
            *found = i + 1;
            hit = 1;
        }
    }
    return hit;
}

/* Whether some key begins with key[0:length] (no NUL in it). */
static int
walks(const CharsMapTable *t, const unsigned char *key, Py_ssize_t length)
{
    int64_t position = unit_offset(t->units[0]);
    for (Py_ssize_t i = 0; i < length; i++) {
        position ^= key[i];
        if (position < 0 || position >= t->n_units) return 0;
        uint32_t unit = t->units[position];
        if ((unit & ((1u << 31) | 0xFFu)) != key[i]) return 0;
        position ^= unit_offset(unit);
    }
    return 1;
}

/* The map's units from little-endian bytes. */
static void
read_units(uint32_t *units, const unsigned char *bytes, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        units[i] = (uint32_t)bytes[4 * i] | (uint32_t)bytes[4 * i + 1] << 8 | (uint32_t)bytes[4 * i + 2] << 16 |
                   (uint32_t)bytes[4 * i + 3] << 24;
}

/* The shortcuts of the walk: for each ASCII character its longest key and the ASCII pairs that continue
 * a key, and the characters of the BMP past ASCII that begin one. */
static void
index_starts(CharsMapTable *self)
{
    memset(self->keyed, 0, sizeof(self->keyed));
    memset(self->pairs, 0, sizeof(self->pairs));
    for (int c = 1; c < 128 && self->n_units; c++) { /* the walk stops at NUL */
        unsigned char key[3] = {(unsigned char)c, 0, 0};
        uint32_t value;
        Py_ssize_t found;
        self->keyed[c] = longest_key(self, key, 1, &value, &found);
        for (int d = 1; d < 128; d++) {
            key[1] = (unsigned char)d;
            if (walks(self, key, 2)) self->pairs[c][d / 8] |= (unsigned char)(1u << (d % 8));
        }
    }
    memset(self->begins_key, 0, sizeof(self->begins_key));
    for (uint32_t c = 128; c < 0x10000 && self->n_units; c++) {
        unsigned char bytes[4];
        if (walks(self, bytes, utf8_of(c, bytes))) self->begins_key[c / 8] |= (unsigned char)(1u << (c % 8));
    }
}

static int
CharsMapTable_init(CharsMapTable *self, PyObject *args, PyObject *Py_UNUSED(kwds))
{
    const char *units, *replacements;
    Py_ssize_t n_units, n_replacements;
    if (!PyArg_ParseTuple(args, "y#y#", &units, &n_units, &replacements, &n_replacements)) return -1;
    if (n_units % 4) {
        PyErr_SetString(PyExc_ValueError, "units must be whole uint32 values");
        return -1;
    }
    PyMem_Free(self->units);
    PyMem_Free(self->replacements);
    Py_CLEAR(self->decoded);
    self->n_units = n_units / 4;
    self->units = PyMem_Malloc((size_t)(self->n_units ? self->n_units : 1) * sizeof(uint32_t));
    self->replacements = PyMem_Malloc((size_t)(n_replacements ? n_replacements : 1));
    self->decoded = PyDict_New();
    if (!self->units || !self->replacements || !self->decoded) {
        PyErr_NoMemory();
        return -1;
    }
    read_units(self->units, (const unsigned char *)units, self->n_units);
    memcpy(self->replacements, replacements, (size_t)n_replacements);
    self->n_replacements = n_replacements;
    index_starts(self);
    return 0;
}

static void
CharsMapTable_dealloc(CharsMapTable *self)
{
    PyMem_Free(self->units);
    PyMem_Free(self->replacements);
    Py_XDECREF(self->decoded);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The replacement string a map value points to (borrowed from the cache); NULL with an exception. */
static PyObject *
replacement_of(CharsMapTable *t, uint32_t value)
{
    PyObject *key = PyLong_FromUnsignedLong(value);
    if (!key) return NULL;
    PyObject *text = PyDict_GetItemWithError(t->decoded, key);
    if (!text && !PyErr_Occurred()) {
        const char *start = t->replacements + (value < t->n_replacements ? value : t->n_replacements);
        Py_ssize_t left = t->n_replacements - (start - t->replacements);
        const char *end = memchr(start, 0, (size_t)left);
        text = PyUnicode_DecodeUTF8(start, end ? end - start : left, "replace");
        if (text && PyDict_SetItem(t->decoded, key, text) < 0) Py_CLEAR(text);
        Py_XDECREF(text); /* the cache holds it */
    }
    Py_DECREF(key);
    return text;
}

/* One step of the normalization: input characters [start, end) become `text` (NULL: themselves). */
typedef struct {
    Py_ssize_t start, end;
    PyObject *text; /* borrowed */
    int kept;       /* characters kept one by one (each stands for itself), not a symbol or a replacement */
} Step;

typedef struct {
    int kind;
    const void *data;
} Chars;

static inline Py_UCS4
step_char(const Step *s, const Chars *in, Py_ssize_t k)
{
    return s->text ? PyUnicode_READ_CHAR(s->text, k) : PyUnicode_READ(in->kind, in->data, s->start + k);
}

static inline Py_ssize_t
step_length(const Step *s)
{
    return s->text ? PyUnicode_GET_LENGTH(s->text) : s->end - s->start;
}

/* The symbol of `symbols` that starts at position p of the text, as its length (0: none). */
static Py_ssize_t
symbol_at(PyObject *symbols, const Chars *in, Py_ssize_t n, Py_ssize_t p)
{
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(symbols); k++) {
        PyObject *symbol = PyTuple_GET_ITEM(symbols, k);
        Py_ssize_t length = PyUnicode_GET_LENGTH(symbol);
        if (length == 0 || length > n - p) continue;
        Py_ssize_t i = 0;
        while (i < length && PyUnicode_READ_CHAR(symbol, i) == PyUnicode_READ(in->kind, in->data, p + i)) i++;
        if (i == length) return length;
    }
    return 0;
}

/* Whether the character at p is surely kept as it is (see CharsMapTable.keyed and .begins_key). */
static inline int
kept_char(const CharsMapTable *t, const Chars *in, Py_ssize_t n, Py_ssize_t p)
{
    Py_UCS4 c = PyUnicode_READ(in->kind, in->data, p);
    if (c >= 128) return c < 0x10000 && !(t->begins_key[c / 8] >> (c % 8) & 1);
    if (t->keyed[c]) return 0;
    if (p + 1 == n) return 1;
    Py_UCS4 d = PyUnicode_READ(in->kind, in->data, p + 1);
    return d < 128 && d && !(t->pairs[c][d / 8] >> (d % 8) & 1);
}

/* The steps over the text (-1 with an exception set). The text is written as UTF-8 once (an ASCII str
 * is its own UTF-8), and the trie is offered the bytes of the next WINDOW characters at each position. */
static Py_ssize_t
find_steps(CharsMapTable *t, PyObject *text, PyObject *symbols, Step *steps)
{
    Chars in = {PyUnicode_KIND(text), PyUnicode_DATA(text)};
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), count = 0, p = 0;
    const unsigned char *utf8 = NULL;
    unsigned char *written = NULL;
    Py_ssize_t *ends = NULL; /* UTF-8 end of each character; NULL for ASCII, where it is i + 1 */
    if (t->n_units && !PyUnicode_IS_ASCII(text)) {
        written = PyMem_Malloc((size_t)(4 * n + 1));
        ends = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n + 1));
        if (!written || !ends) {
            PyMem_Free(written);
            PyMem_Free(ends);
            PyErr_NoMemory();
            return -1;
        }
        Py_ssize_t bytes = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            bytes += utf8_of(PyUnicode_READ(in.kind, in.data, i), written + bytes);
            ends[i] = bytes;
        }
        utf8 = written;
    } else if (t->n_units) {
        utf8 = PyUnicode_1BYTE_DATA(text);
    }
#define BYTE_END(i) (ends ? ends[i] : (i) + 1)
    while (p < n) {
        Step *step = &steps[count++];
        step->start = p;
        step->text = NULL;
        step->kept = 0;
        Py_ssize_t symbol = symbol_at(symbols, &in, n, p);
        if (symbol) {
            step->end = p + symbol;
            p = step->end;
            continue;
        }
        step->end = p + 1;
        if (PyTuple_GET_SIZE(symbols) == 0 && kept_char(t, &in, n, p)) {
            /* a run of such characters other than spaces is one step that keeps them */
            step->kept = 1;
            if (PyUnicode_READ(in.kind, in.data, p) != SPACE)
                while (step->end < n && PyUnicode_READ(in.kind, in.data, step->end) != SPACE &&
                       kept_char(t, &in, n, step->end))
                    step->end++;
            p = step->end;
            continue;
        }
        if (t->n_units) {
            Py_ssize_t chars = n - p < WINDOW ? n - p : WINDOW;
            Py_ssize_t from = p ? BYTE_END(p - 1) : 0, to = BYTE_END(p + chars - 1);
            uint32_t value = 0;
            Py_ssize_t matched = 0;
            if (longest_key(t, utf8 + from, to - from, &value, &matched)) {
                Py_ssize_t whole = 0; /* the match must end where a character ends */
                while (whole < chars && BYTE_END(p + whole) - from < matched) whole++;
                if (whole < chars && BYTE_END(p + whole) - from == matched) {
                    step->text = replacement_of(t, value);
                    if (!step->text) {
                        count = -1;
                        break;
                    }
                    step->end = p + whole + 1;
                }
            }
        }
        p = step->end;
    }
#undef BYTE_END
    PyMem_Free(written);
    PyMem_Free(ends);
    return count;
}

static int
check_symbols(PyObject *symbols)
{
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(symbols); k++) {
        if (!PyUnicode_Check(PyTuple_GET_ITEM(symbols, k))) {
            PyErr_Format(PyExc_TypeError, "symbols[%zd] must be a str", k);
            return -1;
        }
    }
    return 0;
}

/* Working memory of normalize_text, kept from text to text of a batch. */
typedef struct {
    Step *steps;
    Py_UCS4 *out;
    int64_t *starts, *ends;
    Py_ssize_t step_capacity, capacity;
} Scratch;

static void
scratch_free(Scratch *s)
{
    PyMem_Free(s->steps);
    PyMem_Free(s->out);
    PyMem_Free(s->starts);
    PyMem_Free(s->ends);
    memset(s, 0, sizeof(*s));
}

/* *buffer reallocated to hold `size` elements of `width` bytes; -1 when out of memory. */
static int
fit(void **buffer, Py_ssize_t size, size_t width)
{
    void *grown = PyMem_Realloc(*buffer, (size_t)(size ? size : 1) * width);
    if (!grown) return -1;
    *buffer = grown;
    return 0;
}

/* (normalized, starts, ends) of one text (starts and ends None without want_spans). */
static PyObject *
normalize_text(CharsMapTable *self, Scratch *scratch, PyObject *text, PyObject *symbols, int dummy_prefix,
               int remove_extra, int escape, int want_spans)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Chars in = {PyUnicode_KIND(text), PyUnicode_DATA(text)};
    if (n > scratch->step_capacity) {
        if (fit((void **)&scratch->steps, n, sizeof(Step)) < 0) return PyErr_NoMemory();
        scratch->step_capacity = n;
    }
    Step *steps = scratch->steps;
    Py_ssize_t count = find_steps(self, text, symbols, steps);
    if (count < 0) return NULL;

    /* the output is at most one character per replacement character, plus the dummy prefix */
    Py_ssize_t capacity = 1;
    for (Py_ssize_t s = 0; s < count; s++) capacity += step_length(&steps[s]);
    if (capacity > scratch->capacity) {
        if (fit((void **)&scratch->out, capacity, sizeof(Py_UCS4)) < 0 ||
            fit((void **)&scratch->starts, capacity, sizeof(int64_t)) < 0 ||
            fit((void **)&scratch->ends, capacity, sizeof(int64_t)) < 0)
            return PyErr_NoMemory();
        scratch->capacity = capacity;
    }
    Py_UCS4 *out = scratch->out;
    int64_t *starts = scratch->starts, *ends = scratch->ends;
    Py_UCS4 space = escape ? ESCAPED_SPACE : SPACE;
    Py_ssize_t first = 0, used = 0;
    if (remove_extra)
        while (first < count && step_length(&steps[first]) == 1 && step_char(&steps[first], &in, 0) == SPACE) first++;
    if (first < count) {
        if (dummy_prefix) {
            out[used] = space;
            starts[used] = ends[used] = steps[first].start;
            used++;
        }
        int previous_space = remove_extra;
        for (Py_ssize_t s = first; s < count; s++) {
            const Step *step = &steps[s];
            Py_ssize_t k = 0, length = step_length(step);
            if (previous_space)
                while (k < length && step_char(step, &in, k) == SPACE) k++;
            if (k < length) {
                if (step->kept && !want_spans) { /* kept characters are copied as they are */
                    for (; k < length; k++) {
                        Py_UCS4 c = PyUnicode_READ(in.kind, in.data, step->start + k);
                        out[used++] = c == SPACE && escape ? ESCAPED_SPACE : c;
                    }
                } else {
                    for (; k < length; k++) {
                        Py_UCS4 c = step_char(step, &in, k);
                        out[used] = c == SPACE && escape ? ESCAPED_SPACE : c;
                        /* a replacement stands for all it replaced; kept characters for themselves */
                        starts[used] = step->kept ? step->start + k : step->start;
                        ends[used] = step->kept ? step->start + k + 1 : step->end;
                        used++;
                    }
                }
                previous_space = step_char(step, &in, length - 1) == SPACE;
            }
            if (!remove_extra) previous_space = 0;
        }
        if (remove_extra)
            while (used > 0 && out[used - 1] == space) used--;
    }
    PyObject *normalized = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, used);
    if (!normalized) return NULL;
    if (!want_spans) return Py_BuildValue("(NOO)", normalized, Py_None, Py_None);
    return Py_BuildValue("(Ny#y#)", normalized, (const char *)starts, (Py_ssize_t)(used * sizeof(int64_t)),
                         (const char *)ends, (Py_ssize_t)(used * sizeof(int64_t)));
}

static PyObject *
CharsMapTable_normalize(CharsMapTable *self, PyObject *args)
{
    PyObject *text, *symbols;
    int dummy_prefix, remove_extra, escape, want_spans;
    if (!PyArg_ParseTuple(args, "UO!pppp", &text, &PyTuple_Type, &symbols, &dummy_prefix, &remove_extra, &escape,
                          &want_spans) ||
        check_symbols(symbols) < 0)
        return NULL;
    Scratch scratch = {0};
    PyObject *result = normalize_text(self, &scratch, text, symbols, dummy_prefix, remove_extra, escape, want_spans);
    scratch_free(&scratch);
    return result;
}

/* The normalized text of each text of a list. */
static PyObject *
normalize_texts(CharsMapTable *self, PyObject *texts, PyObject *symbols, int dummy_prefix, int remove_extra,
                int escape)
{
    Py_ssize_t n = PyList_GET_SIZE(texts);
    PyObject *out = PyList_New(n);
    Scratch scratch = {0};
    for (Py_ssize_t i = 0; out && i < n; i++) {
        PyObject *text = PyList_GET_ITEM(texts, i);
        if (!PyUnicode_Check(text)) {
            PyErr_Format(PyExc_TypeError, "texts[%zd] must be a str, got %.100s", i, Py_TYPE(text)->tp_name);
            Py_CLEAR(out);
            break;
        }
        PyObject *result = normalize_text(self, &scratch, text, symbols, dummy_prefix, remove_extra, escape, 0);
        if (!result) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, Py_NewRef(PyTuple_GET_ITEM(result, 0)));
        Py_DECREF(result);
    }
    scratch_free(&scratch);
    return out;
}

static PyObject *
CharsMapTable_normalize_batch(CharsMapTable *self, PyObject *args)
{
    PyObject *texts, *symbols;
    int dummy_prefix, remove_extra, escape;
    if (!PyArg_ParseTuple(args, "O!O!ppp", &PyList_Type, &texts, &PyTuple_Type, &symbols, &dummy_prefix, &remove_extra,
                          &escape) ||
        check_symbols(symbols) < 0)
        return NULL;
    return normalize_texts(self, texts, symbols, dummy_prefix, remove_extra, escape);
}

static PyMethodDef CharsMapTable_methods[] = {
    {"normalize_batch", (PyCFunction)CharsMapTable_normalize_batch, METH_VARARGS,
     "normalize_batch(texts, symbols, add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces) -> list of "
     "the normalized texts"},
    {"normalize", (PyCFunction)CharsMapTable_normalize, METH_VARARGS,
     "normalize(text, symbols, add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces, spans) -> "
     "(normalized, starts, ends): sentencepiece's normalization of text"},
    {NULL, NULL, 0, NULL}};

PyTypeObject CharsMapTableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._subword.CharsMapTable",
    .tp_basicsize = sizeof(CharsMapTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "CharsMapTable(units, replacements): sentencepiece's precompiled character map and its "
              "normalization.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)CharsMapTable_init,
    .tp_dealloc = (destructor)CharsMapTable_dealloc,
    .tp_methods = CharsMapTable_methods,
};
