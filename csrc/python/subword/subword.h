/* csrc/python/subword/subword.h: what the files of the kvec._subword extension share: their Python types and module
 * functions, registered by subword_module.c. */
#ifndef KVEC_SUBWORD_H
#define KVEC_SUBWORD_H

#include <Python.h>

/* bpe_trainer.c (kvec/trainers/bpe.py) */
PyObject *bpe_merge_loop(PyObject *module, PyObject *args);

/* bpe_model.c (kvec/models/bpe.py) */
extern PyTypeObject BpeRanksType;

/* charsmap.c (kvec/charsmap.py, kvec.normalizers.SentencePieceNormalizer) */
extern PyTypeObject CharsMapTableType;

/* bottom_up_trainer.c (kvec/trainers/bottom_up.py) */
extern PyTypeObject BottomUpLearnerType;

#endif
