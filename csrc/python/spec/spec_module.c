/* csrc/spec_module.c: the kvec._spec extension, kvec's native encoder of a pipeline for Python: the
 * encoder of csrc/core/spec_encoder.h (the one the TensorFlow op runs, csrc/tf/kvec_ops.cc), bound as
 * thinly as the op binds it.
 *
 *   SpecEncoder(description)   the encoder of a pipeline's description (bytes, kvec/native_spec.py writes
 *       it); ValueError with what is wrong with it, or when it describes a word splitter (no ids)
 *   .encode(texts, n_threads=1) -> (values, row_lengths)
 *       texts: a list of str or UTF-8 bytes; values: the ids of all texts back to back, as native int64
 *       bytes; row_lengths: how many ids each text has, as native int64 bytes. The texts are encoded
 *       without the GIL; n_threads > 1 shares them in order between that many threads (at most one per
 *       text), each with a scratch of its own, so the output is the same for every n_threads.
 *       A word with no piece and no unknown token, or a text that would grow past the description's
 *       bound when normalized: ValueError naming the text's index; a str that UTF-8 cannot carry (a lone
 *       surrogate): ValueError naming it; an item neither str nor bytes: TypeError naming it and its
 *       type.
 *
 * The scratches, with the word caches they hold, are kept between calls (at most KEPT_SCRATCHES), so a
 * word seen in an earlier batch costs a hash and a compare. They are taken and given back with the GIL
 * held; the encoder itself is only read while encoding, and __init__ refuses to rebuild it while a call
 * encodes.
 */
#define PY_SSIZE_T_CLEAN
#include "int64s.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "module.h"
#include "spec_encoder.h"

#define KEPT_SCRATCHES 64

typedef struct {
    PyObject_HEAD
    int ready;
    Py_ssize_t encoding; /* calls encoding now, without the GIL */
    SpecEncoder encoder;
    SpecScratch *idle[KEPT_SCRATCHES];
    int n_idle;
} SpecEncoderObject;

static void
drop_scratches(SpecEncoderObject *self)
{
    for (int k = 0; k < self->n_idle; k++) {
        spec_scratch_free(self->idle[k]);
        PyMem_RawFree(self->idle[k]);
    }
    self->n_idle = 0;
}

static void
drop_encoder(SpecEncoderObject *self)
{
    drop_scratches(self); /* a scratch's word cache belongs to its encoder */
    if (self->ready) spec_encoder_free(&self->encoder);
    self->ready = 0;
}

static int
SpecEncoder_init(SpecEncoderObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"description", NULL};
    Py_buffer description;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*", kwlist, &description)) return -1;
    if (self->encoding) {
        PyBuffer_Release(&description);
        PyErr_SetString(PyExc_RuntimeError, "SpecEncoder.__init__ while the encoder is encoding");
        return -1;
    }
    drop_encoder(self);
    const char *error = spec_encoder_init(&self->encoder, description.buf, (size_t)description.len);
    PyBuffer_Release(&description);
    if (error) {
        if (strcmp(error, "out of memory") == 0) PyErr_NoMemory();
        else PyErr_Format(PyExc_ValueError, "the pipeline description is wrong: %s", error);
        return -1;
    }
    if (self->encoder.model_kind == SPEC_MODEL_SPLIT) {
        spec_encoder_free(&self->encoder);
        PyErr_SetString(PyExc_ValueError, "the description is a word splitter's, which gives no ids");
        return -1;
    }
    self->ready = 1;
    return 0;
}

static void
SpecEncoder_dealloc(SpecEncoderObject *self)
{
    drop_encoder(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* SpecEncoder.encode's failure for a str holding a lone surrogate, past spec_encode's */
#define LONE_SURROGATE (SPEC_GROWS + 1)

/* A text of a call: a str's storage (kind 1, 2 or 4), or UTF-8 bytes (kind 0). */
typedef struct {
    int kind;
    const void *data;
    Py_ssize_t length;
} Item;

/* One thread's share of a call: texts [first, last), their ids appended to `values`, each text's id
 * count in lengths[i]. */
typedef struct {
    const SpecEncoder *encoder;
    const Item *items;
    int64_t *lengths;
    Py_ssize_t first, last;
    SpecScratch *scratch;
    Int64s values;
    int status;           /* spec_encode's */
    Py_ssize_t failed;    /* the text it failed on */
    pthread_t thread;
    int started;
} Part;

/* Whether a str's code points hold a surrogate, which UTF-8 cannot carry (the TensorFlow op's texts,
 * the encoder's input, never do). */
static int
holds_surrogate(const Item *item)
{
    if (item->kind == 1) return 0;
    for (Py_ssize_t k = 0; k < item->length; k++) {
        uint32_t c = code_point_at(item->kind, item->data, k);
        if (c >= 0xD800 && c < 0xE000) return 1;
    }
    return 0;
}

static int
encode_item(const Part *part, const Item *item, Int64s *values)
{
    if (item->kind == 0)
        return spec_encode(part->encoder, item->data, (size_t)item->length, values, part->scratch);
    if (holds_surrogate(item)) return LONE_SURROGATE;
    CodePoints text = {item->kind, item->data, item->length};
    return spec_encode_code_points(part->encoder, &text, values, part->scratch);
}

static void *
encode_part(void *arg)
{
    Part *part = arg;
    for (Py_ssize_t i = part->first; i < part->last; i++) {
        ptrdiff_t before = part->values.length;
        part->status = encode_item(part, &part->items[i], &part->values);
        if (part->status != 0) {
            part->failed = i;
            break;
        }
        part->lengths[i] = part->values.length - before;
    }
    return NULL;
}

/* texts[i] (a str or bytes) as an Item over the object's own storage; -1 with a TypeError when it is
 * neither. */
static int
item_of(PyObject *object, Py_ssize_t i, Item *item)
{
    if (PyBytes_Check(object)) {
        *item = (Item){0, PyBytes_AS_STRING(object), PyBytes_GET_SIZE(object)};
        return 0;
    }
    if (!PyUnicode_Check(object)) {
        PyErr_Format(PyExc_TypeError, "texts[%zd] must be a str or bytes, got %.100s", i, Py_TYPE(object)->tp_name);
        return -1;
    }
    *item = (Item){PyUnicode_KIND(object), PyUnicode_DATA(object), PyUnicode_GET_LENGTH(object)};
    return 0;
}

static SpecScratch *
take_scratch(SpecEncoderObject *self)
{
    if (self->n_idle) return self->idle[--self->n_idle];
    SpecScratch *scratch = PyMem_RawCalloc(1, sizeof(SpecScratch)); /* zeroed: ready */
    if (!scratch) PyErr_NoMemory();
    return scratch;
}

static void
give_back_scratch(SpecEncoderObject *self, SpecScratch *scratch)
{
    if (!scratch) return;
    if (self->n_idle < KEPT_SCRATCHES) {
        self->idle[self->n_idle++] = scratch;
        return;
    }
    spec_scratch_free(scratch);
    PyMem_RawFree(scratch);
}

/* The error of the first part that failed (parts fail in order of their texts); 0 when none did. */
static int
raise_failure(const Part *parts, Py_ssize_t n_parts)
{
    for (Py_ssize_t p = 0; p < n_parts; p++) {
        const Part *part = &parts[p];
        if (part->status == 0) continue;
        if (part->status < 0) PyErr_NoMemory();
        else if (part->status == LONE_SURROGATE)
            PyErr_Format(PyExc_ValueError, "texts[%zd] holds a lone surrogate, which UTF-8 cannot carry", part->failed);
        else if (part->status == SPEC_GROWS)
            PyErr_Format(PyExc_ValueError, "texts[%zd] would grow past %d code points per code point when normalized",
                         part->failed, SPEC_GROWTH);
        else
            PyErr_Format(PyExc_ValueError,
                         "texts[%zd] has a word that matches no piece, and the vocabulary has no unknown token",
                         part->failed);
        return -1;
    }
    return 0;
}

/* Encodes a tuple of texts on up to n_threads threads, GIL released: (values, row lengths) as int64 bytes. */
static PyObject *
encode_texts(SpecEncoderObject *self, PyObject *texts, Py_ssize_t n_threads)
{
    Py_ssize_t n = PyTuple_GET_SIZE(texts);
    Py_ssize_t n_parts = n_threads < n ? n_threads : (n ? n : 1);
    PyObject *result = NULL, *values = NULL, *lengths = NULL;
    Item *items = PyMem_Calloc((size_t)n + 1, sizeof(*items));
    Part *parts = PyMem_Calloc((size_t)n_parts, sizeof(*parts));
    lengths = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int64_t) * n);
    if (!items || !parts) {
        PyErr_NoMemory();
        goto done;
    }
    if (!lengths) goto done;
    for (Py_ssize_t i = 0; i < n; i++)
        if (item_of(PyTuple_GET_ITEM(texts, i), i, &items[i]) < 0) goto done;
    int64_t *row_lengths = (int64_t *)PyBytes_AS_STRING(lengths);
    for (Py_ssize_t p = 0; p < n_parts; p++) {
        Part *part = &parts[p];
        part->encoder = &self->encoder;
        part->items = items;
        part->lengths = row_lengths;
        part->first = n * p / n_parts;
        part->last = n * (p + 1) / n_parts;
        part->scratch = take_scratch(self);
        if (!part->scratch) goto done;
        part->scratch->utf8_length = 0;
    }
    self->encoding++;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t p = 1; p < n_parts; p++) /* a part whose thread does not start runs on this one */
        parts[p].started = pthread_create(&parts[p].thread, NULL, encode_part, &parts[p]) == 0;
    encode_part(&parts[0]);
    for (Py_ssize_t p = 1; p < n_parts; p++) {
        if (parts[p].started) pthread_join(parts[p].thread, NULL);
        else encode_part(&parts[p]);
    }
    Py_END_ALLOW_THREADS
    self->encoding--;
    if (raise_failure(parts, n_parts) < 0) goto done;
    ptrdiff_t total = 0;
    for (Py_ssize_t p = 0; p < n_parts; p++) total += parts[p].values.length;
    values = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int64_t) * total);
    if (!values) goto done;
    char *at = PyBytes_AS_STRING(values);
    for (Py_ssize_t p = 0; p < n_parts; p++) {
        size_t bytes = sizeof(int64_t) * (size_t)parts[p].values.length;
        if (bytes) memcpy(at, parts[p].values.data, bytes);
        at += bytes;
    }
    result = PyTuple_Pack(2, values, lengths);
done:
    if (parts) {
        for (Py_ssize_t p = 0; p < n_parts; p++) {
            int64s_free(&parts[p].values);
            give_back_scratch(self, parts[p].scratch);
        }
    }
    PyMem_Free(parts);
    PyMem_Free(items);
    Py_XDECREF(values);
    Py_XDECREF(lengths);
    return result;
}

/* encode(texts, n_threads=1): checks the arguments, then encodes a snapshot of the list. */
static PyObject *
SpecEncoder_encode(SpecEncoderObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"texts", "n_threads", NULL};
    PyObject *list;
    Py_ssize_t n_threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|n", kwlist, &PyList_Type, &list, &n_threads)) return NULL;
    if (!self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "SpecEncoder.__init__ was not called");
        return NULL;
    }
    if (n_threads < 1) {
        PyErr_Format(PyExc_ValueError, "n_threads must be at least 1, got %zd", n_threads);
        return NULL;
    }
    /* a tuple holds the items for the call: the list may change while the GIL is let go */
    PyObject *texts = PyList_AsTuple(list);
    if (!texts) return NULL;
    PyObject *result = encode_texts(self, texts, n_threads);
    Py_DECREF(texts);
    return result;
}

static PyMethodDef SpecEncoder_methods[] = {
    {"encode", (PyCFunction)(void (*)(void))SpecEncoder_encode, METH_VARARGS | METH_KEYWORDS,
     "encode(texts, n_threads=1) -> (values, row_lengths): the ids of the texts, as int64 bytes"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SpecEncoderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kvec._spec.SpecEncoder",
    .tp_basicsize = sizeof(SpecEncoderObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "SpecEncoder(description): the native encoder of a pipeline's description (kvec/native_spec.py)",
    .tp_methods = SpecEncoder_methods,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)SpecEncoder_init,
    .tp_dealloc = (destructor)SpecEncoder_dealloc,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "kvec._spec", NULL, -1, NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC
PyInit__spec(void)
{
    static const ModuleType types[] = {{"SpecEncoder", &SpecEncoderType}};
    return create_module(&module, types, sizeof(types) / sizeof(types[0]));
}
