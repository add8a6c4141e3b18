/* predict_kernels.c - glue for the real wavefront kernel that the predict
 * domain validates its model and simulator on (csrc/kernels/wavefront.c on
 * an mpi4py communicator), its serial evaluation (wavefront_solve.c) and
 * the single-process W_g measurement (wavefront_wg.c). */
#include "families.h"

#include "mpi4py_comm.h"

#include "../kernels/wavefront_solve.h"
#include "../runtime/hpcb.h"

/* The arguments wavefront_times and wavefront_check share, with defaults. */
struct wave_args {
    long long nx, ny, nz, m, n, h_tile, angles, work, warmup, iterations, fault_rank, fault_sweep;
    int verify, fault;
};

#define WAVE_ARGS_INIT {.h_tile = 1, .angles = 6, .work = 1, .warmup = 1, .iterations = 1, .verify = 1}

/* Fill p (but its comm) from a; 0, or -1 with ParameterError for a
 * negative count. */
static int wave_params(PyObject *self, const struct wave_args *a, struct hpcb_wavefront_params *p)
{
    p->verify = a->verify;
    p->fault = a->fault;
    return GLUE_COUNTS(self, {"nx", a->nx, &p->nx}, {"ny", a->ny, &p->ny}, {"nz", a->nz, &p->nz}, {"m", a->m, &p->m},
                       {"n", a->n, &p->n}, {"h_tile", a->h_tile, &p->h_tile}, {"angles", a->angles, &p->angles},
                       {"work", a->work, &p->work}, {"warmup", a->warmup, &p->warmup},
                       {"iterations", a->iterations, &p->iterations}, {"fault_rank", a->fault_rank, &p->fault_rank},
                       {"fault_sweep", a->fault_sweep, &p->fault_sweep});
}

static char *times_keywords[] = {"comm", "nx", "ny", "nz", "m", "n", "h_tile", "angles", "work", "warmup",
                                 "iterations", "verify", "fault", "fault_rank", "fault_sweep", NULL};

static PyObject *wavefront_times(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct glue_call c = {.kernel = GLUE_WAVEFRONT, .what = "wavefront_times"};
    struct hpcb_wavefront_params *p = &c.p.wavefront;
    struct hpcb_wavefront_out *out = &c.out.wavefront;
    struct wave_args a = WAVE_ARGS_INIT;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&LLLLL|LLLLLpiLL:wavefront_times", times_keywords,
                                     comm_converter, &p->comm, &a.nx, &a.ny, &a.nz, &a.m, &a.n, &a.h_tile, &a.angles,
                                     &a.work, &a.warmup, &a.iterations, &a.verify, &a.fault, &a.fault_rank,
                                     &a.fault_sweep) ||
        wave_params(self, &a, p) != 0)
        return NULL;
    int status = hpcb_wavefront_check(p, &c.why);
    size_t count = status == HPCB_OK ? p->iterations : 0;
    const struct glue_samples samples[] = {{&out->ticks, count, 0}, {&out->compute, count, 0},
                                           {&out->send, count, 0}, {&out->recv, count, 0}};
    PyObject *result = glue_run(self, &c, status, samples, 4, "KKdnn", &out->checksum, &out->expected,
                                &out->total, &out->sent_messages, &out->sent_bytes);
    if (result == NULL && status == HPCB_OK && out->checksum != out->expected && p->verify &&
        PyErr_ExceptionMatches(PyExc_RuntimeError)) {
        /* A failed verification: say what differed, not only that it did. */
        char words[320];
        snprintf(words, sizeof words, "wavefront_times: verification failed: the grid's checksum %016llx after "
                 "%lld iterations differs from the serial evaluation's %016llx (a face was wrong, missing or from "
                 "another sweep)", (unsigned long long)out->checksum, a.warmup + a.iterations,
                 (unsigned long long)out->expected);
        PyErr_Clear();
        PyErr_SetString(PyExc_RuntimeError, words);
    }
    return result;
}

static char *check_keywords[] = {"nx", "ny", "nz", "m", "n", "h_tile", "angles", "work", "warmup", "iterations",
                                 "verify", "fault", "fault_rank", "fault_sweep", NULL};

static PyObject *wavefront_check(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct hpcb_wavefront_params p = {0};
    struct hpcb_why why = {0};
    struct wave_args a = WAVE_ARGS_INIT;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LLLLL|LLLLLpiLL:wavefront_check", check_keywords, &a.nx, &a.ny,
                                     &a.nz, &a.m, &a.n, &a.h_tile, &a.angles, &a.work, &a.warmup, &a.iterations,
                                     &a.verify, &a.fault, &a.fault_rank, &a.fault_sweep) ||
        wave_params(self, &a, &p) != 0)
        return NULL;
    return glue_verdict(self, hpcb_wavefront_check_sizes(&p, &why), &why, "wavefront_check");
}

static char *serial_keywords[] = {"nx", "ny", "nz", "angles", "work", "iterations", NULL};

static PyObject *wavefront_serial(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct wave_args a = WAVE_ARGS_INIT;
    struct hpcb_wavefront_params p = {0};
    struct hpcb_why why = {0};
    a.m = a.n = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LLL|LLL:wavefront_serial", serial_keywords, &a.nx, &a.ny, &a.nz,
                                     &a.angles, &a.work, &a.iterations) ||
        wave_params(self, &a, &p) != 0 ||
        glue_status(self, hpcb_wavefront_check_sizes(&p, &why), &why, "wavefront_serial") != 0)
        return NULL;
    uint64_t checksum = 0;
    double total = 0.0;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_wavefront_serial(p.nx, p.ny, p.nz, p.angles, p.work, p.iterations, &checksum, &total);
    Py_END_ALLOW_THREADS
    if (glue_status(self, rc, NULL, "wavefront_serial") != 0)
        return NULL;
    return Py_BuildValue("(Kd)", (unsigned long long)checksum, total);
}

static char *wg_keywords[] = {"cells_x", "cells_y", "nz", "h_tile", "angles", "work", "warmup", "repetitions", NULL};

static PyObject *wavefront_wg(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct glue_call c = {.kernel = GLUE_WAVEFRONT_WG, .what = "wavefront_wg"};
    struct hpcb_wavefront_wg_params *p = &c.p.wavefront_wg;
    long long cells_x, cells_y, nz, h_tile = 1, angles = 6, work = 1, warmup = 1, repetitions = 10;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LLL|LLLLL:wavefront_wg", wg_keywords, &cells_x, &cells_y, &nz,
                                     &h_tile, &angles, &work, &warmup, &repetitions) ||
        GLUE_COUNTS(self, {"cells_x", cells_x, &p->cells_x}, {"cells_y", cells_y, &p->cells_y}, {"nz", nz, &p->nz},
                    {"h_tile", h_tile, &p->h_tile}, {"angles", angles, &p->angles}, {"work", work, &p->work},
                    {"warmup", warmup, &p->warmup}, {"repetitions", repetitions, &p->repetitions}) != 0)
        return NULL;
    int status = hpcb_wavefront_wg_check(p, &c.why);
    const struct glue_samples samples[] = {{&c.out.wavefront_wg.ticks, status == HPCB_OK ? p->repetitions : 0, 0}};
    return glue_run(self, &c, status, samples, 1, "");
}

PyMethodDef glue_predict_methods[] = {
    {"wavefront_times", GLUE_KEYWORDS(wavefront_times),
     "wavefront_times(comm, nx, ny, nz, m, n, h_tile=1, angles=6, work=1, warmup=1, iterations=1, verify=True, "
     "fault=WAVEFRONT_FAULT_NONE, fault_rank=0, fault_sweep=0) -> (ticks, compute ticks, MPI_Send ticks, MPI_Recv "
     "ticks) of each timed iteration on this rank, then the grid's checksum, the serial evaluation's (0 without "
     "verify), the sum of every cell's flux, and the faces and bytes this rank sent in an iteration; "
     "RuntimeError on every rank if the checksums differ"},
    {"wavefront_check", GLUE_KEYWORDS(wavefront_check),
     "wavefront_check(nx, ny, nz, m, n, h_tile=1, angles=6, work=1, warmup=1, iterations=1, verify=True, fault=0, "
     "fault_rank=0, fault_sweep=0) -> None if wavefront_times would accept these (but for the communicator); else "
     "ParameterError"},
    {"wavefront_serial", GLUE_KEYWORDS(wavefront_serial),
     "wavefront_serial(nx, ny, nz, angles=6, work=1, iterations=1) -> (checksum, total) of the serial evaluation "
     "of `iterations` iterations on this process, no MPI"},
    {"wavefront_wg", GLUE_KEYWORDS(wavefront_wg),
     "wavefront_wg(cells_x, cells_y, nz, h_tile=1, angles=6, work=1, warmup=1, repetitions=10) -> ticks of each "
     "sweep through a cells_x x cells_y x nz stack, computing alone (no MPI)"},
    {NULL, NULL, 0, NULL},
};
