/* csrc/python/unigram/unigram_encoder.c: Lattice.word_model() of kvec._unigram (unigram_module.c), for
 * kvec/models/unigram.py: the capsule of csrc/python/word_model.h, the ids of one word by the lattice's
 * configured rule (unigram_ids() of csrc/core/unigram_path.h), without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "unigram.h"
#include "word_model.h"

/* WordModel.word_ids: the ids of one word; 1 where a character has no id (Python raises). */
static int
lattice_word_ids(PyObject *model, const Span *word, Int64s *out)
{
    const Lattice *L = (const Lattice *)model;
    CodePoints view = {word->kind, (const char *)word->data + word->start * word->kind, word->length};
    UnigramPath path = {0};
    ptrdiff_t unknown_at = 0;
    int status = unigram_ids(&L->model, &path, &view, out, &unknown_at);
    unigram_path_free(&path);
    return status;
}

static const WordModel lattice_word_model_functions = {lattice_word_ids};

PyObject *
lattice_word_model(Lattice *self, PyObject *Py_UNUSED(ignored))
{
    self->frozen = 1;
    return word_model_capsule((PyObject *)self, &lattice_word_model_functions);
}
