/* csrc/python/jieba/jieba_dictionary.c: kvec._jieba.Dictionary, jieba's prefix dictionary and HMM (see jieba.h). */
#include "jieba.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>


#define DUMP_MAGIC 0x4a56564bu /* "KVVJ" */
#define DUMP_VERSION 2u

/* ------------------------------------------------------------------------------------------------ */
/* Dictionary                                                                                       */

static void
dictionary_dealloc(Dictionary *self)
{
    jieba_dict_free(&self->dict);
    free(self->hmm);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
read_hmm(Dictionary *self, Py_buffer *hmm)
{
    if (hmm->len != (Py_ssize_t)(sizeof(double) * JIEBA_HMM_VALUES)) {
        PyErr_Format(PyExc_ValueError, "hmm must hold %d float64 values, got %zd bytes", JIEBA_HMM_VALUES, hmm->len);
        return -1;
    }
    self->hmm = malloc(sizeof(JiebaHmm));
    if (!self->hmm) {
        PyErr_NoMemory();
        return -1;
    }
    jieba_hmm_set(self->hmm, hmm->buf);
    return 0;
}

/* ValueError naming line `number` of text[0 .. n) in the file `name`, shown up to 200 bytes */
static void
invalid_line(const unsigned char *text, size_t n, ptrdiff_t number, const char *name)
{
    size_t start = 0;
    for (ptrdiff_t line = 1; line < number; line++) {
        while (start < n && text[start] != '\n') start++;
        start++;
    }
    size_t end = start;
    while (end < n && text[end] != '\n' && end - start < 200) end++;
    char shown[201];
    memcpy(shown, text + start, end - start);
    shown[end - start] = 0;
    PyErr_Format(PyExc_ValueError, "invalid dictionary entry in %s at line %zd: %s", name, (Py_ssize_t)number, shown);
}

static int
read_dictionary(Dictionary *self, const unsigned char *text, size_t n, const char *name)
{
    ptrdiff_t status = jieba_dict_read(&self->dict, text, n);
    if (status < 0) PyErr_NoMemory();
    else if (status > 0) invalid_line(text, n, status, name);
    return status ? -1 : 0;
}

static PyObject *
dictionary_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"text", "hmm", "name", NULL};
    Py_buffer text, hmm;
    const char *name;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*y*s", kwlist, &text, &hmm, &name)) return NULL;
    Dictionary *self = (Dictionary *)type->tp_alloc(type, 0);
    if (self && (read_hmm(self, &hmm) < 0 || read_dictionary(self, text.buf, (size_t)text.len, name) < 0))
        Py_CLEAR(self);
    PyBuffer_Release(&text);
    PyBuffer_Release(&hmm);
    return (PyObject *)self;
}

/* The dump: magic, version, node count, edge table size (mask + 1), edge count, total, then the nodes'
 * counts and logs, the root table, the edge keys and children, and the HMM. */
typedef struct {
    uint32_t magic, version, n_nodes, unused;
    uint64_t slots, n_edges;
    int64_t total;
} DumpHeader;

static size_t
dump_size(const DumpHeader *h)
{
    return sizeof(DumpHeader) + (size_t)h->n_nodes * (sizeof(int64_t) + sizeof(double)) +
           sizeof(uint32_t) * JIEBA_ROOT_TABLE + (size_t)h->slots * (sizeof(uint64_t) + sizeof(uint32_t)) +
           sizeof(double) * JIEBA_HMM_VALUES;
}

static PyObject *
dictionary_dump(Dictionary *self, PyObject *Py_UNUSED(ignored))
{
    const JiebaDict *d = &self->dict;
    DumpHeader h = {DUMP_MAGIC, DUMP_VERSION, d->n_nodes, 0, d->edges ? d->mask + 1 : 0, d->n_edges, d->total};
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)dump_size(&h));
    if (!out) return NULL;
    char *p = PyBytes_AS_STRING(out);
#define PUT(source, size)              \
    do {                               \
        memcpy(p, (source), (size));   \
        p += (size);                   \
    } while (0)
    PUT(&h, sizeof(h));
    PUT(d->counts, sizeof(int64_t) * d->n_nodes);
    PUT(d->log_counts, sizeof(double) * d->n_nodes);
    PUT(d->root, sizeof(uint32_t) * JIEBA_ROOT_TABLE);
    for (uint64_t i = 0; i < h.slots; i++) PUT(&d->edges[i].key, sizeof(uint64_t));
    for (uint64_t i = 0; i < h.slots; i++) PUT(&d->edges[i].child, sizeof(uint32_t));
    PUT(self->hmm->start, sizeof(self->hmm->start));
    PUT(self->hmm->trans, sizeof(self->hmm->trans));
    PUT(self->hmm->emit, sizeof(self->hmm->emit));
#undef PUT
    return out;
}

static int
load_dump(Dictionary *self, const char *p, size_t n)
{
    DumpHeader h;
    if (n < sizeof(h)) return -1;
    memcpy(&h, p, sizeof(h));
    if (h.magic != DUMP_MAGIC || h.version != DUMP_VERSION || h.n_nodes == 0 || h.n_nodes == UINT32_MAX ||
        h.slots > ((uint64_t)1 << 40) || (h.slots & (h.slots - 1)) || h.n_edges > h.slots || dump_size(&h) != n)
        return -1;
    p += sizeof(h);
    JiebaDict *d = &self->dict;
    if (jieba_dict_init(d, h.n_nodes) < 0) return -2;
    d->n_nodes = h.n_nodes;
    d->total = h.total;
    d->n_edges = (size_t)h.n_edges;
    memcpy(d->counts, p, sizeof(int64_t) * h.n_nodes);
    p += sizeof(int64_t) * h.n_nodes;
    memcpy(d->log_counts, p, sizeof(double) * h.n_nodes);
    p += sizeof(double) * h.n_nodes;
    memset(d->split, 0, h.n_nodes);
    memcpy(d->root, p, sizeof(uint32_t) * JIEBA_ROOT_TABLE);
    p += sizeof(uint32_t) * JIEBA_ROOT_TABLE;
    for (uint32_t c = 0; c < JIEBA_ROOT_TABLE; c++)
        if (d->root[c] != JIEBA_NONE && d->root[c] >= h.n_nodes) return -1;
    if (h.slots) {
        d->edges = calloc((size_t)h.slots, sizeof(JiebaEdge));
        if (!d->edges) return -2;
        d->mask = (size_t)h.slots - 1;
        size_t used = 0;
        for (uint64_t i = 0; i < h.slots; i++, p += sizeof(uint64_t)) memcpy(&d->edges[i].key, p, sizeof(uint64_t));
        for (uint64_t i = 0; i < h.slots; i++, p += sizeof(uint32_t)) {
            memcpy(&d->edges[i].child, p, sizeof(uint32_t));
            if (!d->edges[i].key) continue;
            used++;
            if (d->edges[i].child == 0 || d->edges[i].child >= h.n_nodes || (d->edges[i].key - 1) >> 21 >= h.n_nodes)
                return -1;
        }
        if (used != d->n_edges || used == h.slots) return -1; /* a full table would never end a probe */
    }
    self->hmm = malloc(sizeof(JiebaHmm));
    if (!self->hmm) return -2;
    memcpy(self->hmm->start, p, sizeof(self->hmm->start));
    p += sizeof(self->hmm->start);
    memcpy(self->hmm->trans, p, sizeof(self->hmm->trans));
    p += sizeof(self->hmm->trans);
    memcpy(self->hmm->emit, p, sizeof(self->hmm->emit));
    for (uint32_t i = 0; i < h.n_nodes; i++)
        if (d->counts[i] < 0) return -1;
    return 0;
}

static PyObject *
dictionary_load(PyTypeObject *type, PyObject *args)
{
    Py_buffer data;
    const char *name;
    if (!PyArg_ParseTuple(args, "y*s", &data, &name)) return NULL;
    Dictionary *self = (Dictionary *)type->tp_alloc(type, 0);
    int status = self ? load_dump(self, data.buf, (size_t)data.len) : 0;
    PyBuffer_Release(&data);
    if (status == -2) PyErr_NoMemory();
    if (status == -1) PyErr_Format(PyExc_ValueError, "%s is not a kvec jieba dictionary, or it is corrupt", name);
    if (status) Py_CLEAR(self);
    return (PyObject *)self;
}

static PyObject *
dictionary_total(Dictionary *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLongLong(self->dict.total);
}

static PyMethodDef dictionary_methods[] = {
    {"dump", (PyCFunction)dictionary_dump, METH_NOARGS, "dump() -> bytes: the built dictionary and HMM"},
    {"load", (PyCFunction)dictionary_load, METH_VARARGS | METH_CLASS,
     "load(data, name) -> Dictionary: one dump() made; ValueError naming `name` when it is corrupt"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef dictionary_getset[] = {
    {"total", (getter)dictionary_total, NULL, "the sum of the dictionary's counts", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject DictionaryType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._jieba.Dictionary",
    .tp_basicsize = sizeof(Dictionary),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Dictionary(text, hmm, name): jieba's prefix dictionary and HMM",
    .tp_new = dictionary_new,
    .tp_dealloc = (destructor)dictionary_dealloc,
    .tp_methods = dictionary_methods,
    .tp_getset = dictionary_getset,
};

