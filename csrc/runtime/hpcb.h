/* hpcb.h - definitions shared by every part of the hpcbench C core, and the
 * contract every kernel family follows.
 *
 * Layout (calls and includes go one way, top to bottom; docs/architecture.md
 * names every file):
 *   csrc/python/   the only files that include Python's headers: argument
 *                  parsing, NumPy buffers, GIL release, exceptions
 *   csrc/kernels/  timed kernels, plain C (and MPI)
 *   csrc/runtime/  this folder: hpcb.h, status.c (the status codes in words),
 *                  why.c (rules in words), timer.c, topo.c (hwloc topology
 *                  and binding), team.c (thread teams), phase.c, memory.c,
 *                  placement.c (frames and huge pages of a buffer), each .c
 *                  with its .h but status.c
 *
 * THE KERNEL CONTRACT. A kernel family <f> (traverse, chase, load, copy,
 * stream, bandwidth, flops, numa, daxpy, p2p, collective, barrier, overlap,
 * contention, shift, flow, micro, hcomm, inner_product, sumsq_rate, matrix,
 * wavefront, wavefront_wg) declares, in
 * kernels/<file>.h:
 *
 *   struct hpcb_<f>_params   every input: sizes, counts, sample counts, and
 *                            where the kernel runs (the MPI_Comm of an MPI
 *                            kernel; the PU list, a struct hpcb_team_params,
 *                            of a team kernel);
 *   struct hpcb_<f>_out      pointers to caller-owned sample arrays, whose
 *                            sizes follow from the params (each header says
 *                            how), and the scalar results the kernel writes;
 *   int hpcb_<f>_check(const struct hpcb_<f>_params *p, struct hpcb_why *why)
 *                            every rule about the params, each stated here
 *                            and nowhere else. Returns HPCB_OK, or HPCB_EINVAL
 *                            with `why` (may be NULL) naming the params field
 *                            and the rule in words with the value received.
 *                            A check that needs MPI or hwloc returns their
 *                            error code if the call itself fails;
 *   int hpcb_<f>_<op>(const struct hpcb_<f>_params *p, struct hpcb_<f>_out *out)
 *                            runs its own check first (so direct C callers
 *                            are protected too), times, validates its payload
 *                            after the timed loop, and returns HPCB_OK or a
 *                            negative HPCB_E* code.
 *
 * A family whose params include a team or a communicator also declares
 * hpcb_<f>_check_sizes(p, why): the rules that need neither, for callers
 * that validate options before they have one. hpcb_<f>_check calls it.
 * The Python glue only fills the params (refusing what the C type cannot
 * hold, such as a negative count), calls the check, and raises
 * hpcbench._core.ParameterError from `why`: it never restates a rule.
 */
#ifndef HPCB_H
#define HPCB_H

#include <stddef.h>
#include <stdint.h>

/* Every C entry point returns 0 on success or one of these negative codes.
 * The Python glue turns them into exceptions (csrc/python/glue.c). */
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

/* Every enum a caller passes is one list, HPCB_<NAME>S(X), which calls
 * X(name) for each value in order from 0. The list makes the enumerators
 * (HPCB_ENUMERATOR: HPCB_name), the names a check's rule quotes
 * (HPCB_ENUM_NAME: "name") and, in the glue, the Python constants: one
 * place per enum, no copy of the numbers to keep in step. */
#define HPCB_ENUMERATOR(name) HPCB_##name,
#define HPCB_ENUM_NAME(name) #name,

/* Upper bound of every "samples"/"iterations" count: one timed sample per
 * entry of a caller's array, so this also bounds those arrays (800 MB). */
#define HPCB_MAX_SAMPLES ((size_t)100000000)

/* The start of every entry point (the contract above): its own check's
 * status, then whether the caller gave every output array. */
static inline int hpcb_contract_start(int check_status, int outputs_given)
{
    if (check_status != HPCB_OK)
        return check_status;
    return outputs_given ? HPCB_OK : HPCB_EINVAL;
}

/* A short, static description of a status code. */
const char *hpcb_strerror(int status);

/* Keep the compiler from deleting or reordering work around timed code:
 * the empty asm with a "memory" clobber is a full compiler barrier, and
 * hpcb_sink_size makes a value observable without a volatile store in the loop. */
#define HPCB_COMPILER_BARRIER() __asm__ __volatile__("" ::: "memory")

static inline void hpcb_sink_size(size_t value)
{
    __asm__ __volatile__("" : : "r"(value) : "memory");
}

#endif /* HPCB_H */
