/* placement.c - frames and huge pages of a buffer; see placement.h. */
#define _GNU_SOURCE
#include "placement.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* pagemap entry: bit 63 present, bits 0-54 the frame number. */
#define PAGEMAP_PRESENT ((uint64_t)1 << 63)
#define PAGEMAP_FRAME (((uint64_t)1 << 55) - 1)
/* Entries read per pread. */
#define PAGEMAP_CHUNK 512

static size_t page_size(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    return ps > 0 ? (size_t)ps : 4096;
}

size_t hpcb_placement_pages(size_t bytes)
{
    size_t ps = page_size();
    return (bytes + ps - 1) / ps;
}

size_t hpcb_placement_frames(const void *data, size_t bytes, double *frames, size_t pages)
{
    for (size_t i = 0; i < pages; i++)
        frames[i] = -1.0;
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t ps = page_size(), known = 0;
    size_t want = hpcb_placement_pages(bytes) < pages ? hpcb_placement_pages(bytes) : pages;
    uint64_t entries[PAGEMAP_CHUNK];
    off_t first = (off_t)(((uintptr_t)data / ps) * sizeof(uint64_t));
    for (size_t done = 0; done < want;) {
        size_t n = want - done < PAGEMAP_CHUNK ? want - done : PAGEMAP_CHUNK;
        ssize_t got = pread(fd, entries, n * sizeof(uint64_t), first + (off_t)(done * sizeof(uint64_t)));
        if (got <= 0)
            break;
        size_t read_entries = (size_t)got / sizeof(uint64_t);
        for (size_t i = 0; i < read_entries; i++) {
            uint64_t frame = entries[i] & PAGEMAP_FRAME;
            /* Without CAP_SYS_ADMIN the kernel reports frame 0 for every page. */
            if ((entries[i] & PAGEMAP_PRESENT) && frame != 0) {
                frames[done + i] = (double)frame;
                known++;
            }
        }
        if (read_entries == 0)
            break;
        done += read_entries;
    }
    close(fd);
    return known;
}

double hpcb_placement_huge_bytes(const void *data)
{
    FILE *f = fopen("/proc/self/smaps", "re");
    if (f == NULL)
        return -1.0;
    uintptr_t at = (uintptr_t)data;
    char line[512];
    int inside = 0;
    double huge = -1.0;
    while (fgets(line, sizeof line, f) != NULL) {
        uintptr_t lo, hi;
        /* A mapping's header: "lo-hi perms offset dev inode [path]". */
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            if (inside)
                break;               /* past our mapping without the field */
            inside = lo <= at && at < hi;
            continue;
        }
        unsigned long long kb;
        if (inside && sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) {
            huge = (double)kb * 1024.0;
            break;
        }
    }
    fclose(f);
    return huge;
}
