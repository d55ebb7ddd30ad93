/* csrc/native_module.c: the kvec._native extension: the hot loops behind kvec's Keras API and its
 * BPE and WordPiece models and trainers. Each subject is a file of its own (see native.h); this one
 * registers their types and functions. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "module.h"
#include "native.h"

static PyMethodDef module_methods[] = {
    {"bpe_merge_loop", bpe_merge_loop, METH_VARARGS,
     "bpe_merge_loop(words, counts, vocab_size, current_size, min_frequency, max_length, add_merge) -> "
     "merged pairs in order; add_merge(a, b) -> (new_id, vocabulary size) names each new token"},
    {"fill_padded", fill_padded, METH_VARARGS,
     "fill_padded(out, sequences, pre_padding, pre_truncating) -> bool: copy int/float lists into a "
     "padded 2-D buffer; False when an element needs NumPy's conversion rules"},
    {"fill_rows", fill_rows, METH_VARARGS,
     "fill_rows(out, values, row_lengths) -> None: ragged int64 ids into a 2-D int32/int64 buffer, each row "
     "cut at its width and padded with zeros"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "kvec._native", "The hot loops behind kvec's Python API.", -1, module_methods,
    NULL, NULL, NULL, NULL};

static const ModuleType types[] = {
    {"WordSplitter", &WordSplitterType},
    {"WordLookup", &WordLookupType},
    {"WordCounter", &WordCounterType},
    {"BpeRanks", &BpeRanksType},
    {"BpeSymbols", &BpeSymbolsType},
    {"WordPieceTable", &WordPieceTableType},
    {"BottomUpLearner", &BottomUpLearnerType},
    {"CharsMapTable", &CharsMapTableType},
};

PyMODINIT_FUNC
PyInit__native(void)
{
    if (keras_words_init() < 0) return NULL;
    return create_module(&module_def, types, sizeof(types) / sizeof(types[0]));
}
