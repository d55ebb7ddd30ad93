/* csrc/python/encoder/char_rules.c: the CharRules type of kvec._encoder (see char_rules.h), for kvec/normalizers.py.
 *
 *   CharRules(rule)
 *       rule: callable, one character -> the str it becomes (empty: removed), or None when the character
 *             is contextual (its normalization depends on its neighbours). Asked once per code point;
 *             the 256 code points below 256 are asked at once.
 *   .normalize(text) -> str, or None when text holds a contextual character.
 *
 * kvec.normalizers builds the rule from a normalizer itself (what it does to the character alone), so
 * the table and the Python normalizer never disagree; the encoder applies the table natively. */
#define PY_SSIZE_T_CLEAN
#include "char_rules.h"

#include <string.h>

static inline uint32_t
entry_of(const CharRules *self, Py_UCS4 c)
{
    const uint32_t *page = __atomic_load_n(&self->pages[c >> 8], __ATOMIC_ACQUIRE);
    return page ? __atomic_load_n(&page[c & 0xff], __ATOMIC_ACQUIRE) : RULE_UNKNOWN;
}

static inline const uint32_t *
replacement_of(const CharRules *self, uint32_t entry)
{
    uint32_t place = entry >> 2;
    const uint32_t *block = __atomic_load_n(&self->blocks[place >> 16], __ATOMIC_ACQUIRE);
    return block + (place & 0xffff);
}

/* Asks the rule about c and records the answer. */
static int
char_rules_ask(CharRules *self, Py_UCS4 c)
{
    uint32_t **page = &self->pages[c >> 8];
    if (!*page) {
        uint32_t *fresh = PyMem_RawCalloc(256, sizeof(uint32_t));
        if (!fresh) {
            PyErr_NoMemory();
            return -1;
        }
        __atomic_store_n(page, fresh, __ATOMIC_RELEASE);
    }
    PyObject *character = PyUnicode_FromOrdinal((int)c);
    if (!character) return -1;
    PyObject *answer = PyObject_CallOneArg(self->rule, character);
    Py_DECREF(character);
    if (!answer) return -1;
    uint32_t entry;
    if (answer == Py_None) {
        entry = RULE_CONTEXTUAL;
    } else if (!PyUnicode_Check(answer)) {
        PyErr_Format(PyExc_TypeError, "the character rule must return a str or None, got %.100s",
                     Py_TYPE(answer)->tp_name);
        Py_DECREF(answer);
        return -1;
    } else if (PyUnicode_GET_LENGTH(answer) == 1 && PyUnicode_READ_CHAR(answer, 0) == c) {
        entry = RULE_SAME;
    } else {
        Py_ssize_t n = PyUnicode_GET_LENGTH(answer);
        if (n + 1 > RULE_BLOCK_SIZE) {
            entry = RULE_CONTEXTUAL; /* too long for a block: the Python normalizer takes such texts */
        } else {
            if (self->n_blocks == 0 || self->block_used + n + 1 > RULE_BLOCK_SIZE) {
                if (self->n_blocks == RULE_BLOCKS) {
                    Py_DECREF(answer);
                    PyErr_SetString(PyExc_MemoryError, "the character rules hold too many replacements");
                    return -1;
                }
                uint32_t *block = PyMem_RawMalloc(sizeof(uint32_t) * RULE_BLOCK_SIZE);
                if (!block) {
                    Py_DECREF(answer);
                    PyErr_NoMemory();
                    return -1;
                }
                __atomic_store_n(&self->blocks[self->n_blocks++], block, __ATOMIC_RELEASE);
                self->block_used = 0;
            }
            uint32_t *record = self->blocks[self->n_blocks - 1] + self->block_used;
            record[0] = (uint32_t)n;
            for (Py_ssize_t i = 0; i < n; i++) record[i + 1] = PyUnicode_READ_CHAR(answer, i);
            uint32_t place = (uint32_t)((self->n_blocks - 1) << 16) | (uint32_t)self->block_used;
            self->block_used += n + 1;
            entry = (place << 2) | RULE_REPLACE;
        }
    }
    Py_DECREF(answer);
    __atomic_store_n(&(*page)[c & 0xff], entry, __ATOMIC_RELEASE);
    return 0;
}

int
char_rules_learn(CharRules *self, PyObject *text)
{
    if (PyUnicode_KIND(text) == PyUnicode_1BYTE_KIND) return 0; /* known from the start */
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (entry_of(self, c) == RULE_UNKNOWN && char_rules_ask(self, c) < 0) return -1;
    }
    return 0;
}

int
char_rules_apply(const CharRules *self, int kind, const void *data, Py_ssize_t n, Py_UCS4 **out,
                 Py_ssize_t *capacity, Py_ssize_t *length)
{
    Py_ssize_t used = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        uint32_t entry = entry_of(self, c);
        const uint32_t *replacement = NULL;
        Py_ssize_t more = 1;
        if ((entry & 3) == RULE_REPLACE) {
            replacement = replacement_of(self, entry);
            more = replacement[0];
        } else if (entry != RULE_SAME) {
            return 0; /* contextual (or, never after char_rules_learn, unknown) */
        }
        if (used + more > *capacity) {
            Py_ssize_t grown = *capacity ? *capacity : 256;
            while (grown < used + more) grown *= 2;
            Py_UCS4 *buffer = PyMem_RawRealloc(*out, sizeof(Py_UCS4) * (size_t)grown);
            if (!buffer) return -1;
            *out = buffer;
            *capacity = grown;
        }
        if (replacement) {
            for (Py_ssize_t k = 0; k < more; k++) (*out)[used + k] = replacement[k + 1];
            used += more;
        } else {
            (*out)[used++] = c;
        }
    }
    *length = used;
    return 1;
}

static int
CharRules_init(CharRules *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"rule", NULL};
    PyObject *rule;
    if (self->rule) {
        PyErr_SetString(PyExc_RuntimeError, "a CharRules is initialized once");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kwlist, &rule)) return -1;
    if (!PyCallable_Check(rule)) {
        PyErr_SetString(PyExc_TypeError, "rule must be a callable: one character -> str or None");
        return -1;
    }
    Py_INCREF(rule);
    self->rule = rule;
    for (Py_UCS4 c = 0; c < 256; c++)
        if (char_rules_ask(self, c) < 0) return -1;
    return 0;
}

static void
CharRules_dealloc(CharRules *self)
{
    for (Py_ssize_t i = 0; i < RULE_PAGES; i++) PyMem_RawFree(self->pages[i]);
    for (Py_ssize_t i = 0; i < self->n_blocks; i++) PyMem_RawFree(self->blocks[i]);
    Py_XDECREF(self->rule);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
CharRules_normalize(CharRules *self, PyObject *text)
{
    if (!self->rule) {
        PyErr_SetString(PyExc_RuntimeError, "CharRules.__init__ was not called");
        return NULL;
    }
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be a str, got %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    if (char_rules_learn(self, text) < 0) return NULL;
    Py_UCS4 *out = NULL;
    Py_ssize_t capacity = 0, length = 0;
    int applied = char_rules_apply(self, PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text),
                                   &out, &capacity, &length);
    PyObject *result = NULL;
    if (applied < 0) PyErr_NoMemory();
    else if (applied == 0) result = Py_NewRef(Py_None);
    else result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, length);
    PyMem_RawFree(out);
    return result;
}

static PyMethodDef CharRules_methods[] = {
    {"normalize", (PyCFunction)CharRules_normalize, METH_O,
     "normalize(text) -> the normalized str, or None when text holds a contextual character"},
    {NULL}};

PyTypeObject CharRulesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._encoder.CharRules",
    .tp_basicsize = sizeof(CharRules),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "CharRules(rule): a character-by-character normalizer as a native table.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)CharRules_init,
    .tp_dealloc = (destructor)CharRules_dealloc,
    .tp_methods = CharRules_methods,
};
