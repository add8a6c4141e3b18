/* msgbuf.c - see msgbuf.h. */
#include "msgbuf.h"

#include <stdlib.h>

#include "../runtime/hpcb.h"

int hpcb_msgbufs_alloc(struct hpcb_msgbufs *b, MPI_Comm comm, size_t bytes, int expect_seed)
{
    b->send = b->recv = NULL;
    if (MPI_Comm_rank(comm, &b->rank) != MPI_SUCCESS)
        return HPCB_EMPI;
    b->bytes = bytes;
    b->send = malloc(bytes ? bytes : 1);
    b->recv = malloc(bytes ? bytes : 1);
    if (b->send == NULL || b->recv == NULL) {
        hpcb_msgbufs_free(b);
        return HPCB_ENOMEM;
    }
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
    free(b->send);
    free(b->recv);
    b->send = b->recv = NULL;
}
