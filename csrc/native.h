/* csrc/native.h: what the files of the kvec._native extension share: their Python types and module
 * functions, registered by native_module.c. */
#ifndef KVEC_NATIVE_H
#define KVEC_NATIVE_H

#include <Python.h>

/* keras_words.c (kvec/text.py) */
extern PyTypeObject WordSplitterType, WordLookupType, WordCounterType;
int keras_words_init(void);

/* padding.c (kvec/sequence.py) */
PyObject *fill_padded(PyObject *module, PyObject *args);
PyObject *fill_rows(PyObject *module, PyObject *args);

/* bpe_trainer.c (kvec/trainers/bpe.py) */
PyObject *bpe_merge_loop(PyObject *module, PyObject *args);

/* bpe_model.c (kvec/models/bpe.py) */
extern PyTypeObject BpeRanksType, BpeSymbolsType;

/* wordpiece_model.c (kvec/models/wordpiece.py) */
extern PyTypeObject WordPieceTableType;

/* charsmap.c (kvec/charsmap.py, kvec.normalizers.SentencePieceNormalizer) */
extern PyTypeObject CharsMapTableType;

/* bottom_up_trainer.c (kvec/trainers/bottom_up.py) */
extern PyTypeObject BottomUpLearnerType;

#endif
