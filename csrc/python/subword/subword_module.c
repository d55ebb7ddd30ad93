/* csrc/python/subword/subword_module.c: the kvec._subword extension: the hot loops of kvec's BPE model, its BPE and
 * WordPiece trainers (the bottom-up learner included) and of sentencepiece's character map, the normalizer
 * of the models sentencepiece makes. Each subject is a file of its own (see subword.h); this one
 * registers their types and functions. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "module.h"
#include "subword.h"

static PyMethodDef module_methods[] = {
    {"bpe_merge_loop", bpe_merge_loop, METH_VARARGS,
     "bpe_merge_loop(words, counts, vocab_size, current_size, min_frequency, max_length, add_merge) -> "
     "merged pairs in order; add_merge(a, b) -> (new_id, vocabulary size) names each new token"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "kvec._subword", "Subword models, their trainers and sentencepiece's character map, in C.",
    -1, module_methods, NULL, NULL, NULL, NULL};

static const ModuleType types[] = {
    {"BpeRanks", &BpeRanksType},
    {"BottomUpLearner", &BottomUpLearnerType},
    {"CharsMapTable", &CharsMapTableType},
};

PyMODINIT_FUNC
PyInit__subword(void)
{
    return create_module(&module_def, types, sizeof(types) / sizeof(types[0]));
}
