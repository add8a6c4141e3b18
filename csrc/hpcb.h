/* hpcb.h - definitions shared by every part of the hpcbench C core.
 *
 * Nothing here includes Python.h: kernels are plain C so that they can be
 * compiled, sanitized and reasoned about without the interpreter.
 */
#ifndef HPCB_H
#define HPCB_H

#include <stddef.h>
#include <stdint.h>

/* Every C entry point returns 0 on success or one of these negative codes.
 * The Python glue turns them into exceptions (see csrc/module.c). */
enum hpcb_status {
    HPCB_OK = 0,
    HPCB_EINVAL = -1,   /* a parameter breaks a documented rule */
    HPCB_ENOMEM = -2,   /* allocation failed */
    HPCB_EHWLOC = -3,   /* an hwloc call failed */
    HPCB_EMPI = -4,     /* an MPI call failed */
    HPCB_ECHECK = -5,   /* a kernel's payload failed its post-run check */
    HPCB_ESYS = -6,     /* a system call failed (errno is kept) */
    HPCB_EBIND = -7     /* binding a thread to a processing unit failed */
};

/* A short, static description of a status code. */
const char *hpcb_strerror(int status);

/* Keep the compiler from deleting or reordering work around timed code:
 * the empty asm with a "memory" clobber is a full compiler barrier, and
 * hpcb_sink makes a value observable without a volatile store in the loop. */
#define HPCB_COMPILER_BARRIER() __asm__ __volatile__("" ::: "memory")

static inline void hpcb_sink_size(size_t value)
{
    __asm__ __volatile__("" : : "r"(value) : "memory");
}

#endif /* HPCB_H */
