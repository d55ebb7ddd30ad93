/* csrc/bpe_model.c: a BPE model's merging of one word, for kvec/models/bpe.py.
 *
 *   BpeRanks(merges)   .merge(ids, starts=True) -> (ids, starts): merges applied in rank order
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "native.h"
#include "pair_map.h"

/* ------------------------------------------------------------------------------------------------ */
/* BpeRanks: a model's merges, applied lowest rank first, leftmost on ties                          */

typedef struct {
    PyObject_HEAD
    PairMap ranks; /* (a, b) -> (rank << 32) | new_id */
} BpeRanks;

static int
BpeRanks_init(BpeRanks *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"merges", NULL};
    PyObject *merges;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!", kwlist, &PyList_Type, &merges)) return -1;
    PyMem_Free(self->ranks.slots);
    if (pairmap_init(&self->ranks, (size_t)PyList_GET_SIZE(merges)) < 0) return -1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(merges); i++) {
        long a, b, new_id;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(merges, i), "lll", &a, &b, &new_id)) return -1;
        PairSlot *slot = pairmap_slot(&self->ranks, PAIR(a, b));
        if (!slot) return -1;
        slot->value = ((int64_t)i << 32) | (uint32_t)new_id;
    }
    return 0;
}

static void
BpeRanks_dealloc(BpeRanks *self)
{
    PyMem_Free(self->ranks.slots);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static inline int64_t
rank_of(PairMap *ranks, int32_t a, int32_t b)
{
    size_t i = pair_hash(PAIR(a, b)) & ranks->mask;
    uint64_t key = PAIR(a, b);
    while (ranks->slots[i].key != EMPTY_KEY) {
        if (ranks->slots[i].key == key) return ranks->slots[i].value;
        i = (i + 1) & ranks->mask;
    }
    return -1;
}

static void
minheap_push(uint64_t *heap, Py_ssize_t *size, uint64_t x)
{
    Py_ssize_t i = (*size)++;
    while (i > 0 && heap[(i - 1) / 2] > x) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = x;
}

static uint64_t
minheap_pop(uint64_t *heap, Py_ssize_t *size)
{
    uint64_t top = heap[0], last = heap[--*size];
    Py_ssize_t i = 0;
    for (;;) {
        Py_ssize_t child = 2 * i + 1;
        if (child >= *size) break;
        if (child + 1 < *size && heap[child + 1] < heap[child]) child++;
        if (heap[child] >= last) break;
        heap[i] = heap[child];
        i = child;
    }
    if (*size) heap[i] = last;
    return top;
}

/* merge(ids) -> (merged ids, the first symbol index of each merged token) */
static PyObject *
BpeRanks_merge(BpeRanks *self, PyObject *args)
{
    PyObject *symbols;
    int with_starts = 1;
    if (!PyArg_ParseTuple(args, "O!|p", &PyList_Type, &symbols, &with_starts)) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(symbols);
    int32_t *ids = PyMem_Malloc((n + 1) * sizeof(int32_t));
    Py_ssize_t *next = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t)), *prev = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t));
    char *alive = PyMem_Malloc(n + 1);
    uint64_t *heap = PyMem_Malloc((3 * n + 1) * sizeof(uint64_t)); /* n initial + at most 2 per merge */
    PyObject *out_ids = NULL, *out_starts = NULL, *result = NULL;
    Py_ssize_t size = 0;
    if (!ids || !next || !prev || !alive || !heap) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long id = PyLong_AsLong(PyList_GET_ITEM(symbols, i));
        if (id == -1 && PyErr_Occurred()) goto done;
        ids[i] = (int32_t)id;
        next[i] = i + 1 < n ? i + 1 : -1;
        prev[i] = i - 1;
        alive[i] = 1;
    }
    for (Py_ssize_t i = 0; i + 1 < n; i++) {
        int64_t r = rank_of(&self->ranks, ids[i], ids[i + 1]);
        if (r >= 0) minheap_push(heap, &size, ((uint64_t)(r >> 32) << 32) | (uint64_t)i);
    }
    while (size) {
        uint64_t top = minheap_pop(heap, &size);
        Py_ssize_t pos = (Py_ssize_t)(top & 0xffffffffu);
        int64_t rank = (int64_t)(top >> 32);
        Py_ssize_t right = next[pos];
        if (!alive[pos] || right == -1) continue;
        int64_t r = rank_of(&self->ranks, ids[pos], ids[right]);
        if (r < 0 || (r >> 32) != rank) continue; /* an expired entry */
        ids[pos] = (int32_t)(r & 0xffffffff);
        alive[right] = 0;
        next[pos] = next[right];
        if (next[pos] != -1) prev[next[pos]] = pos;
        if (prev[pos] != -1) {
            int64_t rp = rank_of(&self->ranks, ids[prev[pos]], ids[pos]);
            if (rp >= 0) minheap_push(heap, &size, ((uint64_t)(rp >> 32) << 32) | (uint64_t)prev[pos]);
        }
        if (next[pos] != -1) {
            int64_t rn = rank_of(&self->ranks, ids[pos], ids[next[pos]]);
            if (rn >= 0) minheap_push(heap, &size, ((uint64_t)(rn >> 32) << 32) | (uint64_t)pos);
        }
    }
    out_ids = PyList_New(0);
    if (!out_ids) goto done;
    if (!with_starts) {
        for (Py_ssize_t i = 0; i < n; i++) {
            if (!alive[i]) continue;
            PyObject *id = PyLong_FromLong(ids[i]);
            int rc = id ? PyList_Append(out_ids, id) : -1;
            Py_XDECREF(id);
            if (rc < 0) goto done;
        }
        result = Py_NewRef(out_ids);
        goto done;
    }
    out_starts = PyList_New(0);
    if (!out_starts) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!alive[i]) continue;
        PyObject *id = PyLong_FromLong(ids[i]), *start = PyLong_FromSsize_t(i);
        int rc = id && start ? (PyList_Append(out_ids, id) | PyList_Append(out_starts, start)) : -1;
        Py_XDECREF(id);
        Py_XDECREF(start);
        if (rc < 0) goto done;
    }
    result = PyTuple_Pack(2, out_ids, out_starts);
done:
    Py_XDECREF(out_ids);
    Py_XDECREF(out_starts);
    PyMem_Free(ids);
    PyMem_Free(next);
    PyMem_Free(prev);
    PyMem_Free(alive);
    PyMem_Free(heap);
    return result;
}

static PyMethodDef BpeRanks_methods[] = {
    {"merge", (PyCFunction)BpeRanks_merge, METH_VARARGS,
     "merge(ids, starts=True) -> (ids, starts): apply the merges lowest rank first, leftmost on ties; "
     "starts[k] is the index of the first input symbol of output token k. With starts=False, only the ids."},
    {NULL}};

PyTypeObject BpeRanksType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._native.BpeRanks",
    .tp_basicsize = sizeof(BpeRanks),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "BpeRanks(merges): merges as (left id, right id, new id), highest priority first.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)BpeRanks_init,
    .tp_dealloc = (destructor)BpeRanks_dealloc,
    .tp_methods = BpeRanks_methods,
};
