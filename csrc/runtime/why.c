/* why.c - see why.h. */
#include "why.h"

#include <stdarg.h>
#include <stdio.h>

#include "hpcb.h"

int hpcb_why_set(struct hpcb_why *why, const char *parameter, const char *format, ...)
{
    if (why != NULL) {
        va_list args;
        va_start(args, format);
        why->parameter = parameter;
        vsnprintf(why->rule, sizeof why->rule, format, args);   /* truncation keeps a valid string */
        va_end(args);
    }
    return HPCB_EINVAL;
}

int hpcb_why_choice(struct hpcb_why *why, const char *parameter, int value, const char *const *names, int count)
{
    if (value >= 0 && value < count)
        return HPCB_OK;
    char list[200] = "";
    size_t used = 0;
    for (int i = 0; i < count && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s (%d)",
                                 i == 0 ? "" : (i == count - 1 ? " or " : ", "), names[i], i);
    return hpcb_why_set(why, parameter, "must be %s, got %d", list, value);
}

int hpcb_why_range(struct hpcb_why *why, const char *parameter, size_t value, size_t lo, size_t hi,
                   const char *unit)
{
    if (value >= lo && value <= hi)
        return HPCB_OK;
    if (lo == 0)
        return hpcb_why_set(why, parameter, "must be at most %zu%s, got %zu", hi, unit, value);
    return hpcb_why_set(why, parameter, "must be between %zu and %zu%s, got %zu", lo, hi, unit, value);
}
