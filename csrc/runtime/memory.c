/* memory.c - mmap-backed buffers; see memory.h. */
#include "memory.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "hpcb.h"

#define HUGE_ALIGN ((size_t)2 << 20)

static const char *const page_modes[] = {HPCB_PAGE_MODES(HPCB_ENUM_NAME)};

int hpcb_page_mode_check(int page_mode, struct hpcb_why *why)
{
    return hpcb_why_choice(why, "page_mode", page_mode, page_modes, HPCB_PAGE_MODE_COUNT);
}

int hpcb_region_alloc(struct hpcb_region *region, size_t bytes, int page_mode)
{
    if (region == NULL || bytes == 0 || hpcb_page_mode_check(page_mode, NULL) != HPCB_OK)
        return HPCB_EINVAL;
    memset(region, 0, sizeof *region);

    size_t extra = page_mode == HPCB_PAGES_HUGE ? HUGE_ALIGN : 0;
    if (bytes > SIZE_MAX - extra)
        return HPCB_EINVAL;
    size_t mapped = bytes + extra;
    void *p = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return errno == ENOMEM ? HPCB_ENOMEM : HPCB_ESYS;

    uintptr_t data = (uintptr_t)p;
    if (page_mode == HPCB_PAGES_HUGE)
        data = (data + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1);

    /* Advice must come before the first touch: pages are chosen at fault time. */
    if (page_mode == HPCB_PAGES_NORMAL) {
        /* EINVAL means a kernel without THP, which already gives base pages. */
        if (madvise(p, mapped, MADV_NOHUGEPAGE) != 0 && errno != EINVAL) {
            munmap(p, mapped);
            return HPCB_ESYS;
        }
    } else if (page_mode == HPCB_PAGES_HUGE) {
        if (madvise((void *)data, bytes, MADV_HUGEPAGE) != 0) {
            munmap(p, mapped);
            return HPCB_ESYS;
        }
    }
    region->mapping = p;
    region->mapped = mapped;
    region->data = (void *)data;
    region->bytes = bytes;
    return HPCB_OK;
}

void hpcb_region_free(struct hpcb_region *region)
{
    if (region != NULL && region->mapping != NULL) {
        munmap(region->mapping, region->mapped);
        memset(region, 0, sizeof *region);
    }
}
