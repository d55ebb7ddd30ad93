/* csrc/unigram_encoder.c: whole texts to ids with one Unigram lattice over each text, as sentencepiece
 * encodes, for Lattice.encode_texts (unigram_module.c) and kvec/models/unigram.py.
 *
 *   .encode_texts(texts, n_threads=1, prefix=(), suffix=()) -> (values, row_lengths): the ids of every
 *       text back to back and how many belong to each, as int64 bytes; prefix and suffix ids go around
 *       each text's.
 *
 * Each text's best path is best_path() (unigram_lattice.c) over the str's own data, and its unknown
 * characters are resolved as configure() says: the byte pieces of their UTF-8 where every byte has one
 * (byte_pieces, which resolve_edge uses too), else the unknown token, one for each run. The texts are
 * shared out in contiguous parts between threads that run without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "int64s.h"
#include "unigram.h"
#include "utf8.h"

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

/* The work of one thread: texts [first, last). */
typedef struct {
    const Lattice *L;
    PyObject **texts;
    Py_ssize_t first, last;
    const Int64s *prefix, *suffix;
    Int64s values;
    int64_t *lengths; /* shared: each thread fills its own texts' */
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

static void *
encode_part(void *arg)
{
    Part *part = arg;
    Scratch s = {0};
    Edge *path = NULL;
    Py_ssize_t path_capacity = 0;
    for (Py_ssize_t t = part->first; t < part->last; t++)
        if (encode_text(part, &s, &path, &path_capacity, t) < 0) break;
    PyMem_RawFree(path);
    scratch_free(&s);
    return NULL;
}

PyObject *
lattice_encode_texts(Lattice *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"texts", "n_threads", "prefix", "suffix", NULL};
    PyObject *texts, *prefix_arg = NULL, *suffix_arg = NULL;
    int n_threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|iOO", kwlist, &PyList_Type, &texts, &n_threads, &prefix_arg,
                                     &suffix_arg))
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
    if (n_threads < 1) n_threads = 1;
    if (n_threads > 64) n_threads = 64;
    if (n_threads > n) n_threads = n ? (int)n : 1;
    Part parts[64];
    pthread_t threads[64];
    int started[64] = {0};
    PyObject **items = &PyList_GET_ITEM(held, 0);
    for (int k = 0; k < n_threads; k++)
        parts[k] = (Part){self, items, n * k / n_threads, n * (k + 1) / n_threads, &prefix, &suffix, {0},
                          lengths, 0, -1, -1};
    Py_BEGIN_ALLOW_THREADS
    for (int k = 1; k < n_threads; k++) started[k] = pthread_create(&threads[k], NULL, encode_part, &parts[k]) == 0;
    encode_part(&parts[0]);
    for (int k = 1; k < n_threads; k++) {
        if (started[k]) pthread_join(threads[k], NULL);
        else encode_part(&parts[k]); /* no thread to be had: do it here */
    }
    Py_END_ALLOW_THREADS
    Py_ssize_t total = 0;
    for (int k = 0; k < n_threads; k++) {
        if (parts[k].out_of_memory && !PyErr_Occurred()) PyErr_NoMemory();
        if (parts[k].unknown_text >= 0 && !PyErr_Occurred()) {
            PyObject *text = items[parts[k].unknown_text];
            PyObject *c = PyUnicode_Substring(text, parts[k].unknown_at, parts[k].unknown_at + 1);
            if (c) {
                PyErr_Format(PyExc_ValueError, "%R is not in the vocabulary and the model has no unk_id", c);
                Py_DECREF(c);
            }
        }
        total += parts[k].values.length;
    }
    if (!PyErr_Occurred()) {
        PyObject *values = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int64_t) * total);
        if (values) {
            char *at = PyBytes_AS_STRING(values);
            for (int k = 0; k < n_threads; k++) {
                memcpy(at, parts[k].values.data, sizeof(int64_t) * (size_t)parts[k].values.length);
                at += sizeof(int64_t) * (size_t)parts[k].values.length;
            }
            result = Py_BuildValue("(Ny#)", values, (const char *)lengths, (Py_ssize_t)sizeof(int64_t) * n);
        }
    }
    for (int k = 0; k < n_threads; k++) PyMem_RawFree(parts[k].values.data);
done:
    Py_DECREF(held);
    PyMem_RawFree(prefix.data);
    PyMem_RawFree(suffix.data);
    PyMem_Free(lengths);
    return result;
}
