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
 *       text; about as many code points each), each with a scratch of its own, so the output is the
 *       same for every n_threads: the calling thread and warm ones (warm_threads.h: kept between calls,
 *       shared by the process's callers), or threads made for the call when no warm one is free.
 *       A word with no piece and no unknown token, or a text that would grow past the description's
 *       bound when normalized: ValueError naming the text's index; a str that UTF-8 cannot carry (a lone
 *       surrogate): ValueError naming it; an item neither str nor bytes: TypeError naming it and its
 *       type.
 *   .encode_parts(texts, n_threads, n_parts) -> SpecParts, an iterator of n_parts results in order: part p
 *       is texts [n * p / n_parts, n * (p + 1) / n_parts) of the n, and its result is what encode gives
 *       for it, or None where encode raises its ValueError. n_threads threads of the iterator encode the
 *       parts, never taking the GIL, while the caller takes the parts done (making their Python objects):
 *       kvec/pipeline.py's encode_batch on threads.
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
#include "warm_threads.h"

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
    WarmThread *warm;     /* the warm thread running it, or NULL */
    pthread_t thread;     /* else the thread made for it, when `started` */
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
    Py_ssize_t size = 0; /* most texts have fewer ids than a third of their code points: room made at once */
    for (Py_ssize_t i = part->first; i < part->last; i++) size += part->items[i].length;
    if (int64s_reserve(&part->values, size / 3 + 16) < 0) {
        part->status = -1;
        part->failed = part->first;
        return NULL;
    }
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

/* The Items of a tuple of texts (PyMem_Free them); NULL with an exception set. */
static Item *
items_of(PyObject *texts)
{
    Py_ssize_t n = PyTuple_GET_SIZE(texts);
    Item *items = PyMem_Calloc((size_t)n + 1, sizeof(*items));
    if (!items) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (item_of(PyTuple_GET_ITEM(texts, i), i, &items[i]) < 0) {
            PyMem_Free(items);
            return NULL;
        }
    return items;
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

/* parts[0 .. n_parts) share the n texts of `items` evenly, in order: texts [n * p / n_parts, n * (p + 1) /
 * n_parts) each, their id counts written to lengths. */
static void
share_texts(Part *parts, Py_ssize_t n_parts, const SpecEncoder *encoder, const Item *items, int64_t *lengths,
            Py_ssize_t n)
{
    for (Py_ssize_t p = 0; p < n_parts; p++) {
        Part *part = &parts[p];
        part->encoder = encoder;
        part->items = items;
        part->lengths = lengths;
        part->first = n * p / n_parts;
        part->last = n * (p + 1) / n_parts;
    }
}

/* encode's parts of about the same length each, rather than of as many texts: each text counts its
 * code points (or bytes) and one, so the threads of a call end together. */
static void
balance_texts(Part *parts, Py_ssize_t n_parts, const Item *items, Py_ssize_t n)
{
    Py_ssize_t total = 0, sum = 0, i = 0;
    for (Py_ssize_t k = 0; k < n; k++) total += items[k].length + 1;
    for (Py_ssize_t p = 0; p < n_parts; p++) {
        parts[p].first = i;
        while (i < n && (p == n_parts - 1 || sum < total / n_parts * (p + 1))) sum += items[i++].length + 1;
        parts[p].last = i;
    }
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
    Item *items = items_of(texts);
    Part *parts = PyMem_Calloc((size_t)n_parts, sizeof(*parts));
    lengths = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int64_t) * n);
    if (!items) goto done;
    if (!parts) {
        PyErr_NoMemory();
        goto done;
    }
    if (!lengths) goto done;
    share_texts(parts, n_parts, &self->encoder, items, (int64_t *)PyBytes_AS_STRING(lengths), n);
    balance_texts(parts, n_parts, items, n);
    for (Py_ssize_t p = 0; p < n_parts; p++) {
        if (!(parts[p].scratch = take_scratch(self))) goto done;
        parts[p].scratch->utf8_length = 0;
    }
    self->encoding++;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t p = 1; p < n_parts; p++) /* a part with no thread runs on this one */
        if (!(parts[p].warm = warm_start(encode_part, &parts[p])))
            parts[p].started = pthread_create(&parts[p].thread, NULL, encode_part, &parts[p]) == 0;
    encode_part(&parts[0]);
    for (Py_ssize_t p = 1; p < n_parts; p++) {
        if (parts[p].warm) warm_wait(parts[p].warm);
        else if (parts[p].started) pthread_join(parts[p].thread, NULL);
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

/* SpecParts: encode_parts' iterator. Its threads take the parts in order, each encoding the next part no
 * thread has taken yet with the scratch of its own, without the GIL at any point; __next__ waits (GIL let
 * go) for the next part in order, or encodes that part itself when no thread has taken it yet (so the
 * parts are all encoded even when no thread starts). The encoder stays marked as encoding until the
 * threads are joined: when the last part is returned, or when the iterator is dropped before (the
 * threads then take no more parts). */
typedef struct SpecPartsObject SpecPartsObject;

typedef struct {
    SpecPartsObject *stream;
    SpecScratch *scratch;
    pthread_t thread;
    int started;
} Worker;

struct SpecPartsObject {
    PyObject_HEAD
    SpecEncoderObject *owner;
    PyObject *texts; /* the tuple the items point into */
    Item *items;
    int64_t *lengths; /* each text's id count */
    Part *parts;
    char *done;       /* parts[p] is encoded */
    Py_ssize_t n_parts;
    Py_ssize_t taken; /* parts taken by a thread or __next__; under lock */
    Py_ssize_t returned;
    Worker *workers; /* n_workers, then __next__'s own (its scratch only) */
    int n_workers;
    int stop;        /* under lock: take no more parts */
    int running;     /* the workers may be running (and the owner is marked as encoding) */
    int synced;      /* lock and part_done are made */
    pthread_mutex_t lock;
    pthread_cond_t part_done;
};

/* The next part no one has taken, now taken; -1 when none is left or the iterator stops. */
static Py_ssize_t
take_part(SpecPartsObject *stream)
{
    pthread_mutex_lock(&stream->lock);
    Py_ssize_t p = stream->stop || stream->taken == stream->n_parts ? -1 : stream->taken++;
    pthread_mutex_unlock(&stream->lock);
    return p;
}

static void
encode_taken_part(SpecPartsObject *stream, Py_ssize_t p, SpecScratch *scratch)
{
    stream->parts[p].scratch = scratch;
    encode_part(&stream->parts[p]);
    pthread_mutex_lock(&stream->lock);
    stream->done[p] = 1;
    pthread_cond_broadcast(&stream->part_done);
    pthread_mutex_unlock(&stream->lock);
}

static void *
parts_worker(void *arg)
{
    Worker *worker = arg;
    for (Py_ssize_t p; (p = take_part(worker->stream)) >= 0;) encode_taken_part(worker->stream, p, worker->scratch);
    return NULL;
}

/* Stops the workers and joins them, then gives their scratches back; called with the GIL held. */
static void
parts_finish(SpecPartsObject *stream)
{
    if (!stream->running) return;
    pthread_mutex_lock(&stream->lock);
    stream->stop = 1;
    pthread_mutex_unlock(&stream->lock);
    Py_BEGIN_ALLOW_THREADS
    for (int w = 0; w < stream->n_workers; w++)
        if (stream->workers[w].started) pthread_join(stream->workers[w].thread, NULL);
    Py_END_ALLOW_THREADS
    for (int w = 0; w <= stream->n_workers; w++) {
        give_back_scratch(stream->owner, stream->workers[w].scratch);
        stream->workers[w].scratch = NULL;
    }
    stream->running = 0;
    stream->owner->encoding--;
}

static void
SpecParts_dealloc(SpecPartsObject *stream)
{
    parts_finish(stream);
    if (stream->parts)
        for (Py_ssize_t p = 0; p < stream->n_parts; p++) int64s_free(&stream->parts[p].values);
    if (stream->synced) {
        pthread_cond_destroy(&stream->part_done);
        pthread_mutex_destroy(&stream->lock);
    }
    PyMem_Free(stream->workers);
    PyMem_Free(stream->parts);
    PyMem_Free(stream->done);
    PyMem_Free(stream->lengths);
    PyMem_Free(stream->items);
    Py_XDECREF(stream->texts);
    Py_XDECREF(stream->owner);
    Py_TYPE(stream)->tp_free((PyObject *)stream);
}

/* (values, row_lengths) of the next part, as SpecEncoder.encode gives them for its texts; None when the
 * encoder refuses one of them (raise_failure's ValueErrors); MemoryError when out of memory. */
static PyObject *
SpecParts_next(SpecPartsObject *stream)
{
    Py_ssize_t k = stream->returned;
    if (k == stream->n_parts) {
        parts_finish(stream);
        return NULL;
    }
    Worker *own = &stream->workers[stream->n_workers];
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&stream->lock);
    int mine = stream->taken == k;
    if (mine) stream->taken++;
    else
        while (!stream->done[k]) pthread_cond_wait(&stream->part_done, &stream->lock);
    pthread_mutex_unlock(&stream->lock);
    if (mine) encode_taken_part(stream, k, own->scratch);
    Py_END_ALLOW_THREADS
    stream->returned++;
    Part *part = &stream->parts[k];
    PyObject *result = NULL;
    if (part->status < 0) PyErr_NoMemory();
    else if (part->status > 0) result = Py_NewRef(Py_None);
    else
        result = Py_BuildValue("(y#y#)", part->values.data ? (const char *)part->values.data : "",
                               (Py_ssize_t)sizeof(int64_t) * part->values.length,
                               (const char *)(stream->lengths + part->first),
                               (Py_ssize_t)sizeof(int64_t) * (part->last - part->first));
    int64s_free(&part->values);
    if (stream->returned == stream->n_parts) parts_finish(stream);
    return result;
}

static PyTypeObject SpecPartsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kvec._spec.SpecParts",
    .tp_basicsize = sizeof(SpecPartsObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "SpecEncoder.encode_parts' iterator: each part's (values, row_lengths), in order (None: refused)",
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)SpecParts_next,
    .tp_dealloc = (destructor)SpecParts_dealloc,
};

/* The parts' texts, items, buffers and scratches, then the workers started; -1 with an exception set
 * (the iterator's dealloc frees what was made). */
static int
parts_start(SpecPartsObject *stream, Py_ssize_t n_threads)
{
    Py_ssize_t n = PyTuple_GET_SIZE(stream->texts);
    stream->items = items_of(stream->texts);
    if (!stream->items) return -1;
    stream->lengths = PyMem_Calloc((size_t)n + 1, sizeof(int64_t));
    stream->parts = PyMem_Calloc((size_t)stream->n_parts, sizeof(Part));
    stream->done = PyMem_Calloc((size_t)stream->n_parts, 1);
    stream->n_workers = (int)(n_threads < stream->n_parts ? n_threads : stream->n_parts);
    stream->workers = PyMem_Calloc((size_t)stream->n_workers + 1, sizeof(Worker));
    if (!stream->lengths || !stream->parts || !stream->done || !stream->workers) {
        PyErr_NoMemory();
        return -1;
    }
    if (pthread_mutex_init(&stream->lock, NULL) != 0) {
        PyErr_NoMemory();
        return -1;
    }
    if (pthread_cond_init(&stream->part_done, NULL) != 0) {
        pthread_mutex_destroy(&stream->lock);
        PyErr_NoMemory();
        return -1;
    }
    stream->synced = 1;
    share_texts(stream->parts, stream->n_parts, &stream->owner->encoder, stream->items, stream->lengths, n);
    stream->owner->encoding++;
    stream->running = 1;
    for (int w = 0; w <= stream->n_workers; w++) {
        stream->workers[w].stream = stream;
        if (!(stream->workers[w].scratch = take_scratch(stream->owner))) return -1;
        stream->workers[w].scratch->utf8_length = 0;
    }
    for (int w = 0; w < stream->n_workers; w++)
        stream->workers[w].started =
            pthread_create(&stream->workers[w].thread, NULL, parts_worker, &stream->workers[w]) == 0;
    return 0;
}

/* encode_parts(texts, n_threads, n_parts): checks the arguments, then starts encoding a snapshot of the
 * list in n_parts parts (texts [n * p / n_parts, n * (p + 1) / n_parts) each) on n_threads threads. */
static PyObject *
SpecEncoder_encode_parts(SpecEncoderObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"texts", "n_threads", "n_parts", NULL};
    PyObject *list;
    Py_ssize_t n_threads, n_parts;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!nn", kwlist, &PyList_Type, &list, &n_threads, &n_parts))
        return NULL;
    if (!self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "SpecEncoder.__init__ was not called");
        return NULL;
    }
    if (n_threads < 1 || n_threads > 1024) {
        PyErr_Format(PyExc_ValueError, "n_threads must be from 1 to 1024, got %zd", n_threads);
        return NULL;
    }
    if (n_parts < 1 || n_parts > PyList_GET_SIZE(list) + 1) {
        PyErr_Format(PyExc_ValueError, "n_parts must be from 1 to len(texts) + 1 = %zd, got %zd",
                     PyList_GET_SIZE(list) + 1, n_parts);
        return NULL;
    }
    SpecPartsObject *stream = PyObject_New(SpecPartsObject, &SpecPartsType);
    if (!stream) return NULL;
    memset((char *)stream + sizeof(PyObject), 0, sizeof(*stream) - sizeof(PyObject));
    stream->owner = (SpecEncoderObject *)Py_NewRef(self);
    stream->n_parts = n_parts;
    /* a tuple holds the items for the iterator's life: the list may change while the threads encode */
    stream->texts = PyList_AsTuple(list);
    if (!stream->texts || parts_start(stream, n_threads) < 0) {
        Py_DECREF(stream);
        return NULL;
    }
    return (PyObject *)stream;
}

static PyMethodDef SpecEncoder_methods[] = {
    {"encode", (PyCFunction)(void (*)(void))SpecEncoder_encode, METH_VARARGS | METH_KEYWORDS,
     "encode(texts, n_threads=1) -> (values, row_lengths): the ids of the texts, as int64 bytes"},
    {"encode_parts", (PyCFunction)(void (*)(void))SpecEncoder_encode_parts, METH_VARARGS | METH_KEYWORDS,
     "encode_parts(texts, n_threads, n_parts) -> an iterator of each part's (values, row_lengths), in order"},
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
    static const ModuleType types[] = {{"SpecEncoder", &SpecEncoderType}, {"SpecParts", &SpecPartsType}};
    return create_module(&module, types, sizeof(types) / sizeof(types[0]));
}
