/* comm_kernels.c - glue for the MPI kernels. MPI reaches C only through
 * mpi4py's C API: the communicator comes from a mpi4py.MPI.Comm, and MPI is
 * initialised by mpi4py, never here. Every Python function here parses its
 * arguments into one kernel's params; comm_samples() does the rest for all
 * of them (check, NaN samples, the call without the GIL, errors). */
#include "families.h"

#include <string.h>

#include "mpi4py_comm.h"

#include "../runtime/hpcb.h"

/* Every MPI kernel returns one array of n samples, its pointer at *slot in
 * c->out; check_status is the kernel's check (its words in c->why). The
 * samples, or NULL with the exception set. */
static PyObject *comm_samples(PyObject *self, struct glue_call *c, int check_status, size_t n, double **slot)
{
    const struct glue_samples samples[] = {{slot, n, 0}};
    return glue_run(self, c, check_status, samples, 1, "");
}

static PyObject *barrier_times(PyObject *self, PyObject *args)
{
    struct glue_call c = {.kernel = GLUE_BARRIER, .what = "barrier_times"};
    struct hpcb_barrier_params *p = &c.p.barrier;
    long long warmup = 10, samples = 100;
    if (!PyArg_ParseTuple(args, "O&|LL:barrier_times", comm_converter, &p->comm, &warmup, &samples) ||
        GLUE_COUNTS(self, {"warmup", warmup, &p->warmup}, {"samples", samples, &p->samples}) != 0)
        return NULL;
    return comm_samples(self, &c, hpcb_barrier_check(p, &c.why), p->samples, &c.out.barrier.ns);
}

/* echo() and exchange(): the same arguments. */
static PyObject *p2p(PyObject *self, PyObject *args, enum glue_kernel kernel, const char *format)
{
    struct glue_call c = {.kernel = kernel, .what = strchr(format, ':') + 1};   /* the name the format ends with */
    struct hpcb_p2p_params *p = &c.p.p2p;
    long long bytes, warmup, iterations, inner = 1;
    if (!PyArg_ParseTuple(args, format, comm_converter, &p->comm, &p->partner, &p->initiator, &bytes, &warmup,
                          &iterations, &inner) ||
        GLUE_COUNTS(self, {"bytes", bytes, &p->bytes}, {"warmup", warmup, &p->warmup},
                    {"iterations", iterations, &p->iterations}, {"inner", inner, &p->inner}) != 0)
        return NULL;
    return comm_samples(self, &c, hpcb_p2p_check(p, &c.why), p->iterations, &c.out.p2p.ticks);
}

static PyObject *echo(PyObject *self, PyObject *args)
{
    return p2p(self, args, GLUE_ECHO, "O&ipLLL|L:echo");
}

static PyObject *exchange(PyObject *self, PyObject *args)
{
    return p2p(self, args, GLUE_EXCHANGE, "O&ipLLL|L:exchange");
}

static PyObject *overhead(PyObject *self, PyObject *args)
{
    struct glue_call c = {.kernel = GLUE_OVERHEAD, .what = "overhead"};
    struct hpcb_p2p_params *p = &c.p.p2p;
    long long bytes, warmup, iterations, delay_ticks, window = 1;
    if (!PyArg_ParseTuple(args, "O&ipiLLLL|L:overhead", comm_converter, &p->comm, &p->partner, &p->initiator,
                          &p->side, &bytes, &delay_ticks, &warmup, &iterations, &window) ||
        GLUE_COUNTS(self, {"bytes", bytes, &p->bytes}, {"warmup", warmup, &p->warmup},
                    {"iterations", iterations, &p->iterations}, {"window", window, &p->inner}) != 0)
        return NULL;
    if (delay_ticks < 0)
        delay_ticks = (long long)HPCB_OVERHEAD_MAX_DELAY + 1;   /* the check names it */
    p->delay_ticks = (uint64_t)delay_ticks;
    return comm_samples(self, &c, hpcb_p2p_check(p, &c.why), p->iterations, &c.out.p2p.ticks);
}

static PyObject *p2p_check(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"bytes", "warmup", "iterations", "inner", NULL};
    struct hpcb_p2p_params p = {.partner = -1};
    struct hpcb_why why = {0};
    long long bytes, warmup, iterations, inner = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LLL|L:p2p_check", keywords, &bytes, &warmup, &iterations,
                                     &inner) ||
        GLUE_COUNTS(self, {"bytes", bytes, &p.bytes}, {"warmup", warmup, &p.warmup},
                    {"iterations", iterations, &p.iterations}, {"inner", inner, &p.inner}) != 0)
        return NULL;
    return glue_verdict(self, hpcb_p2p_check_sizes(&p, &why), &why, "p2p_check");
}

/* bcast_times() and allreduce_times(): a broadcast of `bytes` from `root`,
 * or a global sum of `count` doubles (root 0 and bytes 0 then, which the
 * collective check accepts). */
static PyObject *collective(PyObject *self, PyObject *args, enum glue_kernel kernel)
{
    struct glue_call c = {.kernel = kernel, .what = kernel == GLUE_BCAST ? "bcast_times" : "allreduce_times"};
    struct hpcb_collective_params *p = &c.p.collective;
    int bcast = kernel == GLUE_BCAST;
    long long size, warmup, iterations;   /* bytes of a broadcast, doubles of a sum */
    int parsed = bcast ? PyArg_ParseTuple(args, "O&iLLL:bcast_times", comm_converter, &p->comm, &p->root, &size,
                                          &warmup, &iterations)
                       : PyArg_ParseTuple(args, "O&LLL:allreduce_times", comm_converter, &p->comm, &size, &warmup,
                                          &iterations);
    if (!parsed || GLUE_COUNTS(self, {bcast ? "bytes" : "count", size, bcast ? &p->bytes : &p->count},
                               {"warmup", warmup, &p->warmup}, {"iterations", iterations, &p->iterations}) != 0)
        return NULL;
    return comm_samples(self, &c, hpcb_collective_check(p, &c.why), p->iterations, &c.out.collective.ticks);
}

static PyObject *bcast_times(PyObject *self, PyObject *args)
{
    return collective(self, args, GLUE_BCAST);
}

static PyObject *allreduce_times(PyObject *self, PyObject *args)
{
    return collective(self, args, GLUE_ALLREDUCE);
}

static PyObject *overlap_times(PyObject *self, PyObject *args)
{
    struct glue_call c = {.kernel = GLUE_OVERLAP, .what = "overlap_times"};
    struct hpcb_overlap_params *p = &c.p.overlap;
    long long bytes, n, warmup, iterations;
    if (!PyArg_ParseTuple(args, "O&iLLiLL:overlap_times", comm_converter, &p->comm, &p->partner, &bytes, &n,
                          &p->mode, &warmup, &iterations) ||
        GLUE_COUNTS(self, {"bytes", bytes, &p->bytes}, {"n", n, &p->n}, {"warmup", warmup, &p->warmup},
                    {"iterations", iterations, &p->iterations}) != 0)
        return NULL;
    /* Interleaved: one row per timed mode. */
    int interleaved = p->mode == HPCB_OVERLAP_INTERLEAVED;
    const struct glue_samples samples[] = {{&c.out.overlap.ticks, interleaved ? HPCB_OVERLAP_TIMED_MODES : p->iterations,
                                            interleaved ? p->iterations : 0}};
    return glue_run(self, &c, hpcb_overlap_check(p, &c.why), samples, 1, "");
}

static PyObject *echo_contention(PyObject *self, PyObject *args)
{
    struct glue_call c = {.kernel = GLUE_CONTENTION, .what = "echo_contention"};
    struct hpcb_contention_params *p = &c.p.contention;
    struct hpcb_contention_out *out = &c.out.contention;
    long long bytes, load_bytes, warmup, iterations;
    if (!PyArg_ParseTuple(args, "O&iiiLLLL:echo_contention", comm_converter, &p->comm, &p->role, &p->partner,
                          &p->load_sender, &bytes, &load_bytes, &warmup, &iterations) ||
        GLUE_COUNTS(self, {"bytes", bytes, &p->bytes}, {"load_bytes", load_bytes, &p->load_bytes},
                    {"warmup", warmup, &p->warmup}, {"iterations", iterations, &p->iterations}) != 0)
        return NULL;
    const struct glue_samples samples[] = {{&out->ticks, p->iterations, 0}};
    return glue_run(self, &c, hpcb_contention_check(p, &c.why), samples, 1, "nd", &out->load_messages,
                    &out->load_ticks);
}

static PyObject *shift_times(PyObject *self, PyObject *args)
{
    struct glue_call c = {.kernel = GLUE_SHIFT, .what = "shift_times"};
    struct hpcb_shift_params *p = &c.p.shift;
    long long bytes, warmup, iterations;
    if (!PyArg_ParseTuple(args, "O&iiLLL:shift_times", comm_converter, &p->comm, &p->dest, &p->source, &bytes,
                          &warmup, &iterations) ||
        GLUE_COUNTS(self, {"bytes", bytes, &p->bytes}, {"warmup", warmup, &p->warmup},
                    {"iterations", iterations, &p->iterations}) != 0)
        return NULL;
    return comm_samples(self, &c, hpcb_shift_check(p, &c.why), p->iterations, &c.out.shift.ticks);
}

static PyObject *flow_times(PyObject *self, PyObject *args)
{
    struct glue_call c = {.kernel = GLUE_FLOW, .what = "flow_times"};
    struct hpcb_flow_params *p = &c.p.flow;
    long long bytes, warmup, iterations;
    if (!PyArg_ParseTuple(args, "O&iiLLL:flow_times", comm_converter, &p->comm, &p->dest, &p->source, &bytes,
                          &warmup, &iterations) ||
        GLUE_COUNTS(self, {"bytes", bytes, &p->bytes}, {"warmup", warmup, &p->warmup},
                    {"iterations", iterations, &p->iterations}) != 0)
        return NULL;
    const struct glue_samples samples[] = {{&c.out.flow.ticks, 2, p->iterations}};
    return glue_run(self, &c, hpcb_flow_check(p, &c.why), samples, 1, "");
}

PyMethodDef glue_comm_methods[] = {
    {"barrier_times", barrier_times, METH_VARARGS,
     "barrier_times(comm, warmup=10, samples=100) -> ns per barrier on this rank"},
    {"echo", echo, METH_VARARGS,
     "echo(comm, partner, initiator, bytes, warmup, iterations, inner=1) -> ticks per sample of `inner` "
     "round trips (NaN if partner < 0)"},
    {"exchange", exchange, METH_VARARGS,
     "exchange(comm, partner, initiator, bytes, warmup, iterations, inner=1) -> ticks per sample of `inner` "
     "exchanges (NaN if partner < 0)"},
    {"overhead", overhead, METH_VARARGS,
     "overhead(comm, partner, timed, side, bytes, delay_ticks, warmup, iterations, window=1) -> ticks of the "
     "timed MPI_Send (side OVERHEAD_SEND), MPI_Recv (OVERHEAD_RECV, after delay_ticks of waiting) or window of "
     "`window` sends and an ack (OVERHEAD_GAP) per iteration on the timed rank, 0 on its partner (NaN if "
     "partner < 0)"},
    {"p2p_check", GLUE_KEYWORDS(p2p_check),
     "p2p_check(bytes, warmup, iterations, inner=1) -> None if echo and exchange would accept these sizes and "
     "counts; else ParameterError"},
    {"bcast_times", bcast_times, METH_VARARGS,
     "bcast_times(comm, root, bytes, warmup, iterations) -> ticks per broadcast on this rank"},
    {"allreduce_times", allreduce_times, METH_VARARGS,
     "allreduce_times(comm, count, warmup, iterations) -> ticks per global sum of count doubles"},
    {"overlap_times", overlap_times, METH_VARARGS,
     "overlap_times(comm, partner, bytes, n, mode, warmup, iterations) -> ticks per iteration "
     "(mode OVERLAP_*; OVERLAP_INTERLEAVED: shape (4, iterations), one row per timed mode; NaN if partner < 0)"},
    {"shift_times", shift_times, METH_VARARGS,
     "shift_times(comm, dest, source, bytes, warmup, iterations) -> ticks per iteration (NaN if dest < 0)"},
    {"flow_times", flow_times, METH_VARARGS,
     "flow_times(comm, dest, source, bytes, warmup, iterations) -> ticks, shape (2, iterations): row 0 from the "
     "barrier to the send's completion (NaN if dest < 0), row 1 to the receive's (NaN if source < 0)"},
    {"echo_contention", echo_contention, METH_VARARGS,
     "echo_contention(comm, role, partner, load_sender, bytes, load_bytes, warmup, iterations) -> "
     "(ticks, load_messages, load_ticks) (role ROLE_*)"},
    {NULL, NULL, 0, NULL},
};
