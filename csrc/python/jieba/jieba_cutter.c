/* csrc/python/jieba/jieba_cutter.c: kvec._jieba.Cutter, a segmenter over a shared Dictionary with words of its own
 * (see jieba.h). Texts are read as CPython stores them and cut as code points; `segment` cuts on
 * n_threads threads without the GIL (this one among them), while this thread makes each finished
 * chunk's lists in order.
 *
 * Words may be added while other threads cut: a cut that holds the GIL throughout is never interleaved
 * with an addition (which holds it too), and a cut without the GIL holds the read side of `lock`, whose
 * write side an addition takes (waiting without the GIL), so every cut sees the words before or after
 * an addition, never half of one. */
#include "jieba.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "code_points.h"
#include "texts.h"

#define TEXTS_PER_CHUNK 64
#define GIL_FREE_LENGTH 4096 /* a single text at least this long is cut without the GIL */
#define MAX_THREADS 256

typedef struct {
    PyObject_HEAD Dictionary *dictionary;
    JiebaDict user; /* its own words; user_ready once the first is added */
    int user_ready;
    JiebaCutter cutter;
    JiebaScratch scratch; /* for calls on one text, unless one is under way (scratch_busy) */
    int scratch_busy;
    pthread_rwlock_t lock; /* read: cutting without the GIL; write: adding a word */
    int lock_ready;
} Cutter;

/* What a thread needs to cut texts: its scratch, and the code points of the text at hand. */
typedef struct {
    JiebaScratch scratch;
    uint32_t *cps;
    ptrdiff_t capacity;
} Worker;

static void
worker_free(Worker *w)
{
    jieba_scratch_free(&w->scratch);
    free(w->cps);
    memset(w, 0, sizeof(*w));
}

/* The words of `text` (a str, read without the GIL) appended to spans; -1 when out of memory. */
static int
cut_text(const JiebaCutter *cutter, PyObject *text, Int64s *spans, Worker *w)
{
    ptrdiff_t n = PyUnicode_GET_LENGTH(text);
    if (code_points_reserve(&w->cps, &w->capacity, n + 1) < 0) return -1;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (ptrdiff_t k = 0; k < n; k++) w->cps[k] = PyUnicode_READ(kind, data, k);
    return jieba_cut(cutter, w->cps, n, spans, &w->scratch);
}

/* The word of the pair spans[k, k + 1] of `text`, with the pieces that continue it; *next past them. */
static PyObject *
word_at(PyObject *text, const int64_t *spans, ptrdiff_t k, ptrdiff_t end, ptrdiff_t *next)
{
    PyObject *word = PyUnicode_Substring(text, spans[k], spans[k + 1]);
    for (k += 2; word && k < end && spans[k] < 0; k += 2) {
        PyObject *piece = PyUnicode_Substring(text, -1 - spans[k], spans[k + 1]);
        PyObject *joined = piece ? PyUnicode_Concat(word, piece) : NULL;
        Py_XDECREF(piece);
        Py_SETREF(word, joined);
    }
    *next = k;
    return word;
}

/* [word] (with_starts 0) or [(word, start)] (1) from the pairs spans[from .. to) of `text` */
static PyObject *
words_of(PyObject *text, const int64_t *spans, ptrdiff_t from, ptrdiff_t to, int with_starts)
{
    PyObject *words = PyList_New(0);
    for (ptrdiff_t k = from; words && k < to;) {
        int64_t start = spans[k];
        PyObject *word = word_at(text, spans, k, to, &k);
        PyObject *item = word && with_starts ? Py_BuildValue("(NL)", word, (long long)start) : word;
        if (!item || PyList_Append(words, item) < 0) Py_CLEAR(words);
        Py_XDECREF(item);
    }
    return words;
}

/* ---- the Python type ---- */

static PyObject *
cutter_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"dictionary", "mode", "hmm", NULL};
    PyObject *dictionary;
    int mode, hmm;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!ip", kwlist, &DictionaryType, &dictionary, &mode, &hmm))
        return NULL;
    if (mode != JIEBA_ACCURATE && mode != JIEBA_SEARCH && mode != JIEBA_FULL) {
        PyErr_Format(PyExc_ValueError, "mode must be 0, 1 or 2, got %d", mode);
        return NULL;
    }
    Cutter *self = (Cutter *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    if (pthread_rwlock_init(&self->lock, NULL) != 0) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->lock_ready = 1;
    Py_INCREF(dictionary);
    self->dictionary = (Dictionary *)dictionary;
    self->cutter = (JiebaCutter){&self->dictionary->dict, NULL, self->dictionary->hmm, mode, hmm, 0};
    return (PyObject *)self;
}

static void
cutter_dealloc(Cutter *self)
{
    if (self->user_ready) jieba_dict_free(&self->user);
    if (self->lock_ready) pthread_rwlock_destroy(&self->lock);
    jieba_scratch_free(&self->scratch);
    Py_XDECREF(self->dictionary);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
cutter_add_word(Cutter *self, PyObject *args)
{
    PyObject *word;
    long long count;
    if (!PyArg_ParseTuple(args, "UL", &word, &count)) return NULL;
    int64_t total = self->cutter.dict->total + (self->user_ready ? self->user.total : 0);
    if (count < 0 || count > INT64_MAX - total) {
        PyErr_Format(PyExc_ValueError, "count must be >= 0 and keep the total within 2**63, got %lld", count);
        return NULL;
    }
    Py_ssize_t n;
    uint32_t *cps = str_code_points(word, "word", &n);
    if (!cps) return NULL;
    if (n == 0) {
        PyMem_Free(cps);
        PyErr_SetString(PyExc_ValueError, "word must not be empty");
        return NULL;
    }
    if (!self->user_ready) {
        if (jieba_dict_init(&self->user, 64) < 0) {
            PyMem_Free(cps);
            return PyErr_NoMemory();
        }
        self->user_ready = 1;
        self->cutter.user = &self->user;
    }
    Py_BEGIN_ALLOW_THREADS pthread_rwlock_wrlock(&self->lock);
    Py_END_ALLOW_THREADS
    int status = jieba_dict_add(&self->user, cps, n, count, 1);
    pthread_rwlock_unlock(&self->lock);
    PyMem_Free(cps);
    if (status < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *
cutter_count(Cutter *self, PyObject *word)
{
    Py_ssize_t n;
    uint32_t *cps = str_code_points(word, "word", &n);
    if (!cps) return NULL;
    int64_t count = jieba_count(&self->cutter, cps, n);
    PyMem_Free(cps);
    if (count < 0) Py_RETURN_NONE;
    return PyLong_FromLongLong(count);
}

static PyObject *
cutter_total(Cutter *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLongLong(self->cutter.dict->total + (self->user_ready ? self->user.total : 0));
}

/* words(text), spans(text) and cut(...): one text, cut by `cutter` (this object's words, in some mode)
 * with the object's scratch unless a call holds it */
static PyObject *
cut_one(Cutter *self, const JiebaCutter *cutter, PyObject *text, int with_starts)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be a str, got %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    Worker worker = {0};
    int own = !self->scratch_busy;
    if (own) {
        worker.scratch = self->scratch;
        self->scratch_busy = 1;
    }
    Int64s spans = {NULL, 0, 0};
    int status;
    if (PyUnicode_GET_LENGTH(text) >= GIL_FREE_LENGTH) {
        Py_BEGIN_ALLOW_THREADS pthread_rwlock_rdlock(&self->lock);
        status = cut_text(cutter, text, &spans, &worker);
        pthread_rwlock_unlock(&self->lock);
        Py_END_ALLOW_THREADS
    } else {
        status = cut_text(cutter, text, &spans, &worker);
    }
    if (own) {
        self->scratch = worker.scratch;
        memset(&worker.scratch, 0, sizeof(worker.scratch));
        self->scratch_busy = 0;
    }
    worker_free(&worker);
    PyObject *words = status < 0 ? PyErr_NoMemory() : words_of(text, spans.data, 0, spans.length, with_starts);
    int64s_free(&spans);
    return words;
}

static PyObject *
cutter_words(Cutter *self, PyObject *text)
{
    return cut_one(self, &self->cutter, text, 0);
}

static PyObject *
cutter_spans(Cutter *self, PyObject *text)
{
    return cut_one(self, &self->cutter, text, 1);
}

static PyObject *
cutter_cut(Cutter *self, PyObject *args)
{
    PyObject *text;
    int mode, hmm, keep_space, with_starts;
    if (!PyArg_ParseTuple(args, "Uippp", &text, &mode, &hmm, &keep_space, &with_starts)) return NULL;
    if (mode != JIEBA_ACCURATE && mode != JIEBA_SEARCH && mode != JIEBA_FULL) {
        PyErr_Format(PyExc_ValueError, "mode must be 0, 1 or 2, got %d", mode);
        return NULL;
    }
    JiebaCutter cutter = self->cutter;
    cutter.mode = mode;
    cutter.use_hmm = hmm;
    cutter.keep_space = keep_space;
    return cut_one(self, &cutter, text, with_starts);
}

/* ---- segment: many texts on threads ---- */

typedef struct {
    Int64s spans; /* the pairs of the chunk's texts */
    Int64s ends;  /* per text, the end of its pairs in spans */
    int state;    /* 0 waiting, 1 taken, 2 done, -1 out of memory */
} Chunk;

typedef struct {
    const JiebaCutter *cutter;
    PyObject **texts;
    Py_ssize_t n_texts, n_chunks, next; /* next: the first chunk no thread has taken */
    Chunk *chunks;
    pthread_mutex_t lock;
    pthread_cond_t changed;
} Job;

static void
cut_chunk(Job *job, Py_ssize_t c, Worker *w)
{
    Chunk *chunk = &job->chunks[c];
    Py_ssize_t first = c * TEXTS_PER_CHUNK, last = first + TEXTS_PER_CHUNK;
    if (last > job->n_texts) last = job->n_texts;
    int state = 2;
    for (Py_ssize_t i = first; i < last && state == 2; i++) {
        if (cut_text(job->cutter, job->texts[i], &chunk->spans, w) < 0 || int64s_push(&chunk->ends, chunk->spans.length) < 0)
            state = -1;
    }
    pthread_mutex_lock(&job->lock);
    chunk->state = state;
    pthread_cond_broadcast(&job->changed);
    pthread_mutex_unlock(&job->lock);
}

/* Take the next chunk no thread has, under the lock; -1 when none is left. */
static Py_ssize_t
take_chunk(Job *job)
{
    if (job->next >= job->n_chunks) return -1;
    job->chunks[job->next].state = 1;
    return job->next++;
}

static void *
run_worker(void *argument)
{
    Job *job = argument;
    Worker w = {0};
    for (;;) {
        pthread_mutex_lock(&job->lock);
        Py_ssize_t c = take_chunk(job);
        pthread_mutex_unlock(&job->lock);
        if (c < 0) break;
        cut_chunk(job, c, &w);
    }
    worker_free(&w);
    return NULL;
}

/* Without the GIL: chunk c cut, by this thread when no other has taken it yet, else waited for. This
 * thread cuts no chunk past c: making the lists is its share, and the other threads cut ahead. */
static void
wait_for_chunk(Job *job, Py_ssize_t c, Worker *w)
{
    pthread_mutex_lock(&job->lock);
    if (job->next == c) {
        take_chunk(job);
        pthread_mutex_unlock(&job->lock);
        cut_chunk(job, c, w);
        return;
    }
    while (job->chunks[c].state == 1) pthread_cond_wait(&job->changed, &job->lock);
    pthread_mutex_unlock(&job->lock);
}

/* the lists of chunk c's texts appended to `out` */
static int
chunk_lists(Job *job, Py_ssize_t c, PyObject *out)
{
    Chunk *chunk = &job->chunks[c];
    ptrdiff_t from = 0;
    for (ptrdiff_t t = 0; t < chunk->ends.length; t++) {
        ptrdiff_t to = chunk->ends.data[t];
        PyObject *words = words_of(job->texts[c * TEXTS_PER_CHUNK + t], chunk->spans.data, from, to, 0);
        if (!words || PyList_Append(out, words) < 0) {
            Py_XDECREF(words);
            return -1;
        }
        Py_DECREF(words);
        from = to;
    }
    return 0;
}

/* Every text's words (texts: a tuple, which holds each text while the threads read them), cut on up to
 * n_threads threads, the calling one included, without the GIL. */
static PyObject *
segment_texts(Cutter *self, PyObject *texts, int n_threads)
{
    Job job = {.cutter = &self->cutter, .texts = &PyTuple_GET_ITEM(texts, 0), .n_texts = PyTuple_GET_SIZE(texts)};
    for (Py_ssize_t i = 0; i < job.n_texts; i++) {
        if (!PyUnicode_Check(job.texts[i])) {
            PyErr_Format(PyExc_TypeError, "texts[%zd] must be a str, got %.100s", i, Py_TYPE(job.texts[i])->tp_name);
            return NULL;
        }
    }
    job.n_chunks = (job.n_texts + TEXTS_PER_CHUNK - 1) / TEXTS_PER_CHUNK;
    job.chunks = PyMem_Calloc((size_t)job.n_chunks + 1, sizeof(Chunk));
    PyObject *out = job.chunks ? PyList_New(0) : PyErr_NoMemory();
    if (!out || pthread_mutex_init(&job.lock, NULL) != 0) {
        PyMem_Free(job.chunks);
        Py_XDECREF(out);
        return out ? PyErr_NoMemory() : NULL;
    }
    pthread_cond_init(&job.changed, NULL);
    pthread_t threads[MAX_THREADS];
    int started = 0;
    Worker mine = {0};
    PyThreadState *state = PyEval_SaveThread();
    pthread_rwlock_rdlock(&self->lock);
    for (int t = 1; t < n_threads && t < job.n_chunks; t++)
        if (pthread_create(&threads[started], NULL, run_worker, &job) == 0) started++;
    int failed = 0;
    for (Py_ssize_t c = 0; c < job.n_chunks && !failed; c++) {
        wait_for_chunk(&job, c, &mine);
        PyEval_RestoreThread(state);
        failed = job.chunks[c].state < 0 ? (PyErr_NoMemory(), 1) : chunk_lists(&job, c, out) < 0;
        state = PyEval_SaveThread();
        int64s_free(&job.chunks[c].spans);
        int64s_free(&job.chunks[c].ends);
    }
    if (failed) { /* the threads stop at the next chunk */
        pthread_mutex_lock(&job.lock);
        job.next = job.n_chunks;
        pthread_mutex_unlock(&job.lock);
    }
    for (int t = 0; t < started; t++) pthread_join(threads[t], NULL);
    pthread_rwlock_unlock(&self->lock);
    PyEval_RestoreThread(state);
    for (Py_ssize_t c = 0; c < job.n_chunks; c++) {
        int64s_free(&job.chunks[c].spans);
        int64s_free(&job.chunks[c].ends);
    }
    worker_free(&mine);
    pthread_cond_destroy(&job.changed);
    pthread_mutex_destroy(&job.lock);
    PyMem_Free(job.chunks);
    if (failed) Py_CLEAR(out);
    return out;
}

static PyObject *
cutter_segment(Cutter *self, PyObject *args)
{
    PyObject *sequence;
    int n_threads;
    if (!PyArg_ParseTuple(args, "Oi", &sequence, &n_threads)) return NULL;
    if (n_threads < 1 || n_threads > MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "n_threads must be between 1 and %d, got %d", MAX_THREADS, n_threads);
        return NULL;
    }
    PyObject *texts = PySequence_Tuple(sequence);
    if (!texts) return NULL;
    PyObject *out = segment_texts(self, texts, n_threads);
    Py_DECREF(texts);
    return out;
}

static PyMethodDef cutter_methods[] = {
    {"add_word", (PyCFunction)cutter_add_word, METH_VARARGS,
     "add_word(word, count): the word with its count, as jieba's add_word (count 0: split if the HMM finds it)"},
    {"count", (PyCFunction)cutter_count, METH_O, "count(word) -> int or None: 0 for a prefix of a word only"},
    {"words", (PyCFunction)cutter_words, METH_O, "words(text) -> [str], whitespace left out"},
    {"spans", (PyCFunction)cutter_spans, METH_O, "spans(text) -> [(word, start)], whitespace left out"},
    {"cut", (PyCFunction)cutter_cut, METH_VARARGS,
     "cut(text, mode, hmm, keep_space, with_starts) -> [str] or [(str, start)]: the words in another mode"},
    {"segment", (PyCFunction)cutter_segment, METH_VARARGS,
     "segment(texts, n_threads) -> [[str]]: every text's words, cut on n_threads threads without the GIL"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef cutter_getset[] = {
    {"total", (getter)cutter_total, NULL, "the sum of the counts, the dictionary's and the added words'", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject CutterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._jieba.Cutter",
    .tp_basicsize = sizeof(Cutter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Cutter(dictionary, mode, hmm): jieba's segmentation over a dictionary, with words of its own",
    .tp_new = cutter_new,
    .tp_dealloc = (destructor)cutter_dealloc,
    .tp_methods = cutter_methods,
    .tp_getset = cutter_getset,
};
