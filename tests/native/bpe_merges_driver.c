/* tests/native/bpe_merges_driver.c: csrc/core/bpe_merges.c alone, for tests/test_native_sanitizers.py
 * (built with AddressSanitizer and UBSan, without Python).
 *
 * Standard input, as text: "vocab_size min_frequency max_length", then the alphabet's tokens on one line
 * (ids 0, 1, ... in that order, no spaces in a token), then one word a line: "count id id ...". A merged
 * token is the concatenation of its two tokens; it takes the next id unless that text has one already,
 * as Hugging Face's BpeTrainer does. Prints each merge as "left right" in the order made; exits 2 on bad
 * input or no memory. */
#include "bpe_merges.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 100000
#define MAX_LINE 65536

static char *tokens[MAX_TOKENS];
static int64_t n_tokens;

static int
new_token(void *context, int32_t a, int32_t b, int32_t *new_id, int64_t *vocab_size)
{
    (void)context;
    size_t la = strlen(tokens[a]), lb = strlen(tokens[b]);
    char *text = malloc(la + lb + 1);
    if (!text) return -1;
    memcpy(text, tokens[a], la);
    memcpy(text + la, tokens[b], lb + 1);
    printf("%s %s\n", tokens[a], tokens[b]);
    for (int64_t i = 0; i < n_tokens; i++) {
        if (strcmp(tokens[i], text) == 0) {
            free(text);
            *new_id = (int32_t)i;
            *vocab_size = n_tokens;
            return 0;
        }
    }
    if (n_tokens == MAX_TOKENS) return -1;
    tokens[n_tokens] = text;
    *new_id = (int32_t)n_tokens++;
    *vocab_size = n_tokens;
    return 0;
}

int
main(void)
{
    static char line[MAX_LINE];
    long long vocab_size, min_frequency, max_length;
    if (!fgets(line, sizeof line, stdin)) return 2;
    if (sscanf(line, "%lld %lld %lld", &vocab_size, &min_frequency, &max_length) != 3) return 2;
    if (!fgets(line, sizeof line, stdin)) return 2;
    for (char *token = strtok(line, " \n"); token; token = strtok(NULL, " \n")) {
        if (n_tokens == MAX_TOKENS || !(tokens[n_tokens] = malloc(strlen(token) + 1))) return 2;
        strcpy(tokens[n_tokens++], token);
    }
    int32_t *ids = NULL;
    int64_t *sizes = NULL, *counts = NULL;
    ptrdiff_t n_ids = 0, n_words = 0;
    while (fgets(line, sizeof line, stdin)) {
        char *end;
        long long count = strtoll(line, &end, 10);
        if (end == line) continue;
        sizes = realloc(sizes, (n_words + 1) * sizeof(int64_t));
        counts = realloc(counts, (n_words + 1) * sizeof(int64_t));
        if (!sizes || !counts) return 2;
        counts[n_words] = count;
        sizes[n_words] = 0;
        for (char *p = end;;) {
            long id = strtol(p, &end, 10);
            if (end == p) break;
            if (id < 0 || id >= n_tokens) return 2;
            ids = realloc(ids, (n_ids + 1) * sizeof(int32_t));
            if (!ids) return 2;
            ids[n_ids++] = (int32_t)id;
            sizes[n_words]++;
            p = end;
        }
        n_words++;
    }
    BpeCorpus corpus = {ids, sizes, counts, n_words};
    int rc = bpe_merges(&corpus, vocab_size, n_tokens, min_frequency, max_length, new_token, NULL);
    free(ids);
    free(sizes);
    free(counts);
    for (int64_t i = 0; i < n_tokens; i++) free(tokens[i]);
    return rc == 0 ? 0 : 2;
}
