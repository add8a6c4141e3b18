/* placement.h - where the pages of a buffer really are, as far as this
 * process may see: the physical frame of every base page (from
 * /proc/self/pagemap) and how much of the buffer transparent huge pages
 * back (from /proc/self/smaps).
 *
 * The cache analysis needs to know whether a buffer's pages sit on
 * consecutive frames (then a physically indexed cache is evenly coloured
 * and the edge of a rise is its size) or on scattered ones (then the
 * page-set model applies). Linux hides frame numbers from processes without
 * CAP_SYS_ADMIN (they read as 0): that is "unknown", never an error.
 * Inside a virtual machine these are the guest's frames, not the host's.
 */
#ifndef HPCB_PLACEMENT_H
#define HPCB_PLACEMENT_H

#include <stddef.h>

/* Base pages (sysconf(_SC_PAGESIZE)) spanned by `bytes` from a page-aligned start. */
size_t hpcb_placement_pages(size_t bytes);

/* frames[i] = the physical frame number of the i-th base page of
 * [data, data + bytes) (data page-aligned), or -1 where it is not known (not
 * present, or hidden). `pages` entries (hpcb_placement_pages(bytes)).
 * Returns the number of pages whose frame is known: 0 when pagemap cannot
 * be read or hides frames. Frame numbers are below 2^52, exact in a double. */
size_t hpcb_placement_frames(const void *data, size_t bytes, double *frames, size_t pages);

/* Bytes of the mapping that contains `data` which transparent huge pages
 * back (smaps' AnonHugePages), or -1 if smaps cannot tell. */
double hpcb_placement_huge_bytes(const void *data);

#endif /* HPCB_PLACEMENT_H */
