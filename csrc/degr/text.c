/* text.c - the lexical layer libhpcbdegr's readers share; see text.h.
 *
 * Plain C99 and POSIX (open, fstat), no dependencies. Only a regular file
 * is read: it is opened with O_NONBLOCK and checked with fstat first, so a
 * FIFO or a device named by mistake or by malice gives HPCB_DEGR_ENOFILE,
 * not a hang. The whole file is read into memory (no line length limit
 * below the file's); numbers are handed to strtod without a decimal point,
 * so the caller's locale (setlocale with a decimal comma) changes nothing. */
#define _POSIX_C_SOURCE 200809L
#include "text.h"

#include "hpcb_degr.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CHUNK ((size_t)64 << 10)
#define MAX_FILE_BYTES HPCB_TEXT_MAX_FILE_BYTES
/* A decimal exponent this large makes 0 or infinity of any digit string
 * that fits in MAX_FILE_BYTES (at most 2^26 digits), so larger ones are
 * clamped to it; it keeps exponent arithmetic within a 32-bit long. */
#define EXPONENT_CLAMP 100000000L

/* Open `path` as a regular file of at most MAX_FILE_BYTES, as a FILE. */
static int open_regular(const char *path, FILE **out)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return HPCB_DEGR_ENOFILE;
    struct stat info;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        close(fd);
        return HPCB_DEGR_ENOFILE;
    }
    if ((unsigned long long)info.st_size > (unsigned long long)MAX_FILE_BYTES) {
        close(fd);
        return HPCB_DEGR_EFORMAT;
    }
    if ((*out = fdopen(fd, "rb")) == NULL) {
        close(fd);
        return HPCB_DEGR_ENOFILE;
    }
    return HPCB_DEGR_OK;
}

int hpcb_text_read(const char *path, struct hpcb_text *t)
{
    t->data = NULL;
    t->size = 0;
    FILE *f;
    int rc = open_regular(path, &f);
    if (rc != HPCB_DEGR_OK)
        return rc;
    size_t cap = 0;
    for (;;) {
        if (t->size == cap) {
            if (cap > MAX_FILE_BYTES) {         /* one byte more than the limit was read */
                rc = HPCB_DEGR_EFORMAT;
                break;
            }
            size_t next = cap == 0 ? FIRST_CHUNK : cap < MAX_FILE_BYTES / 2 ? 2 * cap : MAX_FILE_BYTES + 1;
            char *grown = realloc(t->data, next);
            if (grown == NULL) {
                rc = HPCB_DEGR_ENOMEM;
                break;
            }
            t->data = grown;
            cap = next;
        }
        size_t want = cap - t->size, got = fread(t->data + t->size, 1, want, f);
        t->size += got;
        if (got < want) {
            if (ferror(f))
                rc = HPCB_DEGR_ENOFILE;
            break;
        }
    }
    fclose(f);
    if (rc != HPCB_DEGR_OK) {
        free(t->data);
        t->data = NULL;
    }
    return rc;
}

static int allowed_byte(unsigned char c)
{
    return c == '\t' || c == '\n' || (c >= 0x20 && c <= 0x7e);
}

static int is_separator(char c)
{
    return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

int hpcb_text_check_bytes(const struct hpcb_text *t, long *line, const char **what)
{
    *line = 1;
    *what = NULL;
    if (t->size == 0) {
        *line = 0;
        *what = "empty file";
        return HPCB_DEGR_EFORMAT;
    }
    for (size_t i = 0; i < t->size; i++) {
        if (!allowed_byte((unsigned char)t->data[i])) {
            *what = "a byte other than tab, LF and printable ASCII (a CR, NUL, UTF-8 ...)";
            return HPCB_DEGR_EFORMAT;
        }
        if (t->data[i] == '\n' && i + 1 < t->size)
            ++*line;
    }
    if (t->data[t->size - 1] != '\n') {   /* *line is the unfinished last line */
        *what = "no LF at the end of the file (truncated?)";
        return HPCB_DEGR_EFORMAT;
    }
    return HPCB_DEGR_OK;
}

int hpcb_text_next_field(struct hpcb_cursor *c, struct hpcb_field *f)
{
    while (c->p < c->end && is_separator(*c->p))
        c->p++;
    f->p = c->p;
    while (c->p < c->end && !is_separator(*c->p))
        c->p++;
    f->n = (size_t)(c->p - f->p);
    return f->n > 0;
}

int hpcb_text_field_is(const struct hpcb_field *f, const char *word)
{
    size_t n = strlen(word);
    return f->n == n && memcmp(f->p, word, n) == 0;
}

long hpcb_text_parse_count(const char *p, size_t n)
{
    if (n == 0 || n > 7 || (n > 1 && p[0] == '0'))
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit(p[i]))
            return -1;
        v = 10 * v + (p[i] - '0');
    }
    return v <= HPCB_TEXT_MAX_COUNT ? v : -1;
}

/* Copy the run of digits at *q into *o; how many. */
static size_t copy_digits(const char **q, const char *end, char **o)
{
    size_t n = 0;
    for (; *q < end && is_digit(**q); (*q)++, n++)
        *(*o)++ = **q;
    return n;
}

/* The exponent part at *q ("e" or "E", sign, digits), clamped; 0 if absent. */
static int parse_exponent(const char **q, const char *end, long *exponent)
{
    *exponent = 0;
    if (*q == end || (**q != 'e' && **q != 'E'))
        return HPCB_DEGR_OK;
    (*q)++;
    int negative = *q < end && **q == '-';
    if (*q < end && (**q == '+' || **q == '-'))
        (*q)++;
    if (*q == end || !is_digit(**q))
        return HPCB_DEGR_EFORMAT;
    for (; *q < end && is_digit(**q); (*q)++)
        *exponent = *exponent < EXPONENT_CLAMP ? 10 * *exponent + (**q - '0') : EXPONENT_CLAMP;
    if (*exponent > EXPONENT_CLAMP)
        *exponent = EXPONENT_CLAMP;
    if (negative)
        *exponent = -*exponent;
    return HPCB_DEGR_OK;
}

/* The digits go to strtod as DIGITS "e" EXPONENT, with the fraction folded
 * into the exponent: no decimal point, so no locale. */
int hpcb_text_parse_value(const struct hpcb_field *f, struct hpcb_scratch *s, double *out)
{
    size_t need = f->n + 16;    /* the digits, "e", a sign, at most 10 exponent digits, NUL */
    if (need > s->cap) {
        char *grown = realloc(s->data, need);
        if (grown == NULL)
            return HPCB_DEGR_ENOMEM;
        s->data = grown;
        s->cap = need;
    }
    const char *q = f->p, *end = f->p + f->n;
    char *o = s->data;
    if (copy_digits(&q, end, &o) == 0)
        return HPCB_DEGR_EFORMAT;
    long fraction = 0, exponent;
    if (q < end && *q == '.') {
        q++;
        fraction = (long)copy_digits(&q, end, &o);
        if (fraction == 0)
            return HPCB_DEGR_EFORMAT;
    }
    if (parse_exponent(&q, end, &exponent) != HPCB_DEGR_OK || q != end)
        return HPCB_DEGR_EFORMAT;
    int written = snprintf(o, (size_t)(s->data + s->cap - o), "e%ld", exponent - fraction);
    if (written < 0 || (size_t)written >= (size_t)(s->data + s->cap - o))
        return HPCB_DEGR_EFORMAT;
    char *stop;
    double v = strtod(s->data, &stop);
    if (stop != o + written || !isfinite(v) || v < DBL_MIN)
        return HPCB_DEGR_EFORMAT;
    *out = v;
    return HPCB_DEGR_OK;
}
