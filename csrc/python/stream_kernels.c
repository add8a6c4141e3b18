/* stream_kernels.c - glue for stream.h: STREAM's four kernels on a team,
 * and the check of their parameters. Every rule is the kernel's own
 * check's; this file only fills the params struct. */
#include "families.h"

#include "../runtime/hpcb.h"
#include "../runtime/memory.h"

/* The arguments as parsed, with their defaults. */
struct stream_args {
    long long array_bytes, repetitions, warmup;
    int page_mode, isa, stores, plant_fault;
};

#define STREAM_DEFAULTS                                                                                 \
    {.warmup = 1, .page_mode = HPCB_PAGES_NORMAL, .isa = HPCB_ISA_AUTO, .stores = HPCB_STREAM_ORDINARY, \
     .plant_fault = 0}

static int stream_params(PyObject *self, const struct stream_args *a, struct hpcb_stream_params *p)
{
    p->page_mode = a->page_mode;
    p->isa = a->isa;
    p->stores = a->stores;
    p->plant_fault = a->plant_fault;
    return GLUE_COUNTS(self, {"array_bytes", a->array_bytes, &p->array_bytes},
                       {"repetitions", a->repetitions, &p->repetitions}, {"warmup", a->warmup, &p->warmup});
}

static PyObject *stream_team(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"pus", "array_bytes", "repetitions", "warmup", "page_mode", "isa", "stores",
                               "plant_fault", NULL};
    struct stream_args a = STREAM_DEFAULTS;
    struct glue_call c = {.kernel = GLUE_STREAM, .what = "stream_team"};
    struct hpcb_stream_params *p = &c.p.stream;
    PyObject *pus;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OLL|Liiii:stream_team", keywords, &pus, &a.array_bytes,
                                     &a.repetitions, &a.warmup, &a.page_mode, &a.isa, &a.stores, &a.plant_fault) ||
        stream_params(self, &a, p) != 0 || glue_pus(self, &c, pus, &p->team) != 0)
        return NULL;
    /* Each member's start and end of each kernel of each repetition, on the
     * clock all members share. */
    size_t columns = p->repetitions * HPCB_STREAM_KERNELS;
    const struct glue_samples samples[] = {{&c.out.stream.start_ns, p->team.npus, columns},
                                           {&c.out.stream.end_ns, p->team.npus, columns}};
    return glue_run(self, &c, hpcb_stream_check(p, &c.why), samples, 2, "n", &c.out.stream.isa);
}

static PyObject *stream_check(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"array_bytes", "repetitions", "warmup", "page_mode", "isa", "stores", NULL};
    struct stream_args a = STREAM_DEFAULTS;
    struct hpcb_stream_params p = {.team = {NULL, 0}};
    struct hpcb_why why = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LL|Liii:stream_check", keywords, &a.array_bytes,
                                     &a.repetitions, &a.warmup, &a.page_mode, &a.isa, &a.stores) ||
        stream_params(self, &a, &p) != 0)
        return NULL;
    return glue_verdict(self, hpcb_stream_check_sizes(&p, &why), &why, "stream_check");
}

PyMethodDef glue_stream_methods[] = {
    {"stream_team", GLUE_KEYWORDS(stream_team),
     "stream_team(pus, array_bytes, repetitions, warmup=1, page_mode=PAGES_NORMAL, isa=ISA_AUTO, "
     "stores=STREAM_ORDINARY, plant_fault=0) -> (start_ns, end_ns, isa)\n\n"
     "STREAM's Copy, Scale, Add and Triad on three arrays of array_bytes per PU, the members starting each "
     "kernel together. start_ns, end_ns: (members, repetitions * 4), kernel k of repetition r at column "
     "4 * r + k, ns on CLOCK_MONOTONIC after a reading taken before any member started; isa: the ISA_* used. "
     "plant_fault=1 (tests) corrupts one element after timing, so the payload check raises."},
    {"stream_check", GLUE_KEYWORDS(stream_check),
     "stream_check(array_bytes, repetitions, warmup=1, page_mode=PAGES_NORMAL, isa=ISA_AUTO, "
     "stores=STREAM_ORDINARY) -> None if stream_team would accept them (its PUs aside); else ParameterError"},
    {NULL, NULL, 0, NULL},
};
