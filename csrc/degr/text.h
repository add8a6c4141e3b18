/* text.h - the lexical layer of libhpcbdegr's two readers (degr.c and
 * params.c): reading a file safely, the allowed bytes, fields, counts and
 * values. Internal: not installed, and hidden from the library's exported
 * symbols. The rules are docs/network.md's "The degradation file" and
 * docs/params.md's "The parameters file", which share them. Status codes
 * are hpcb_degr_status values (hpcb_params.h's are the same numbers). */
#ifndef HPCB_TEXT_H
#define HPCB_TEXT_H

#include <stddef.h>

#if defined(__GNUC__)
#define HPCB_INTERNAL __attribute__((visibility("hidden")))
#else
#define HPCB_INTERNAL
#endif

#define HPCB_TEXT_MAX_FILE_BYTES ((size_t)64 << 20)
#define HPCB_TEXT_MAX_COUNT 1000000L

struct hpcb_text {          /* the whole file */
    char *data;
    size_t size;
};

struct hpcb_cursor {        /* what is left of one line; end is its LF */
    const char *p, *end;
};

struct hpcb_field {
    const char *p;
    size_t n;
};

struct hpcb_scratch {       /* a number rewritten for strtod */
    char *data;
    size_t cap;
};

/* Read all of `path` (a regular file of at most 64 MiB) into t; t->data
 * is NULL on failure. */
HPCB_INTERNAL int hpcb_text_read(const char *path, struct hpcb_text *t);

/* 0 if t is not empty, ends with LF and holds only tab, LF and 0x20-0x7E;
 * else HPCB_DEGR_EFORMAT with *line the line at fault (0: the file is
 * empty) and *what the broken rule in words. */
HPCB_INTERNAL int hpcb_text_check_bytes(const struct hpcb_text *t, long *line, const char **what);

/* The next field of the line, or 0 at its end. */
HPCB_INTERNAL int hpcb_text_next_field(struct hpcb_cursor *c, struct hpcb_field *f);

HPCB_INTERNAL int hpcb_text_field_is(const struct hpcb_field *f, const char *word);

/* "0" or 1..HPCB_TEXT_MAX_COUNT without sign or leading zero; -1 otherwise. */
HPCB_INTERNAL long hpcb_text_parse_count(const char *p, size_t n);

/* DIGITS ["." DIGITS] [("e"|"E") ["+"|"-"] DIGITS] as a normal finite double. */
HPCB_INTERNAL int hpcb_text_parse_value(const struct hpcb_field *f, struct hpcb_scratch *s, double *out);

#endif /* HPCB_TEXT_H */
