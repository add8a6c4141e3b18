/* memory.h - page-aligned benchmark buffers with an explicit page policy.
 *
 * The probabilistic cache model depends on the page size, so the kernels ask
 * for a known kind of page instead of inheriting whatever transparent huge
 * page policy the system has. */
#ifndef HPCB_MEMORY_H
#define HPCB_MEMORY_H

#include <stddef.h>

#include "hpcb.h"
#include "why.h"

/* Page policies: PAGES_NORMAL (0) madvise(MADV_NOHUGEPAGE), base pages
 * only; PAGES_HUGE (1) 2 MiB-aligned, madvise(MADV_HUGEPAGE); PAGES_SYSTEM
 * (2) no advice, the system's THP policy decides. */
#define HPCB_PAGE_MODES(X) X(PAGES_NORMAL) X(PAGES_HUGE) X(PAGES_SYSTEM)
enum hpcb_page_mode { HPCB_PAGE_MODES(HPCB_ENUMERATOR) HPCB_PAGE_MODE_COUNT };

struct hpcb_region {
    void *data;      /* usable, page-aligned (2 MiB-aligned for HUGE) */
    size_t bytes;    /* usable bytes */
    void *mapping;   /* what mmap returned */
    size_t mapped;   /* how much was mapped */
};

/* The rule of every page_mode field: one of enum hpcb_page_mode. */
int hpcb_page_mode_check(int page_mode, struct hpcb_why *why);

/* Map `bytes` (> 0) with the page policy `page_mode`, advised before the
 * first touch. HPCB_ENOMEM or HPCB_ESYS if the system refuses. */
int hpcb_region_alloc(struct hpcb_region *region, size_t bytes, int page_mode);
void hpcb_region_free(struct hpcb_region *region);

#endif /* HPCB_MEMORY_H */
