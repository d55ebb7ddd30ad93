/* csrc/python/word_model.h: a model's C function from one word to its ids, handed in a capsule from the
 * extension that holds the model (kvec._subword, kvec._unigram) to the word encoder (kvec._encoder), so
 * that words new to the encoder's cache are segmented without the GIL, on every encoding thread at once.
 *
 * The capsule's pointer is the model's WordModel; its context is the model object, which the capsule
 * keeps alive. kvec.contracts.Model.word_model() gives the capsule, or None where the model has no such
 * function. */
#ifndef KVEC_WORD_MODEL_H
#define KVEC_WORD_MODEL_H

#include <Python.h>

#include "int64s.h"
#include "words.h"

#define WORD_MODEL_CAPSULE "kvec.word_model"

typedef struct {
    /* Without the GIL: appends the ids of `word` (never empty) to `out` and returns 0; returns 1 where
     * only the model's Python function can answer (it raises), -1 when out of memory. The model must
     * not change while it runs. */
    int (*word_ids)(PyObject *model, const Span *word, Int64s *out);
} WordModel;

static inline void
word_model_release(PyObject *capsule)
{
    Py_XDECREF((PyObject *)PyCapsule_GetContext(capsule));
}

/* A new capsule of `functions` for `model`; NULL with an exception set. */
static inline PyObject *
word_model_capsule(PyObject *model, const WordModel *functions)
{
    PyObject *capsule = PyCapsule_New((void *)functions, WORD_MODEL_CAPSULE, word_model_release);
    if (!capsule) return NULL;
    if (PyCapsule_SetContext(capsule, Py_NewRef(model)) < 0) {
        Py_DECREF(model);
        Py_DECREF(capsule);
        return NULL;
    }
    return capsule;
}

/* The functions in a capsule made by word_model_capsule, and its model; NULL with an exception set. */
static inline const WordModel *
word_model_open(PyObject *capsule, PyObject **model)
{
    const WordModel *functions = PyCapsule_GetPointer(capsule, WORD_MODEL_CAPSULE);
    if (!functions) return NULL;
    *model = PyCapsule_GetContext(capsule);
    if (!*model) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "the word model capsule holds no model");
        return NULL;
    }
    return functions;
}

#endif
