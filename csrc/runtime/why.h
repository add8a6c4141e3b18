/* why.h - what a check says when a parameter breaks a rule.
 *
 * Checks (hpcb_<family>_check, see hpcb.h) fill a struct hpcb_why instead of
 * printing or raising, so that C callers and the Python glue read the same
 * words: the name of the params field and the rule, with the value received
 * ("stride_bytes" / "must be a positive multiple of sizeof(int) (4 bytes),
 * got 3"). */
#ifndef HPCB_WHY_H
#define HPCB_WHY_H

#include <stddef.h>

struct hpcb_why {
    const char *parameter;   /* the params field (a static string); NULL if unset */
    char rule[256];          /* the rule in words, ending with the value received */
};

/* Fill `why` (which may be NULL when only the verdict matters) and return
 * HPCB_EINVAL, so that a check can `return hpcb_why_set(...)`. */
int hpcb_why_set(struct hpcb_why *why, const char *parameter, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* The range rule of counts and sizes: HPCB_OK if lo <= value <= hi, else
 * HPCB_EINVAL with "must be between lo and hi<unit>, got value" (or "must be
 * at most hi<unit>" when lo is 0). `unit` is appended to the bounds, e.g.
 * " bytes"; "" for plain counts. */
int hpcb_why_range(struct hpcb_why *why, const char *parameter, size_t value, size_t lo, size_t hi,
                   const char *unit);

/* The rule of an enum-valued field whose values are 0 .. count-1, named
 * names[0] .. names[count-1] (the names Python callers see as constants):
 * "must be A (0), B (1) or C (2), got 5". */
int hpcb_why_choice(struct hpcb_why *why, const char *parameter, int value, const char *const *names, int count);

#endif /* HPCB_WHY_H */
