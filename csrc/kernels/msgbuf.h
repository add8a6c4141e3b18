/* msgbuf.h - message buffers with a known payload, for the MPI kernels.
 *
 * Every MPI kernel fills what it sends with a pattern that depends on the
 * byte's position and on a seed (the sender's rank, say), and checks after
 * the timed loop that what it received is the pattern it expected: a kernel
 * that times a transfer which did not happen, or that delivered the wrong
 * bytes, fails with HPCB_ECHECK instead of reporting a time. */
#ifndef HPCB_MSGBUF_H
#define HPCB_MSGBUF_H

#include <stddef.h>
#include <stdint.h>

static inline unsigned char hpcb_pattern_byte(size_t i, unsigned seed)
{
    return (unsigned char)((i * 131u + seed * 17u + 7u) & 0xffu);
}

static inline void hpcb_pattern_fill(unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = hpcb_pattern_byte(i, seed);
}

/* 1 if buf holds the pattern of `seed`, 0 otherwise. */
static inline int hpcb_pattern_check(const unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != hpcb_pattern_byte(i, seed))
            return 0;
    return 1;
}

#endif /* HPCB_MSGBUF_H */
