/* csrc/charsmap.c: sentencepiece's normalizer, for kvec/charsmap.py and
 * kvec.normalizers.SentencePieceNormalizer.
 *
 *   CharsMapTable(units, replacements)
 *       units: the darts-clone double-array trie of the precompiled character map, as little-endian
 *              uint32 bytes; replacements: the blob of NUL-terminated replacement strings its values
 *              point into.
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

#include "native.h"

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
} CharsMapTable;

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
    const unsigned char *bytes = (const unsigned char *)units;
    for (Py_ssize_t i = 0; i < self->n_units; i++)
        self->units[i] = (uint32_t)bytes[4 * i] | (uint32_t)bytes[4 * i + 1] << 8 | (uint32_t)bytes[4 * i + 2] << 16 |
                         (uint32_t)bytes[4 * i + 3] << 24;
    memcpy(self->replacements, replacements, (size_t)n_replacements);
    self->n_replacements = n_replacements;
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

/* UTF-8 of one code point (lone surrogates as three bytes, as "surrogatepass" writes them). */
static inline int
utf8_of(uint32_t c, unsigned char *out)
{
    if (c < 0x80) {
        out[0] = (unsigned char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (unsigned char)(0xC0 | (c >> 6));
        out[1] = (unsigned char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (c >> 12));
        out[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | (c >> 18));
    out[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (c & 0x3F));
    return 4;
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

/* The steps over the text (-1 with an exception set). */
static Py_ssize_t
find_steps(CharsMapTable *t, PyObject *text, PyObject *symbols, Step *steps)
{
    Chars in = {PyUnicode_KIND(text), PyUnicode_DATA(text)};
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), count = 0, p = 0;
    unsigned char window[4 * WINDOW];
    Py_ssize_t ends[WINDOW]; /* UTF-8 end of each character of the window */
    while (p < n) {
        Step *step = &steps[count++];
        step->start = p;
        step->text = NULL;
        Py_ssize_t symbol = symbol_at(symbols, &in, n, p);
        if (symbol) {
            step->end = p + symbol;
            p = step->end;
            continue;
        }
        step->end = p + 1;
        if (t->n_units) {
            Py_ssize_t bytes = 0, chars = 0;
            for (; chars < WINDOW && p + chars < n; chars++) {
                bytes += utf8_of(PyUnicode_READ(in.kind, in.data, p + chars), window + bytes);
                ends[chars] = bytes;
            }
            uint32_t value = 0;
            Py_ssize_t matched = 0;
            if (longest_key(t, window, bytes, &value, &matched)) {
                Py_ssize_t whole = 0; /* the match must end where a character ends */
                while (whole < chars && ends[whole] < matched) whole++;
                if (whole < chars && ends[whole] == matched) {
                    step->text = replacement_of(t, value);
                    if (!step->text) return -1;
                    step->end = p + whole + 1;
                }
            }
        }
        p = step->end;
    }
    return count;
}

static PyObject *
CharsMapTable_normalize(CharsMapTable *self, PyObject *args)
{
    PyObject *text, *symbols;
    int dummy_prefix, remove_extra, escape, want_spans;
    if (!PyArg_ParseTuple(args, "UO!pppp", &text, &PyTuple_Type, &symbols, &dummy_prefix, &remove_extra, &escape,
                          &want_spans))
        return NULL;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(symbols); k++) {
        if (!PyUnicode_Check(PyTuple_GET_ITEM(symbols, k))) {
            PyErr_Format(PyExc_TypeError, "symbols[%zd] must be a str", k);
            return NULL;
        }
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Chars in = {PyUnicode_KIND(text), PyUnicode_DATA(text)};
    Step *steps = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(Step));
    if (!steps) return PyErr_NoMemory();
    PyObject *result = NULL;
    Py_UCS4 *out = NULL;
    int64_t *starts = NULL, *ends = NULL;
    Py_ssize_t count = find_steps(self, text, symbols, steps);
    if (count < 0) goto done;

    /* the output is at most one character per replacement character, plus the dummy prefix */
    Py_ssize_t capacity = 1;
    for (Py_ssize_t s = 0; s < count; s++) capacity += step_length(&steps[s]);
    out = PyMem_Malloc((size_t)capacity * sizeof(Py_UCS4));
    starts = PyMem_Malloc((size_t)capacity * sizeof(int64_t));
    ends = PyMem_Malloc((size_t)capacity * sizeof(int64_t));
    if (!out || !starts || !ends) {
        PyErr_NoMemory();
        goto done;
    }
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
                for (; k < length; k++) {
                    Py_UCS4 c = step_char(step, &in, k);
                    out[used] = c == SPACE && escape ? ESCAPED_SPACE : c;
                    starts[used] = step->start;
                    ends[used] = step->end;
                    used++;
                }
                previous_space = step_char(step, &in, length - 1) == SPACE;
            }
            if (!remove_extra) previous_space = 0;
        }
        if (remove_extra)
            while (used > 0 && out[used - 1] == space) used--;
    }
    PyObject *normalized = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, used);
    if (!normalized) goto done;
    if (!want_spans) {
        result = Py_BuildValue("(NOO)", normalized, Py_None, Py_None);
        goto done;
    }
    result = Py_BuildValue("(Ny#y#)", normalized, (const char *)starts, (Py_ssize_t)(used * sizeof(int64_t)),
                           (const char *)ends, (Py_ssize_t)(used * sizeof(int64_t)));
done:
    PyMem_Free(steps);
    PyMem_Free(out);
    PyMem_Free(starts);
    PyMem_Free(ends);
    return result;
}

static PyMethodDef CharsMapTable_methods[] = {
    {"normalize", (PyCFunction)CharsMapTable_normalize, METH_VARARGS,
     "normalize(text, symbols, add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces, spans) -> "
     "(normalized, starts, ends): sentencepiece's normalization of text"},
    {NULL, NULL, 0, NULL}};

PyTypeObject CharsMapTableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._native.CharsMapTable",
    .tp_basicsize = sizeof(CharsMapTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "CharsMapTable(units, replacements): sentencepiece's precompiled character map and its "
              "normalization.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)CharsMapTable_init,
    .tp_dealloc = (destructor)CharsMapTable_dealloc,
    .tp_methods = CharsMapTable_methods,
};
