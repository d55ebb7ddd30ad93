/* csrc/python/jieba/jieba_module.c: the kvec._jieba extension: jieba's segmentation (csrc/core/jieba_cut.h) for
 * kvec/chinese.py. The types are in jieba_dictionary.c and jieba_cutter.c.
 *
 *   Dictionary(text, hmm, name)   jieba's prefix dictionary from the UTF-8 text of a dictionary file
 *       (`word count [tag]` per line), and its HMM from float64 bytes: start (B, E, M, S), transitions
 *       (from, to) and emissions (state, code point - U+4E00), JIEBA_MIN_FLOAT where jieba has none
 *       .dump() -> bytes, Dictionary.load(data, name)   the built dictionary, for kvec's cache
 *   Cutter(dictionary, mode, hmm)   a segmenter (mode 0 accurate, 1 search, 2 full) with words of its own
 *       .add_word(word, count), .count(word) -> int or None, .total
 *       .words(text) -> [str], .spans(text) -> [(str, start)], whitespace left out
 *       .cut(text, mode, hmm, keep_space, with_starts) -> [str] or [(str, start)], in any mode, with
 *           whitespace as jieba gives it when keep_space
 *       .segment(texts, n_threads) -> [[str]]   every text's words, cut on n_threads threads without the
 *           GIL while this thread makes the lists
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "jieba.h"
#include "module.h"

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "kvec._jieba", "jieba's segmentation in C.", -1, NULL, NULL, NULL, NULL, NULL};

static const ModuleType types[] = {
    {"Dictionary", &DictionaryType},
    {"Cutter", &CutterType},
};

PyMODINIT_FUNC
PyInit__jieba(void)
{
    return create_module(&module_def, types, sizeof(types) / sizeof(types[0]));
}
