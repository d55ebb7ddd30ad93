/* tests/native/spec_encoder_driver.c: csrc/core/spec_encoder.c's entry points over many inputs, for a
 * build with AddressSanitizer and UBSan (tests/test_native_sanitizers.py).
 *
 * Standard input holds cases back to back: u32 length, a description; u32 length, a UTF-8 text (both
 * little-endian lengths). For each case the description is checked and, where it is accepted, the text
 * encoded three times with one scratch: the later times read the word cache, and must give the ids of the
 * first (exit 4 otherwise). Prints "accepted refused" counts; the sanitizers abort on any fault.
 *
 * Usage: spec_encoder_driver [SECONDS [-v]]. With SECONDS, a case whose check and encodings take more CPU
 * time than that stops the run (exit 5, the case named on stderr), as a sanitizer report does; with -v,
 * each case's outcome is printed first, one line each: "refused: <what is wrong>" or "accepted: <ids>"
 * (the ids of the first encoding, or "status <s>" when it failed). */
#include "int64s.h"
#include "spec_encoder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int
read_block(unsigned char **data, uint32_t *length)
{
    unsigned char size[4];
    if (fread(size, 1, 4, stdin) != 4) return 0;
    *length = (uint32_t)size[0] | (uint32_t)size[1] << 8 | (uint32_t)size[2] << 16 | (uint32_t)size[3] << 24;
    *data = malloc(*length ? *length : 1);
    if (!*data || fread(*data, 1, *length, stdin) != *length) exit(2);
    return 1;
}

int
main(int argc, char **argv)
{
    unsigned char *spec, *text;
    uint32_t spec_length, text_length;
    long accepted = 0, refused = 0;
    double bound = argc > 1 ? atof(argv[1]) : 0;
    int verbose = argc > 2 && strcmp(argv[2], "-v") == 0;
    while (read_block(&spec, &spec_length)) {
        if (!read_block(&text, &text_length)) return 2;
        clock_t start = clock();
        SpecEncoder encoder;
        const char *error = spec_encoder_init(&encoder, spec, spec_length);
        if (error) {
            refused++;
            if (verbose) printf("refused: %s\n", error);
        } else {
            Int64s ids = {0}, again = {0};
            SpecScratch scratch = {0};
            int status = spec_encode(&encoder, text, text_length, &ids, &scratch);
            if (status < 0) return 3;
            if (verbose && status) printf("accepted: status %d\n", status);
            if (verbose && !status) printf("accepted: %ld ids\n", (long)ids.length);
            for (int time = 0; time < 2 && status == 0; time++) {
                again.length = 0;
                scratch.utf8_length = 0; /* a word splitter's words start again (their ends are the ids) */
                if (spec_encode(&encoder, text, text_length, &again, &scratch) != 0) return 4;
                if (again.length != ids.length) return 4;
                for (ptrdiff_t k = 0; k < ids.length; k++)
                    if (again.data[k] != ids.data[k]) return 4;
            }
            int64s_free(&ids);
            int64s_free(&again);
            spec_scratch_free(&scratch);
            spec_encoder_free(&encoder);
            accepted++;
        }
        free(spec);
        free(text);
        double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
        if (bound > 0 && seconds > bound) {
            fprintf(stderr, "case %ld took %.3f s of CPU time, over its bound of %.3f s\n", accepted + refused - 1,
                    seconds, bound);
            return 5;
        }
    }
    printf("%ld %ld\n", accepted, refused);
    return 0;
}
