/* memory.h - page-aligned benchmark buffers with an explicit page policy.
 *
 * The probabilistic cache model depends on the page size, so the kernels ask
 * for a known kind of page instead of inheriting whatever transparent huge
 * page policy the system has. */
#ifndef HPCB_MEMORY_H
#define HPCB_MEMORY_H

#include <stddef.h>

enum hpcb_page_mode {
    HPCB_PAGES_NORMAL = 0, /* madvise(MADV_NOHUGEPAGE): base pages only */
    HPCB_PAGES_HUGE = 1,   /* 2 MiB-aligned, madvise(MADV_HUGEPAGE) */
    HPCB_PAGES_SYSTEM = 2  /* no advice: the system's THP policy decides */
};

struct hpcb_region {
    void *data;      /* usable, page-aligned (2 MiB-aligned for HUGE) */
    size_t bytes;    /* usable bytes */
    void *mapping;   /* what mmap returned */
    size_t mapped;   /* how much was mapped */
};

int hpcb_region_alloc(struct hpcb_region *region, size_t bytes, int page_mode);
void hpcb_region_free(struct hpcb_region *region);

#endif /* HPCB_MEMORY_H */
