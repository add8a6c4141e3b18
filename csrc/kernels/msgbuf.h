/* msgbuf.h - message buffers with a known payload, for the MPI kernels.
 *
 * Every MPI kernel fills what it sends with a pattern that depends on the
 * byte's position and on a seed (the sender's rank, say), and checks after
 * the timed loop that what it received is the pattern it expected: a kernel
 * that times a transfer which did not happen, or that delivered the wrong
 * bytes, fails with HPCB_ECHECK instead of reporting a time. A receive
 * buffer starts as the complement of what it must end with, so every byte
 * has to change for the check to pass. */
#ifndef HPCB_MSGBUF_H
#define HPCB_MSGBUF_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "../runtime/memory.h"

static inline unsigned char hpcb_pattern_byte(size_t i, unsigned seed)
{
    return (unsigned char)((i * 131u + seed * 17u + 7u) & 0xffu);
}

static inline void hpcb_pattern_fill(unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = hpcb_pattern_byte(i, seed);
}

/* Every byte differs from the pattern of `seed`. */
static inline void hpcb_pattern_fill_complement(unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)~hpcb_pattern_byte(i, seed);
}

/* 1 if buf holds the pattern of `seed`, 0 otherwise. */
static inline int hpcb_pattern_check(const unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != hpcb_pattern_byte(i, seed))
            return 0;
    return 1;
}

/* Message buffers are page-aligned, and from HPCB_MSGBUF_HUGE bytes on
 * backed by transparent huge pages (madvise), as OSU and NumPy allocate
 * theirs: MPI libraries copy and register page-aligned buffers faster than
 * malloc'd ones (a 64 KiB MPI_Allreduce loop measured 8% slower with malloc
 * here, docs/comm.md), and a benchmark must not time its allocator. */
#define HPCB_MSGBUF_HUGE ((size_t)2 << 20)

/* One message buffer of `bytes` (at least one byte, so that 0-byte messages
 * still have an address) with the policy above. HPCB_ENOMEM or HPCB_ESYS if
 * the system refuses. */
int hpcb_msgbuf_alloc(struct hpcb_region *region, size_t bytes);

/* A send and a receive buffer of `bytes` for one rank of a communicator:
 * what this rank sends carries the pattern of its rank, the seed receivers
 * check for. */
struct hpcb_msgbufs {
    unsigned char *send;    /* the pattern of `rank` */
    unsigned char *recv;    /* the complement of the pattern of expect_seed */
    size_t bytes;
    int rank;               /* this rank in the communicator */
    struct hpcb_region send_region, recv_region;   /* what send and recv live in */
};

/* expect_seed negative: this rank's own pattern (an echo's). HPCB_EMPI if
 * the rank cannot be read, HPCB_ENOMEM if an allocation fails (nothing is
 * left allocated). */
int hpcb_msgbufs_alloc(struct hpcb_msgbufs *b, MPI_Comm comm, size_t bytes, int expect_seed);

/* HPCB_OK if recv holds the pattern of expect_seed, HPCB_ECHECK if not. */
int hpcb_msgbufs_verify(const struct hpcb_msgbufs *b, unsigned expect_seed);

/* Free both (safe on a zeroed or already freed struct). */
void hpcb_msgbufs_free(struct hpcb_msgbufs *b);

#endif /* HPCB_MSGBUF_H */
