/* csrc/core/utf8.h: code points to UTF-8 and back, shared by kvec's C extensions and kernels. */
#ifndef KVEC_UTF8_H
#define KVEC_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* UTF-8 of one code point (lone surrogates as three bytes, as "surrogatepass" writes them). */
static inline int
utf8_of(uint32_t c, unsigned char *out)
{
    if (c < 0x80) {
        out[0] = (unsigned char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (unsigned char)(0xC0 | (c >> 6));
        out[1] = (unsigned char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (c >> 12));
        out[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | (c >> 18));
    out[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (c & 0x3F));
    return 4;
}

/* The code point of the UTF-8 at s[i ...] (n bytes in all), its byte count in *size. A byte that
 * starts no well-formed character (an overlong form, a surrogate, past U+10FFFF, cut short) is one
 * code point U+DC80..U+DCFF of its own, as Python's "surrogateescape" decodes it. */
static inline uint32_t
utf8_next(const unsigned char *s, size_t n, size_t i, int *size)
{
    unsigned char b = s[i];
    *size = 1;
    if (b < 0x80) return b;
    if (b < 0xC2 || b > 0xF4) return 0xDC00u + b;
    int more = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : 1;
    if (n - i - 1 < (size_t)more) return 0xDC00u + b;
    uint32_t c = b & (b >= 0xF0 ? 0x07u : b >= 0xE0 ? 0x0Fu : 0x1Fu);
    for (int k = 1; k <= more; k++) {
        unsigned char t = s[i + (size_t)k];
        if ((t & 0xC0) != 0x80) return 0xDC00u + b;
        c = (c << 6) | (t & 0x3Fu);
    }
    if ((more == 2 && (c < 0x800 || (c >= 0xD800 && c < 0xE000))) || (more == 3 && (c < 0x10000 || c > 0x10FFFF)))
        return 0xDC00u + b;
    *size = more + 1;
    return c;
}

#endif
