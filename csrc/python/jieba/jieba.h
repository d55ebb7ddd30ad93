/* csrc/python/jieba/jieba.h: what the files of the kvec._jieba extension share (see jieba_module.c). */
#ifndef KVEC_JIEBA_H
#define KVEC_JIEBA_H

#include "int64s.h" /* first: it includes Python.h */
#include "jieba_cut.h"

typedef struct {
    PyObject_HEAD JiebaDict dict;
    JiebaHmm *hmm;
} Dictionary;

extern PyTypeObject DictionaryType;
extern PyTypeObject CutterType;

#endif
