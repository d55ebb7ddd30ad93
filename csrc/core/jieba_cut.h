/* csrc/core/jieba_cut.h: jieba's segmentation of a text into words (jieba 0.42.1's `cut`).
 *
 * The text is cut into blocks: runs of Han (U+4E00 .. U+9FD5), ASCII letters and digits and
 * `+#&._%-`, and the runs between them. A run between gives each character that is not whitespace as
 * a word (in full mode each stretch without whitespace); whitespace is left out. A block gets the
 * directed graph of the dictionary words that start at each character, then:
 * - accurate mode: the route of highest log-probability, sum of log(count) - log(total) per word (a
 *   tie going to the longer word); with the HMM, each stretch of the route's single characters that
 *   is not a dictionary word goes to the HMM (jieba_hmm.h), its Han runs tagged into words and the
 *   rest cut as ASCII words (letters and digits, a decimal part, a percent sign) and what lies between;
 *   without it, single ASCII letters and digits of the route are joined;
 * - search mode: accurate mode's words, each of more than two characters preceded by the dictionary
 *   words of two, then three, characters inside it;
 * - full mode: every dictionary word of each start, jieba's way (a start covered by a longer word
 *   gives no word of one character; ASCII letters and digits found alone are joined).
 *
 * The dictionary is a shared JiebaDict with a Jieba object's own words over it (user, may be NULL):
 * a fragment is in the dictionary when it is in either, and the user's count wins. */
#ifndef KVEC_CORE_JIEBA_CUT_H
#define KVEC_CORE_JIEBA_CUT_H

#include "int64s.h"
#include "jieba_dict.h"
#include "jieba_hmm.h"

enum { JIEBA_ACCURATE, JIEBA_SEARCH, JIEBA_FULL };

typedef struct {
    const JiebaDict *dict;
    const JiebaDict *user; /* NULL or a dictionary made with overlay */
    const JiebaHmm *hmm;
    int mode;
    int use_hmm;
    int keep_space; /* whitespace is given too, as jieba gives it: "\r\n" as one word, else each character;
                     * in full mode also the empty stretches around it, as jieba's re.split gives them */
} JiebaCutter;

/* What one thread reuses from text to text. Zeroed, it is ready. */
typedef struct {
    int32_t *dag_first; /* per position of a block: its first entry in dag_ends */
    int32_t *dag_ends;
    double *dag_logs;
    double *route_scores;
    int32_t *route_next;
    uint8_t *states;
    ptrdiff_t block_capacity, dag_capacity;
    Int64s words;  /* search mode: accurate mode's words first */
    Int64s pieces; /* full mode: the letters gathered */
    JiebaViterbi viterbi;
} JiebaScratch;

void jieba_scratch_free(JiebaScratch *s);

/* The count of cps[0 .. n) in the dictionary: 0 for a prefix only, -1 when it is not there. */
int64_t jieba_count(const JiebaCutter *c, const uint32_t *cps, ptrdiff_t n);

/* The words of cps[0 .. n), appended to `spans` as pairs (start, end) of code point offsets, in
 * O(n * L), L the dictionary's longest word (the DAG walks the trie from each position), the route and
 * the HMM in O(n). In full
 * mode jieba may join letters that are not adjacent into one word: its later pieces are pairs whose
 * start is stored as -1 - start. -1 when out of memory. */
int jieba_cut(const JiebaCutter *c, const uint32_t *cps, ptrdiff_t n, Int64s *spans, JiebaScratch *s);

#endif
