/* csrc/python/unigram/unigram_encoder.c: whole texts to ids with one Unigram lattice over each text, as sentencepiece
 * encodes, for Lattice.encode_texts (unigram_module.c) and kvec/models/unigram.py.
 *
 *   .encode_texts(texts, prefix=(), suffix=(), words=None) -> (values, row_lengths): the ids of every
 *       text back to back and how many belong to each, as int64 bytes; prefix and suffix ids go around
 *       each text's. words: a class table (bytes) cutting each text into words merged with the
 *       delimiter before them (csrc/core/class_runs.h), one lattice each, as Hugging Face segments
 *       sentencepiece's words; None: one lattice over the whole text, as sentencepiece does.
 *
 * Each text's (or word's) ids are unigram_ids() of csrc/core/unigram_path.h over the str's own data. It
 * runs without the GIL, so callers encode parts of a batch on threads of their own (kvec/pipeline.py
 * does).
 *
 *   .word_model() -> the capsule of csrc/python/word_model.h: the same ids of one word, without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "class_runs.h"
#include "int64s_from_python.h"
#include "unigram.h"
#include "word_model.h"

/* One call's work. */
typedef struct {
    const Lattice *L;
    PyObject **texts;
    Py_ssize_t n;
    const Int64s *prefix, *suffix;
    const ClassTable *words; /* NULL: each text is one lattice */
    Int64s values;
    int64_t *lengths;
    int out_of_memory;
    Py_ssize_t unknown_text, unknown_at; /* a character without any id (no unk_id): where, or -1 */
} Part;

/* Text t's ids (affixes included) onto the part's values; -1 when out of memory or a character has no
 * id. */
static int
encode_text(Part *part, UnigramPath *path, Py_ssize_t t)
{
    PyObject *text = part->texts[t];
    CodePoints view = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    Py_ssize_t before = part->values.length;
    ptrdiff_t unknown_at = 0;
    int status = int64s_extend(&part->values, part->prefix) < 0 ? -1 : 0;
    if (status == 0 && !part->words) status = unigram_ids(&part->L->model, path, &view, &part->values, &unknown_at);
    for (ptrdiff_t i = 0, end; status == 0 && part->words && i < view.length; i = end) {
        end = class_merged_word_end(part->words, &view, i, CLASS_MERGE_NEXT);
        CodePoints word = code_points_slice(&view, i, end - i);
        status = unigram_ids(&part->L->model, path, &word, &part->values, &unknown_at);
        unknown_at += i;
    }
    if (status == 0) status = int64s_extend(&part->values, part->suffix) < 0 ? -1 : 0;
    if (status > 0) {
        part->unknown_text = t;
        part->unknown_at = unknown_at;
        return -1;
    }
    if (status < 0) {
        part->out_of_memory = 1;
        return -1;
    }
    part->lengths[t] = part->values.length - before;
    return 0;
}

static void
encode_part(Part *part)
{
    UnigramPath path = {0};
    for (Py_ssize_t t = 0; t < part->n; t++)
        if (encode_text(part, &path, t) < 0) break;
    unigram_path_free(&path);
}
PyObject *
lattice_encode_texts(Lattice *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"texts", "prefix", "suffix", "words", NULL};
    PyObject *texts, *prefix_arg = NULL, *suffix_arg = NULL, *words = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|OOO", kwlist, &PyList_Type, &texts, &prefix_arg, &suffix_arg,
                                     &words))
        return NULL;
    if (words != Py_None && !PyBytes_Check(words)) {
        PyErr_Format(PyExc_TypeError, "words must be bytes or None, got %.100s", Py_TYPE(words)->tp_name);
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(texts);
    for (Py_ssize_t t = 0; t < n; t++) {
        if (!PyUnicode_Check(PyList_GET_ITEM(texts, t))) {
            PyErr_Format(PyExc_TypeError, "texts[%zd] must be a str, got %.100s", t,
                         Py_TYPE(PyList_GET_ITEM(texts, t))->tp_name);
            return NULL;
        }
    }
    PyObject *result = NULL, *held = PyList_GetSlice(texts, 0, n); /* the texts stay alive and in place */
    Int64s prefix = {0}, suffix = {0};
    int64_t *lengths = NULL;
    if (!held) return NULL;
    if ((prefix_arg && int64s_from_sequence(&prefix, prefix_arg, "prefix") < 0) ||
        (suffix_arg && int64s_from_sequence(&suffix, suffix_arg, "suffix") < 0))
        goto done;
    lengths = PyMem_Calloc((size_t)(n ? n : 1), sizeof(int64_t));
    if (!lengths) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    /* code points past the table are text (class 2); the bytes object outlives the call (an argument) */
    ClassTable table = {words != Py_None ? (const unsigned char *)PyBytes_AS_STRING(words) : NULL,
                        words != Py_None ? PyBytes_GET_SIZE(words) : 0, 2};
    Part part = {self, &PyList_GET_ITEM(held, 0), n, &prefix, &suffix, words != Py_None ? &table : NULL, {0},
                 lengths, 0, -1, -1};
    Py_BEGIN_ALLOW_THREADS
    encode_part(&part);
    Py_END_ALLOW_THREADS
    if (part.out_of_memory) {
        PyErr_NoMemory();
    } else if (part.unknown_text >= 0) {
        PyObject *text = part.texts[part.unknown_text];
        PyObject *c = PyUnicode_Substring(text, part.unknown_at, part.unknown_at + 1);
        if (c) {
            PyErr_Format(PyExc_ValueError, "%R is not in the vocabulary and the model has no unk_id", c);
            Py_DECREF(c);
        }
    } else {
        const char *values = part.values.data ? (const char *)part.values.data : ""; /* NULL: None */
        result = Py_BuildValue("(y#y#)", values,
                               (Py_ssize_t)sizeof(int64_t) * part.values.length, (const char *)lengths,
                               (Py_ssize_t)sizeof(int64_t) * n);
    }
    PyMem_RawFree(part.values.data);
done:
    Py_DECREF(held);
    PyMem_RawFree(prefix.data);
    PyMem_RawFree(suffix.data);
    PyMem_Free(lengths);
    return result;
}

/* WordModel.word_ids: the ids of one word, as encode_texts gives a text's; 1 where a character has no
 * id (Python raises). */
static int
lattice_word_ids(PyObject *model, const Span *word, Int64s *out)
{
    const Lattice *L = (const Lattice *)model;
    CodePoints view = {word->kind, (const char *)word->data + word->start * word->kind, word->length};
    UnigramPath path = {0};
    ptrdiff_t unknown_at = 0;
    int status = unigram_ids(&L->model, &path, &view, out, &unknown_at);
    unigram_path_free(&path);
    return status;
}

static const WordModel lattice_word_model_functions = {lattice_word_ids};

PyObject *
lattice_word_model(Lattice *self, PyObject *Py_UNUSED(ignored))
{
    self->frozen = 1;
    return word_model_capsule((PyObject *)self, &lattice_word_model_functions);
}
