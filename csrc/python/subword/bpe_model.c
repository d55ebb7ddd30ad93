/* csrc/python/subword/bpe_model.c: the Python binding of BPE's merges (csrc/core/bpe.c), for kvec/models/bpe.py.
 *
 *   BpeRanks(merges)   .merge(ids, starts=True, dropout=0.0) -> (ids, starts): merges applied in rank order;
 *                      with dropout, each merge taken from the queue is skipped with that probability
 *                      (BPE-dropout), drawn from the generator .seed(state) set (random.Random.getstate()[1])
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "bpe.h"
#include "subword.h"
#include "pair_map.h"
#include "twister.h"

/* ------------------------------------------------------------------------------------------------ */
/* BpeRanks: a model's merges, applied lowest rank first, leftmost on ties                          */

typedef struct {
    PyObject_HEAD
    PairMap ranks; /* (a, b) -> (rank << 32) | new_id */
    Twister twister; /* dropout's draws */
    int ready;
} BpeRanks;

/* One merge (left id, right id, new id) of the list. */
static int
read_merge(PyObject *merge, Py_ssize_t i, long *a, long *b, long *new_id)
{
    if (!PyTuple_Check(merge)) {
        PyErr_Format(PyExc_TypeError, "merges[%zd] must be a tuple (left id, right id, new id), got %.100s", i,
                     Py_TYPE(merge)->tp_name);
        return -1;
    }
    return PyArg_ParseTuple(merge, "lll", a, b, new_id) ? 0 : -1;
}

/* The ranks of a list of merges, highest priority first. */
static int
read_ranks(PairMap *ranks, PyObject *merges)
{
    if (pairmap_init(ranks, (size_t)PyList_GET_SIZE(merges)) < 0) return -1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(merges); i++) {
        long a, b, new_id;
        if (read_merge(PyList_GET_ITEM(merges, i), i, &a, &b, &new_id) < 0) return -1;
        PairSlot *slot = pairmap_slot(ranks, PAIR(a, b));
        if (!slot) return -1;
        slot->value = ((int64_t)i << 32) | (uint32_t)new_id;
    }
    return 0;
}

static int
BpeRanks_init(BpeRanks *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"merges", NULL};
    PyObject *merges;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!", kwlist, &PyList_Type, &merges)) return -1;
    if (!self->ready) {
        self->ready = 1;
        self->twister.index = TWISTER_N; /* an all-zero state until seed() */
    }
    PyMem_Free(self->ranks.slots);
    self->ranks.slots = NULL;
    return read_ranks(&self->ranks, merges);
}

static void
BpeRanks_dealloc(BpeRanks *self)
{
    PyMem_Free(self->ranks.slots);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A draw of dropout's generator: 1 when the merge is skipped. */
static int
dropped(BpeRanks *owner, double dropout)
{
    return twister_random(&owner->twister) < dropout;
}

/* BpeDropout.skip over the ranks' generator; `dropout` the probability (see bpe_dropout) */
typedef struct {
    BpeRanks *owner;
    double dropout;
} Draws;

static int
skip_merge(void *context)
{
    Draws *draws = context;
    return dropped(draws->owner, draws->dropout);
}

/* core's bpe_merge with this model's ranks and, when dropout > 0, its generator */
static int
ranks_merge(BpeRanks *owner, int32_t *ids, Py_ssize_t n, char *alive, double dropout)
{
    Draws draws = {owner, dropout};
    BpeDropout skipping = {skip_merge, &draws};
    return bpe_merge(&owner->ranks, ids, n, alive, dropout > 0.0 ? &skipping : NULL);
}

/* The symbols of a list merged, as the ids left, with the first symbol index of each when asked. */
static PyObject *
merged_symbols(BpeRanks *self, PyObject *symbols, int with_starts, double dropout)
{
    Py_ssize_t n = PyList_GET_SIZE(symbols);
    int32_t *ids = PyMem_Malloc((size_t)(n + 1) * sizeof(int32_t));
    char *alive = PyMem_Malloc((size_t)n + 1);
    PyObject *out_ids = NULL, *out_starts = NULL, *result = NULL;
    if (!ids || !alive) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long id = PyLong_AsLong(PyList_GET_ITEM(symbols, i));
        if (id == -1 && PyErr_Occurred()) goto done;
        ids[i] = (int32_t)id;
    }
    if (ranks_merge(self, ids, n, alive, dropout) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    out_ids = PyList_New(0);
    out_starts = with_starts ? PyList_New(0) : NULL;
    if (!out_ids || (with_starts && !out_starts)) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!alive[i]) continue;
        PyObject *id = PyLong_FromLong(ids[i]), *start = with_starts ? PyLong_FromSsize_t(i) : NULL;
        int rc = id && (start || !with_starts) ? PyList_Append(out_ids, id) : -1;
        if (rc == 0 && with_starts) rc = PyList_Append(out_starts, start);
        Py_XDECREF(id);
        Py_XDECREF(start);
        if (rc < 0) goto done;
    }
    result = with_starts ? PyTuple_Pack(2, out_ids, out_starts) : Py_NewRef(out_ids);
done:
    Py_XDECREF(out_ids);
    Py_XDECREF(out_starts);
    PyMem_Free(ids);
    PyMem_Free(alive);
    return result;
}

/* merge(ids) -> (merged ids, the first symbol index of each merged token) */
static PyObject *
BpeRanks_merge(BpeRanks *self, PyObject *args)
{
    PyObject *symbols;
    int with_starts = 1;
    double dropout = 0.0;
    if (!PyArg_ParseTuple(args, "O!|pd", &PyList_Type, &symbols, &with_starts, &dropout)) return NULL;
    if (!self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "BpeRanks.__init__ was not called");
        return NULL;
    }
    return merged_symbols(self, symbols, with_starts, dropout);
}

/* seed(state): the dropout generator set to random.Random's state (getstate()[1]: 624 words, then
 * the position in them) */
static PyObject *
BpeRanks_seed(BpeRanks *self, PyObject *state)
{
    if (!self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "BpeRanks.__init__ was not called");
        return NULL;
    }
    if (!PyTuple_Check(state) || PyTuple_GET_SIZE(state) != TWISTER_N + 1) {
        PyErr_SetString(PyExc_ValueError, "state must be random.Random().getstate()[1]: a tuple of 625 ints");
        return NULL;
    }
    Twister twister;
    for (Py_ssize_t i = 0; i <= TWISTER_N; i++) {
        unsigned long word = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(state, i));
        if (word == (unsigned long)-1 && PyErr_Occurred()) return NULL;
        if (i < TWISTER_N) twister.state[i] = (uint32_t)word;
        else twister.index = word > TWISTER_N ? TWISTER_N : (int)word;
    }
    self->twister = twister;
    Py_RETURN_NONE;
}

static PyMethodDef BpeRanks_methods[] = {
    {"merge", (PyCFunction)BpeRanks_merge, METH_VARARGS,
     "merge(ids, starts=True, dropout=0.0) -> (ids, starts): apply the merges lowest rank first, leftmost on "
     "ties; starts[k] is the index of the first input symbol of output token k. With starts=False, only the "
     "ids. With dropout, each merge is skipped with that probability (the generator of seed())."},
    {"seed", (PyCFunction)BpeRanks_seed, METH_O,
     "seed(state): the dropout generator set to random.Random(seed).getstate()[1]"},
    {NULL}};

PyTypeObject BpeRanksType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._subword.BpeRanks",
    .tp_basicsize = sizeof(BpeRanks),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "BpeRanks(merges): merges as (left id, right id, new id), highest priority first.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)BpeRanks_init,
    .tp_dealloc = (destructor)BpeRanks_dealloc,
    .tp_methods = BpeRanks_methods,
};
