/* load.h - read bandwidth: streaming loads over growing prefixes of one
 * buffer, as likwid-bench's load kernels and pmbw measure it.
 *
 * For each size S, in the order given, the first S bytes of the buffer are
 * read again and again (whole passes, at least min_bytes per sample) with
 * the widest loads the CPU offers, or those asked for; each load is added
 * into one of four independent accumulators, so the loop is bound by the
 * loads, not by the adds. After every sample the sums are compared with
 * what the buffer's contents give: a pass that skipped a load is an error.
 */
#ifndef HPCB_LOAD_H
#define HPCB_LOAD_H

#include <stddef.h>

#include "../runtime/hpcb.h"
#include "../runtime/why.h"

/* Instruction sets of the loop: ISA_AUTO (0) the widest this CPU and OS
 * support; ISA_SCALAR (1) 64-bit loads, any CPU; ISA_SSE2 (2) 16-byte
 * loads; ISA_AVX2 (3) 32-byte loads; ISA_AVX512 (4) 64-byte loads. */
#define HPCB_ISAS(X) X(ISA_AUTO) X(ISA_SCALAR) X(ISA_SSE2) X(ISA_AVX2) X(ISA_AVX512)
enum hpcb_isa { HPCB_ISAS(HPCB_ENUMERATOR) HPCB_ISA_COUNT };

/* Most sizes one call may time. */
#define HPCB_LOAD_MAX_SIZES ((size_t)100000)
/* Sizes are whole blocks of this many bytes (one 64-byte load, or its parts). */
#define HPCB_LOAD_BLOCK ((size_t)64)

struct hpcb_load_params {
    size_t buffer_bytes;   /* a positive multiple of HPCB_LOAD_BLOCK, at most 2^40 */
    const size_t *sizes;   /* nsizes prefixes, each a positive multiple of HPCB_LOAD_BLOCK, at most buffer_bytes */
    size_t nsizes;         /* 1..HPCB_LOAD_MAX_SIZES */
    size_t min_bytes;      /* a sample is whole passes, at least this many bytes (1..2^44) */
    size_t warmup;         /* untimed passes before the first sample of a size (0..1000) */
    size_t samples;        /* timed samples per size (1..HPCB_MAX_SAMPLES / nsizes) */
    int page_mode;         /* enum hpcb_page_mode */
    int isa;               /* enum hpcb_isa; one this CPU supports */
};

/* Size i's sample j is at [i * samples + j]. */
struct hpcb_load_out {
    double *ns;            /* nsizes x samples: nanoseconds per sample */
    double *ticks;         /* nsizes x samples: ticks per sample */
    double *bytes;         /* nsizes: bytes read per sample */
    size_t isa;            /* written: the enum hpcb_isa the loop used */
};

/* Whether this CPU (and OS) can run loads of `isa` (ISA_AUTO: always). */
int hpcb_load_supported(int isa);

int hpcb_load_check(const struct hpcb_load_params *p, struct hpcb_why *why);

/* The widest ISA this CPU supports (what ISA_AUTO runs). */
int hpcb_load_widest(void);

/* This kernel's read loop of `isa` (ISA_AUTO: the widest), for kernels that
 * read as it does (numa.c): `passes` reads of `bytes` (a positive multiple of
 * HPCB_LOAD_BLOCK) from `buf` (64-byte aligned), word k of every 64-byte
 * block added into sum[k]. The caller has checked the ISA is supported. */
void hpcb_load_sum(int isa, const uint64_t *buf, size_t bytes, size_t passes, uint64_t sum[8]);

int hpcb_load_run(const struct hpcb_load_params *p, struct hpcb_load_out *out);

#endif /* HPCB_LOAD_H */
