/* csrc/unigram_encoder.c: whole texts to ids with one Unigram lattice over each text, as sentencepiece
 * encodes, for Lattice.encode_texts (unigram_module.c) and kvec/models/unigram.py.
 *
 *   .encode_texts(texts, prefix=(), suffix=()) -> (values, row_lengths): the ids of every text back to
 *       back and how many belong to each, as int64 bytes; prefix and suffix ids go around each text's.
 *
 * Each text's best path is best_path() (unigram_lattice.c) over the str's own data, and its unknown
 * characters are resolved as configure() says: the byte pieces of their UTF-8 where every byte has one
 * (byte_pieces, which resolve_edge uses too), else the unknown token, one for each run. It runs without
 * the GIL, so callers encode parts of a batch on threads of their own (kvec/pipeline.py does).
 *
 *   .word_model() -> the capsule of csrc/word_model.h: ids(word) of unigram_module.c, without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "int64s_from_python.h"
#include "unigram.h"
#include "utf8.h"
#include "word_model.h"

Py_ssize_t
byte_pieces(const Lattice *L, int kind, const void *data, Py_ssize_t start, Py_ssize_t end, int32_t *ids)
{
    Py_ssize_t count = 0;
    unsigned char bytes[4];
    for (Py_ssize_t i = start; i < end; i++) {
        int n = utf8_of(PyUnicode_READ(kind, data, i), bytes);
        for (int k = 0; k < n; k++) {
            if (L->byte_ids[bytes[k]] < 0) return 0;
            ids[count++] = L->byte_ids[bytes[k]];
        }
    }
    return count;
}

/* One call's work. */
typedef struct {
    const Lattice *L;
    PyObject **texts;
    Py_ssize_t n;
    const Int64s *prefix, *suffix;
    Int64s values;
    int64_t *lengths;
    int out_of_memory;
    Py_ssize_t unknown_text, unknown_at; /* a character without any id (no unk_id): where, or -1 */
} Part;

/* Text t's ids (affixes included) onto the part's values; -1 when out of memory or a character has no
 * id. */
static int
encode_text(Part *part, Scratch *s, Edge **path, Py_ssize_t *path_capacity, Py_ssize_t t)
{
    const Lattice *L = part->L;
    PyObject *text = part->texts[t];
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), before = part->values.length;
    if (int64s_extend(&part->values, part->prefix) < 0) goto no_memory;
    if (n > 0) {
        if (n > INT32_MAX - 1 || scratch_fit(s, n) < 0) goto no_memory;
        best_path(L, s, kind, data, n, -1, L->unk_score);
        Py_ssize_t count = 0;
        for (Py_ssize_t q = n; q > 0; q = s->from[q]) count++;
        if (count > *path_capacity) {
            Edge *grown = PyMem_RawRealloc(*path, sizeof(Edge) * (size_t)count);
            if (!grown) goto no_memory;
            *path = grown;
            *path_capacity = count;
        }
        for (Py_ssize_t q = n, k = count; q > 0; q = s->from[q])
            (*path)[--k] = (Edge){s->from[q], (int32_t)q, s->piece_at[q]};
        Py_ssize_t unknown_end = -1; /* where the last unknown token emitted ends: runs fuse */
        for (Py_ssize_t k = 0; k < count; k++) {
            const Edge *e = &(*path)[k];
            if (e->piece >= 0) {
                if (int64s_push(&part->values, e->piece) < 0) goto no_memory;
                unknown_end = -1;
                continue;
            }
            if (L->has_bytes) {
                int32_t bytes[4];
                Py_ssize_t m = byte_pieces(L, kind, data, e->start, e->end, bytes);
                for (Py_ssize_t b = 0; b < m; b++)
                    if (int64s_push(&part->values, bytes[b]) < 0) goto no_memory;
                if (m > 0) {
                    unknown_end = -1;
                    continue;
                }
            }
            if (L->unk_id < 0) {
                part->unknown_text = t;
                part->unknown_at = e->start;
                return -1;
            }
            if (unknown_end != e->start && int64s_push(&part->values, L->unk_id) < 0) goto no_memory;
            unknown_end = e->end;
        }
    }
    if (int64s_extend(&part->values, part->suffix) < 0) goto no_memory;
    part->lengths[t] = part->values.length - before;
    return 0;
no_memory:
    part->out_of_memory = 1;
    return -1;
}

static void
encode_part(Part *part)
{
    Scratch s = {0};
    Edge *path = NULL;
    Py_ssize_t path_capacity = 0;
    for (Py_ssize_t t = 0; t < part->n; t++)
        if (encode_text(part, &s, &path, &path_capacity, t) < 0) break;
    PyMem_RawFree(path);
    scratch_free(&s);
}

PyObject *
lattice_encode_texts(Lattice *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"texts", "prefix", "suffix", NULL};
    PyObject *texts, *prefix_arg = NULL, *suffix_arg = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|OO", kwlist, &PyList_Type, &texts, &prefix_arg, &suffix_arg))
        return NULL;
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
    Part part = {self, &PyList_GET_ITEM(held, 0), n, &prefix, &suffix, {0}, lengths, 0, -1, -1};
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

/* WordModel.word_ids: ids(word) (unigram_module.c) without the GIL: the word's best path, its unknown
 * characters resolved as resolve_edge resolves them (byte pieces, else the unknown token, a run of them
 * fused); 1 where a character has no id (Python raises). */
static int
lattice_word_ids(PyObject *model, const Span *word, Int64s *out)
{
    const Lattice *L = (const Lattice *)model;
    Py_ssize_t n = word->length;
    const void *data = (const char *)word->data + word->start * word->kind;
    Scratch s = {0};
    Edge *path = NULL;
    int status = -1;
    if (n > INT32_MAX - 1 || scratch_fit(&s, n) < 0) goto done;
    best_path(L, &s, word->kind, data, n, -1, L->unk_score);
    Py_ssize_t count = 0;
    for (Py_ssize_t q = n; q > 0; q = s.from[q]) count++;
    if (!(path = PyMem_RawMalloc(sizeof(Edge) * (size_t)(count ? count : 1)))) goto done;
    for (Py_ssize_t q = n, k = count; q > 0; q = s.from[q]) path[--k] = (Edge){s.from[q], (int32_t)q, s.piece_at[q]};
    int64_t last = -1; /* the last id out, and where its edge ends: unknown runs fuse */
    int32_t last_end = -1;
    for (Py_ssize_t k = 0; k < count; k++) {
        const Edge *e = &path[k];
        int32_t bytes[16];
        Py_ssize_t m = e->piece < 0 && L->has_bytes && e->end - e->start <= 4
                           ? byte_pieces(L, word->kind, data, e->start, e->end, bytes)
                           : 0;
        if (e->piece >= 0 || m > 0) {
            for (Py_ssize_t b = 0; b < (e->piece >= 0 ? 1 : m); b++)
                if (int64s_push(out, e->piece >= 0 ? e->piece : bytes[b]) < 0) goto done;
            last = e->piece >= 0 ? e->piece : bytes[m - 1];
        } else if (L->unk_id < 0) {
            status = 1;
            goto done;
        } else if (last != L->unk_id || last_end != e->start) {
            if (int64s_push(out, L->unk_id) < 0) goto done;
            last = L->unk_id;
        }
        last_end = e->end;
    }
    status = 0;
done:
    PyMem_RawFree(path);
    scratch_free(&s);
    return status;
}

static const WordModel lattice_word_model_functions = {lattice_word_ids};

PyObject *
lattice_word_model(Lattice *self, PyObject *Py_UNUSED(ignored))
{
    self->frozen = 1;
    return word_model_capsule((PyObject *)self, &lattice_word_model_functions);
}
