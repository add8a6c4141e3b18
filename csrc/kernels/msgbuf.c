/* msgbuf.c - see msgbuf.h. */
#include "msgbuf.h"

#include <string.h>

#include "../runtime/hpcb.h"

int hpcb_msgbuf_alloc(struct hpcb_region *region, size_t bytes)
{
    size_t usable = bytes ? bytes : 1;
    return hpcb_region_alloc(region, usable, usable >= HPCB_MSGBUF_HUGE ? HPCB_PAGES_HUGE : HPCB_PAGES_SYSTEM);
}

int hpcb_msgbufs_alloc(struct hpcb_msgbufs *b, MPI_Comm comm, size_t bytes, int expect_seed)
{
    memset(b, 0, sizeof *b);
    if (MPI_Comm_rank(comm, &b->rank) != MPI_SUCCESS)
        return HPCB_EMPI;
    b->bytes = bytes;
    int rc = hpcb_msgbuf_alloc(&b->send_region, bytes);
    if (rc == HPCB_OK)
        rc = hpcb_msgbuf_alloc(&b->recv_region, bytes);
    if (rc != HPCB_OK) {
        hpcb_msgbufs_free(b);
        return rc;
    }
    b->send = b->send_region.data;
    b->recv = b->recv_region.data;
    hpcb_pattern_fill(b->send, bytes, (unsigned)b->rank);
    hpcb_pattern_fill_complement(b->recv, bytes, (unsigned)(expect_seed < 0 ? b->rank : expect_seed));
    return HPCB_OK;
}

int hpcb_msgbufs_verify(const struct hpcb_msgbufs *b, unsigned expect_seed)
{
    return hpcb_pattern_check(b->recv, b->bytes, expect_seed) ? HPCB_OK : HPCB_ECHECK;
}

void hpcb_msgbufs_free(struct hpcb_msgbufs *b)
{
    hpcb_region_free(&b->send_region);
    hpcb_region_free(&b->recv_region);
    b->send = b->recv = NULL;
}
