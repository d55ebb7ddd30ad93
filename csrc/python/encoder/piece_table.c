/* csrc/python/encoder/piece_table.c: PieceTable of kvec._encoder, for kvec/pipeline.py: token ids back to text in one C
 * pass, for decoders whose text is the concatenation of what each token stands for
 * (kvec.contracts.Decoder.token_bytes).
 *
 *   PieceTable(first, later, skipped, invalid=0, keep_first=b"")
 *       first, later: lists of bytes or None, one per id: the UTF-8 bytes that id adds to the text as the
 *           first token decoded, and as any later one; None: no token has that id.
 *       keep_first: bytes, empty or one per id: 1 where the id, decoded first, leaves the next token
 *           first too.
 *       skipped: bytes, one per id: 1 where skip_special_tokens leaves the id out.
 *       invalid: how a row's bytes are read: 0, as UTF-8 with lone surrogates kept, each bad byte run
 *           one U+FFFD (kvec.contracts.utf8_text's "lossy"); 1, the same without the replacement; 2, as
 *           strict UTF-8 (no surrogates). With 1 and 2 a row that is not UTF-8 so is None: the decoder
 *           reads its bad bytes its own way (kvec.contracts.PieceDecoder.invalid_utf8).
 *   .decode(rows, skip_special_tokens) -> list of str (or None, see invalid): each row (a sequence of
 *       ints) as the concatenation of its tokens' bytes, read as `invalid` says.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "encoder.h"

typedef struct {
    PyObject_HEAD
    Py_ssize_t n;           /* ids 0 .. n - 1 */
    Py_ssize_t *first_at;   /* id i's first-token bytes: pool[first_at[i] .. first_at[i + 1]) */
    Py_ssize_t *later_at;   /* and its later-token bytes: pool[later_at[i] .. later_at[i + 1]) */
    unsigned char *present; /* 1 where an id has a token */
    unsigned char *skipped;
    int invalid;
    unsigned char *keep_first; /* NULL, or 1 where an id decoded first keeps the next token first */
    char *pool;
} PieceTable;

/* Room for `size` bytes in *buffer; -1 with an exception set. */
static int
reserve(char **buffer, Py_ssize_t *capacity, Py_ssize_t size)
{
    if (size <= *capacity) return 0;
    Py_ssize_t grown = *capacity ? *capacity : 256;
    while (grown < size) grown *= 2;
    char *bigger = PyMem_Realloc(*buffer, (size_t)grown);
    if (!bigger) {
        PyErr_NoMemory();
        return -1;
    }
    *buffer = bigger;
    *capacity = grown;
    return 0;
}

static void
piece_table_clear(PieceTable *self)
{
    PyMem_Free(self->first_at);
    PyMem_Free(self->later_at);
    PyMem_Free(self->present);
    PyMem_Free(self->skipped);
    PyMem_Free(self->keep_first);
    PyMem_Free(self->pool);
    self->first_at = self->later_at = NULL;
    self->present = self->skipped = self->keep_first = NULL;
    self->invalid = 0;
    self->pool = NULL;
    self->n = 0;
}

/* The pieces of one list into the pool from *used on; -1 with an exception set. */
static int
piece_table_fill(PieceTable *self, PyObject *pieces, const char *name, Py_ssize_t *at, Py_ssize_t *used)
{
    for (Py_ssize_t i = 0; i < self->n; i++) {
        PyObject *piece = PyList_GET_ITEM(pieces, i);
        at[i] = *used;
        if (piece == Py_None) continue;
        if (!PyBytes_Check(piece)) {
            PyErr_Format(PyExc_TypeError, "%s[%zd] must be bytes or None, got %.100s", name, i, Py_TYPE(piece)->tp_name);
            return -1;
        }
        self->present[i] = 1;
        memcpy(self->pool + *used, PyBytes_AS_STRING(piece), (size_t)PyBytes_GET_SIZE(piece));
        *used += PyBytes_GET_SIZE(piece);
    }
    at[self->n] = *used;
    return 0;
}

/* Checks the parsed arguments of PieceTable() and copies them into the table; -1 with an exception set and
 * the table left empty. */
static int
piece_table_load(PieceTable *self, PyObject *first, PyObject *later, const Py_buffer *skipped, int invalid,
                 const Py_buffer *keep_first)
{
    piece_table_clear(self);
    Py_ssize_t n = PyList_GET_SIZE(first), size = 0, used = 0;
    int status = -1;
    if (PyList_GET_SIZE(later) != n || skipped->len != n) {
        PyErr_Format(PyExc_ValueError, "first, later and skipped must have one entry per id: %zd, %zd and %zd", n,
                     PyList_GET_SIZE(later), skipped->len);
        goto done;
    }
    if (invalid < 0 || invalid > 2) {
        PyErr_Format(PyExc_ValueError, "invalid must be 0, 1 or 2, got %d", invalid);
        goto done;
    }
    if (keep_first->len != 0 && keep_first->len != n) {
        PyErr_Format(PyExc_ValueError, "keep_first must be empty or have %zd entries, got %zd", n, keep_first->len);
        goto done;
    }
    self->invalid = invalid;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyList_GET_ITEM(first, i), *b = PyList_GET_ITEM(later, i);
        if ((a == Py_None) != (b == Py_None)) {
            PyErr_Format(PyExc_ValueError, "first[%zd] and later[%zd] must both be None or both bytes", i, i);
            goto done;
        }
        if (PyBytes_Check(a)) size += PyBytes_GET_SIZE(a);
        if (PyBytes_Check(b)) size += PyBytes_GET_SIZE(b);
    }
    self->n = n;
    self->first_at = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n + 1));
    self->later_at = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n + 1));
    self->present = PyMem_Calloc((size_t)(n ? n : 1), 1);
    self->skipped = PyMem_Malloc((size_t)(n ? n : 1));
    self->pool = PyMem_Malloc((size_t)(size ? size : 1));
    if (!self->first_at || !self->later_at || !self->present || !self->skipped || !self->pool) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(self->skipped, skipped->buf, (size_t)n);
    if (keep_first->len) {
        self->keep_first = PyMem_Malloc((size_t)n);
        if (!self->keep_first) {
            PyErr_NoMemory();
            goto done;
        }
        memcpy(self->keep_first, keep_first->buf, (size_t)n);
    }
    if (piece_table_fill(self, first, "first", self->first_at, &used) < 0 ||
        piece_table_fill(self, later, "later", self->later_at, &used) < 0)
        goto done;
    status = 0;
done:
    if (status < 0) piece_table_clear(self);
    return status;
}

/* PieceTable(first, later, skipped, invalid=0, keep_first=b""): reads the arguments, then loads the table
 * from them. */
static int
PieceTable_init(PieceTable *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"first", "later", "skipped", "invalid", "keep_first", NULL};
    PyObject *first, *later;
    Py_buffer skipped, keep_first = {0};
    int invalid = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!y*|iy*", kwlist, &PyList_Type, &first, &PyList_Type, &later,
                                     &skipped, &invalid, &keep_first))
        return -1;
    int status = piece_table_load(self, first, later, &skipped, invalid, &keep_first);
    PyBuffer_Release(&skipped);
    if (keep_first.obj) PyBuffer_Release(&keep_first);
    return status;
}

static void
PieceTable_dealloc(PieceTable *self)
{
    piece_table_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The id at row[k] (an int, or an object with __index__), checked against the table; -1 with an
 * exception set. */
static Py_ssize_t
piece_id(const PieceTable *self, PyObject *item, Py_ssize_t k)
{
    PyObject *number = PyLong_CheckExact(item) ? Py_NewRef(item) : PyNumber_Index(item);
    if (!number) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "ids[%zd] must be an int, got %.100s", k, Py_TYPE(item)->tp_name);
        return -1;
    }
    int overflow = 0;
    long long id = PyLong_AsLongLongAndOverflow(number, &overflow);
    Py_DECREF(number);
    if (overflow || id < 0 || id >= self->n || !self->present[id]) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "ids[%zd] = %R is not in the vocabulary", k, item);
        return -1;
    }
    return (Py_ssize_t)id;
}

/* buffer[0 .. length) read as `invalid` says (see the top of the file). */
static PyObject *
utf8_text(const char *buffer, Py_ssize_t length, int invalid)
{
    PyObject *text = PyUnicode_DecodeUTF8(buffer, length, invalid == 2 ? "strict" : "surrogatepass");
    if (text || !PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) return text;
    PyErr_Clear();
    return invalid ? Py_NewRef(Py_None) : PyUnicode_DecodeUTF8(buffer, length, "replace");
}

/* The text of one row; NULL with an exception set. The buffer is reused from row to row. */
static PyObject *
piece_table_text(const PieceTable *self, PyObject *row, int skip_special, char **buffer, Py_ssize_t *capacity)
{
    PyObject *seq = PySequence_Fast(row, "each row of ids must be a sequence of int");
    if (!seq) return NULL;
    Py_ssize_t length = 0, n = PySequence_Fast_GET_SIZE(seq);
    int first = 1;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_ssize_t id = piece_id(self, PySequence_Fast_GET_ITEM(seq, k), k);
        if (id < 0) goto fail;
        if (skip_special && self->skipped[id]) continue;
        const Py_ssize_t *at = first ? self->first_at : self->later_at;
        Py_ssize_t size = at[id + 1] - at[id];
        if (reserve(buffer, capacity, length + size) < 0) goto fail;
        if (size) memcpy(*buffer + length, self->pool + at[id], (size_t)size); /* no buffer yet for nothing */
        length += size;
        if (!self->keep_first || !self->keep_first[id]) first = 0;
    }
    Py_DECREF(seq);
    return utf8_text(*buffer, length, self->invalid);
fail:
    Py_DECREF(seq);
    return NULL;
}

/* One str (or None, see invalid) per row of ids, read through the table; NULL with an exception set. */
static PyObject *
piece_table_texts(const PieceTable *self, PyObject *rows, int skip_special)
{
    PyObject *seq = PySequence_Fast(rows, "sequences must be a sequence of sequences of int");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), capacity = 0;
    char *buffer = NULL;
    PyObject *texts = PyList_New(n);
    for (Py_ssize_t r = 0; texts && r < n; r++) {
        PyObject *text = piece_table_text(self, PySequence_Fast_GET_ITEM(seq, r), skip_special, &buffer, &capacity);
        if (!text) Py_CLEAR(texts);
        else PyList_SET_ITEM(texts, r, text);
    }
    PyMem_Free(buffer);
    Py_DECREF(seq);
    return texts;
}

/* decode(rows, skip_special_tokens): reads the arguments, then decodes each row. */
static PyObject *
PieceTable_decode(PieceTable *self, PyObject *args)
{
    PyObject *rows;
    int skip_special;
    if (!PyArg_ParseTuple(args, "Op:decode", &rows, &skip_special)) return NULL;
    return piece_table_texts(self, rows, skip_special);
}

static PyMethodDef PieceTable_methods[] = {
    {"decode", (PyCFunction)PieceTable_decode, METH_VARARGS,
     "decode(rows, skip_special_tokens) -> one str per row of ids (None: not UTF-8 as invalid asks): its tokens' "
     "bytes read as UTF-8"},
    {NULL}};

PyTypeObject PieceTableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kvec._encoder.PieceTable",
    .tp_basicsize = sizeof(PieceTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "PieceTable(first, later, skipped): token ids back to text, each id standing for bytes.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)PieceTable_init,
    .tp_dealloc = (destructor)PieceTable_dealloc,
    .tp_methods = PieceTable_methods,
};
