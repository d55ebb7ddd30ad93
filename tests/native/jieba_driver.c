/* tests/native/jieba_driver.c: csrc/core/jieba_cut.c's entry points over many inputs, for a build with
 * AddressSanitizer and UBSan (tests/test_native_sanitizers.py).
 *
 * Standard input: u32 count of dictionary words, each u32 length, code points, i64 count; u32 count of
 * user words, the same way; then texts back to back, each u32 length and code points (all
 * little-endian). The HMM gets emissions for the dictionary's Han characters. Each text is cut in every
 * mode, with and without the HMM, and each word's count is looked up. Checked for every cut: the words
 * lie inside the text, empty only in full mode keeping whitespace (jieba's stretches around a space);
 * in accurate mode they come in order, one after another, and cover every character that is not
 * whitespace. Prints "texts words"; exits 4 on a broken check, the sanitizers abort on a fault. */
#include "int64s.h"
#include "jieba_cut.h"

#include <stdio.h>
#include <stdlib.h>

static uint32_t
read_u32(void)
{
    unsigned char b[4];
    if (fread(b, 1, 4, stdin) != 4) exit(2);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint32_t *
read_code_points(uint32_t n)
{
    uint32_t *cps = malloc(sizeof(uint32_t) * (n ? n : 1));
    if (!cps) exit(2);
    for (uint32_t i = 0; i < n; i++) cps[i] = read_u32();
    return cps;
}

static void
read_words(JiebaDict *d, int overlay, JiebaHmm *hmm)
{
    uint32_t n_words = read_u32();
    for (uint32_t w = 0; w < n_words; w++) {
        uint32_t n = read_u32();
        uint32_t *cps = read_code_points(n);
        uint64_t count = read_u32();
        count |= (uint64_t)read_u32() << 32;
        if (jieba_dict_add(d, cps, n, (int64_t)count, overlay) < 0 && n > 0 && count < ((uint64_t)1 << 62)) exit(3);
        for (uint32_t i = 0; i < n; i++)
            if (jieba_is_hmm_han(cps[i])) hmm->emit[(cps[i] + w) % JIEBA_STATES][cps[i] - JIEBA_HAN_FIRST] = -1.0 - w % 7;
        free(cps);
    }
}

static int
is_space(uint32_t c)
{
    return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f) || c == 0x85 || c == 0xa0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f ||
           c == 0x3000;
}

static long
check(const JiebaCutter *c, const uint32_t *cps, ptrdiff_t n, JiebaScratch *s)
{
    Int64s spans = {0};
    if (jieba_cut(c, cps, n, &spans, s) < 0) exit(3);
    ptrdiff_t covered = 0;
    for (ptrdiff_t k = 0; k < spans.length; k += 2) {
        int64_t start = spans.data[k], end = spans.data[k + 1];
        if (start < 0) start = -1 - start; /* a piece continuing a word (full mode) */
        int may_be_empty = c->mode == JIEBA_FULL && c->keep_space;
        if (start < 0 || end > n || start > end || (start == end && !may_be_empty)) exit(4);
        if (c->mode != JIEBA_ACCURATE) continue;
        while (covered < start && is_space(cps[covered])) covered++;
        if (start != covered) exit(4);
        covered = end;
    }
    while (c->mode == JIEBA_ACCURATE && covered < n && is_space(cps[covered])) covered++;
    if (c->mode == JIEBA_ACCURATE && covered != n) exit(4);
    long words = (long)spans.length / 2;
    for (ptrdiff_t k = 0; c->mode == JIEBA_ACCURATE && k < spans.length; k += 2)
        if (jieba_count(c, cps + spans.data[k], spans.data[k + 1] - spans.data[k]) < -1) exit(4);
    int64s_free(&spans);
    return words;
}

int
main(void)
{
    static JiebaHmm hmm;
    jieba_hmm_clear(&hmm);
    for (int y = 0; y < JIEBA_STATES; y++) {
        hmm.start[y] = y == JIEBA_B || y == JIEBA_S ? -1.0 : JIEBA_MIN_FLOAT;
        for (int z = 0; z < JIEBA_STATES; z++) hmm.trans[y][z] = -1.0 - (y + z) % 3;
    }
    JiebaDict dict, user;
    if (jieba_dict_init(&dict, 16) < 0 || jieba_dict_init(&user, 16) < 0) return 3;
    read_words(&dict, 0, &hmm);
    read_words(&user, 1, &hmm);
    JiebaScratch scratch = {0};
    long texts = 0, words = 0;
    unsigned char more;
    while (fread(&more, 1, 1, stdin) == 1) {
        uint32_t n = read_u32();
        uint32_t *cps = read_code_points(n);
        for (int mode = JIEBA_ACCURATE; mode <= JIEBA_FULL; mode++) {
            for (int use_hmm = 0; use_hmm <= 1; use_hmm++) {
                JiebaCutter alone = {&dict, NULL, &hmm, mode, use_hmm, 0};
                JiebaCutter with_user = {&dict, &user, &hmm, mode, use_hmm, use_hmm};
                words += check(&alone, cps, n, &scratch) + check(&with_user, cps, n, &scratch);
            }
        }
        free(cps);
        texts++;
    }
    jieba_scratch_free(&scratch);
    jieba_dict_free(&dict);
    jieba_dict_free(&user);
    printf("%ld %ld\n", texts, words);
    return 0;
}
