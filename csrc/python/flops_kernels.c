/* flops_kernels.c - glue for flops.h: the FMA chains on a team, their
 * check, and what the CPU runs. Every rule is the kernel's check's; this
 * file only fills the params (glue.h's struct glue_call). */
#include "families.h"

#include "../runtime/hpcb.h"

/* The arguments as parsed, with their defaults. */
struct flops_args {
    long long iterations, samples, warmup, chains;
    int isa, precision, fault;
};

#define FLOPS_DEFAULTS                                                                              \
    {.warmup = 1, .chains = 12, .isa = HPCB_ISA_AUTO, .precision = HPCB_FLOPS_DOUBLE,             \
     .fault = HPCB_FLOPS_FAULT_NONE}

static int flops_params(PyObject *self, const struct flops_args *a, struct hpcb_flops_params *p)
{
    p->isa = a->isa;
    p->precision = a->precision;
    p->fault = a->fault;
    return GLUE_COUNTS(self, {"iterations", a->iterations, &p->iterations}, {"samples", a->samples, &p->samples},
                       {"warmup", a->warmup, &p->warmup}, {"chains", a->chains, &p->chains});
}

static PyObject *flops_team(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"pus", "iterations", "samples", "warmup", "chains", "isa", "precision", "fault",
                               NULL};
    struct flops_args a = FLOPS_DEFAULTS;
    struct glue_call c = {.kernel = GLUE_FLOPS, .what = "flops_team"};
    struct hpcb_flops_params *p = &c.p.flops;
    PyObject *pus;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OLL|LLiii:flops_team", keywords, &pus, &a.iterations,
                                     &a.samples, &a.warmup, &a.chains, &a.isa, &a.precision, &a.fault) ||
        flops_params(self, &a, p) != 0 || glue_pus(self, &c, pus, &p->team) != 0)
        return NULL;
    struct hpcb_flops_out *o = &c.out.flops;
    const struct glue_samples samples[] = {{&o->ns, p->team.npus, p->samples},
                                           {&o->start_ns, p->team.npus, p->samples},
                                           {&o->end_ns, p->team.npus, p->samples}};
    return glue_run(self, &c, hpcb_flops_check(p, &c.why), samples, 3, "nnd", &o->isa, &o->scalar_fma,
                    &o->flops_per_sample);
}

static PyObject *flops_check(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"iterations", "samples", "warmup", "chains", "isa", "precision", NULL};
    struct flops_args a = FLOPS_DEFAULTS;
    struct hpcb_flops_params p = {.team = {NULL, 0}};
    struct hpcb_why why = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LL|LLii:flops_check", keywords, &a.iterations, &a.samples,
                                     &a.warmup, &a.chains, &a.isa, &a.precision) ||
        flops_params(self, &a, &p) != 0)
        return NULL;
    return glue_verdict(self, hpcb_flops_check_sizes(&p, &why), &why, "flops_check");
}

static PyObject *flops_supported(PyObject *self, PyObject *args)
{
    int isa;
    if (!PyArg_ParseTuple(args, "i:flops_supported", &isa))
        return NULL;
    return PyBool_FromLong(hpcb_flops_supported(isa));
}

static PyObject *flops_scalar_fma(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(hpcb_flops_scalar_fma());
}

PyMethodDef glue_flops_methods[] = {
    {"flops_team", GLUE_KEYWORDS(flops_team),
     "flops_team(pus, iterations, samples, warmup=1, chains=12, isa=ISA_AUTO, precision=FLOPS_DOUBLE, "
     "fault=FLOPS_FAULT_NONE) -> (ns, start_ns, end_ns, isa, scalar_fma, flops_per_sample): each member's "
     "samples of `chains` FMA chains x `iterations` steps, 2-D arrays (members x samples), start_ns and end_ns on "
     "one clock; the ISA the loop used, whether the scalar loop uses FMA, and the flops of one member's sample"},
    {"flops_check", GLUE_KEYWORDS(flops_check),
     "flops_check(iterations, samples, warmup=1, chains=12, isa=ISA_AUTO, precision=FLOPS_DOUBLE) -> None if "
     "flops_team would accept them (its PUs aside); else ParameterError"},
    {"flops_supported", flops_supported, METH_VARARGS,
     "flops_supported(isa) -> whether this CPU runs flops_team's loop of that ISA_* (AVX2 needs FMA3 too)"},
    {"flops_scalar_fma", flops_scalar_fma, METH_NOARGS,
     "flops_scalar_fma() -> whether flops_team's scalar loop uses FMA (the CPU has FMA3), else multiply then add"},
    {NULL, NULL, 0, NULL},
};
