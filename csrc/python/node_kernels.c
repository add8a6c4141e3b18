/* node_kernels.c - glue for the kernels of one node: the cache traversal
 * (alone or on a team), the copy on a team, the DAXPY of one core, and the
 * team check they share. Every rule is the kernel's own check's; this file
 * only fills params structs (glue.h's struct glue_call) and glue_run does
 * the rest. */
#include "families.h"

#include <stdlib.h>

#include "../runtime/hpcb.h"
#include "../runtime/memory.h"

/* The traversal arguments as parsed, with their defaults. */
struct traverse_args {
    long long array_bytes, stride_bytes, min_accesses, warmup, samples, window_bytes;
    unsigned long long seed;
    int order, page_mode;
};

#define TRAVERSE_DEFAULTS                                                                               \
    {.min_accesses = 1, .warmup = 1, .samples = 1, .window_bytes = 131072, .seed = 1,                  \
     .order = HPCB_ORDER_SEQUENTIAL, .page_mode = HPCB_PAGES_NORMAL}

static int traverse_params(PyObject *self, const struct traverse_args *a, struct hpcb_traverse_params *p)
{
    p->order = a->order;
    p->seed = a->seed;
    p->page_mode = a->page_mode;
    return GLUE_COUNTS(self, {"array_bytes", a->array_bytes, &p->array_bytes},
                       {"stride_bytes", a->stride_bytes, &p->stride_bytes},
                       {"min_accesses", a->min_accesses, &p->min_accesses}, {"warmup", a->warmup, &p->warmup},
                       {"samples", a->samples, &p->samples}, {"window_bytes", a->window_bytes, &p->window_bytes});
}

/* traverse() and traverse_team(): team.pus NULL is the calling thread,
 * whose samples are 1-D; a team's are one row per member. */
static PyObject *run_traverse(PyObject *self, struct glue_call *c)
{
    struct hpcb_traverse_params *p = &c->p.traverse;
    size_t rows = p->team.pus != NULL ? p->team.npus : p->samples, cols = p->team.pus != NULL ? p->samples : 0;
    const struct glue_samples samples[] = {{&c->out.traverse.ticks, rows, cols}, {&c->out.traverse.ns, rows, cols}};
    return glue_run(self, c, hpcb_traverse_check(p, &c->why), samples, 2, "n", &c->out.traverse.accesses_per_sample);
}

static char *traverse_keywords[] = {"pus", "array_bytes", "stride_bytes", "order", "seed", "min_accesses",
                                    "warmup", "samples", "page_mode", "window_bytes", NULL};

static PyObject *traverse(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct traverse_args a = TRAVERSE_DEFAULTS;
    struct glue_call c = {.kernel = GLUE_TRAVERSE, .what = "traverse", .p.traverse.team = {NULL, 0}};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LL|iKLLLiL:traverse", traverse_keywords + 1, &a.array_bytes,
                                     &a.stride_bytes, &a.order, &a.seed, &a.min_accesses, &a.warmup, &a.samples,
                                     &a.page_mode, &a.window_bytes) ||
        traverse_params(self, &a, &c.p.traverse) != 0)
        return NULL;
    return run_traverse(self, &c);
}

static PyObject *traverse_team(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct traverse_args a = TRAVERSE_DEFAULTS;
    struct glue_call c = {.kernel = GLUE_TRAVERSE, .what = "traverse_team"};
    PyObject *pus;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OLL|iKLLLiL:traverse_team", traverse_keywords, &pus,
                                     &a.array_bytes, &a.stride_bytes, &a.order, &a.seed, &a.min_accesses,
                                     &a.warmup, &a.samples, &a.page_mode, &a.window_bytes) ||
        traverse_params(self, &a, &c.p.traverse) != 0 || glue_pus(self, &c, pus, &c.p.traverse.team) != 0)
        return NULL;
    return run_traverse(self, &c);
}

static PyObject *traverse_check(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"array_bytes", "stride_bytes", "order", "min_accesses", "samples", "page_mode",
                               "window_bytes", NULL};
    struct traverse_args a = TRAVERSE_DEFAULTS;
    struct hpcb_traverse_params p = {.team = {NULL, 0}};
    struct hpcb_why why = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LL|iLLiL:traverse_check", keywords, &a.array_bytes,
                                     &a.stride_bytes, &a.order, &a.min_accesses, &a.samples, &a.page_mode,
                                     &a.window_bytes) ||
        traverse_params(self, &a, &p) != 0)
        return NULL;
    return glue_verdict(self, hpcb_traverse_check(&p, &why), &why, "traverse_check");
}

/* The copy counts, as parsed, into p. */
static int copy_sizes(PyObject *self, struct hpcb_copy_params *p, long long array_bytes, long long repetitions,
                      long long warmup)
{
    return GLUE_COUNTS(self, {"array_bytes", array_bytes, &p->array_bytes},
                       {"repetitions", repetitions, &p->repetitions}, {"warmup", warmup, &p->warmup});
}

static PyObject *copy_team(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"pus", "array_bytes", "repetitions", "warmup", "page_mode", NULL};
    struct glue_call c = {.kernel = GLUE_COPY, .what = "copy_team", .p.copy.page_mode = HPCB_PAGES_NORMAL};
    struct hpcb_copy_params *p = &c.p.copy;
    PyObject *pus;
    long long array_bytes, repetitions, warmup = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OLL|Li:copy_team", keywords, &pus, &array_bytes, &repetitions,
                                     &warmup, &p->page_mode) ||
        copy_sizes(self, p, array_bytes, repetitions, warmup) != 0 || glue_pus(self, &c, pus, &p->team) != 0)
        return NULL;
    /* Each member's time of each repetition, in ns and in ticks, and when
     * it started and ended on the clock all members share. */
    const struct glue_samples samples[] = {{&c.out.copy.ns, p->team.npus, p->repetitions},
                                           {&c.out.copy.ticks, p->team.npus, p->repetitions},
                                           {&c.out.copy.start_ns, p->team.npus, p->repetitions},
                                           {&c.out.copy.end_ns, p->team.npus, p->repetitions}};
    return glue_run(self, &c, hpcb_copy_check(p, &c.why), samples, 4, "");
}

static PyObject *copy_check(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"array_bytes", "repetitions", "warmup", "page_mode", NULL};
    struct hpcb_copy_params p = {.page_mode = HPCB_PAGES_NORMAL};
    struct hpcb_why why = {0};
    long long array_bytes, repetitions, warmup = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LL|Li:copy_check", keywords, &array_bytes, &repetitions, &warmup,
                                     &p.page_mode) ||
        copy_sizes(self, &p, array_bytes, repetitions, warmup) != 0)
        return NULL;
    return glue_verdict(self, hpcb_copy_check_sizes(&p, &why), &why, "copy_check");
}

static PyObject *daxpy_times(PyObject *self, PyObject *args)
{
    struct glue_call c = {.kernel = GLUE_DAXPY, .what = "daxpy_times"};
    struct hpcb_daxpy_params *p = &c.p.daxpy;
    long long n, warmup, iterations;
    if (!PyArg_ParseTuple(args, "LLL:daxpy_times", &n, &warmup, &iterations) ||
        GLUE_COUNTS(self, {"n", n, &p->n}, {"warmup", warmup, &p->warmup}, {"iterations", iterations, &p->iterations}))
        return NULL;
    const struct glue_samples samples[] = {{&c.out.daxpy.ticks, p->iterations, 0}};
    return glue_run(self, &c, hpcb_daxpy_check(p, &c.why), samples, 1, "");
}

static PyObject *team_check(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"pus", NULL};
    PyObject *pus;
    unsigned *list;
    struct hpcb_team_params p;
    struct hpcb_why why = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:team_check", keywords, &pus) ||
        (list = glue_pu_list(self, pus, &p.npus)) == NULL)
        return NULL;
    p.pus = list;
    int rc = hpcb_team_check(&p, &why);
    free(list);
    return glue_verdict(self, rc, &why, "team_check");
}

PyMethodDef glue_node_methods[] = {
    {"traverse", GLUE_KEYWORDS(traverse),
     "traverse(array_bytes, stride_bytes, order=ORDER_SEQUENTIAL, seed=1, min_accesses=1, warmup=1, samples=1, "
     "page_mode=PAGES_NORMAL, window_bytes=131072) -> (ticks_per_access, ns_per_access, accesses_per_sample)"},
    {"traverse_team", GLUE_KEYWORDS(traverse_team),
     "traverse_team(pus, array_bytes, stride_bytes, ...) -> traverse's, as 2-D arrays with one row per PU"},
    {"traverse_check", GLUE_KEYWORDS(traverse_check),
     "traverse_check(array_bytes, stride_bytes, order=ORDER_SEQUENTIAL, min_accesses=1, samples=1, "
     "page_mode=PAGES_NORMAL, window_bytes=131072) -> None if traverse would accept them; else ParameterError"},
    {"copy_team", GLUE_KEYWORDS(copy_team),
     "copy_team(pus, array_bytes, repetitions, warmup=1, page_mode=PAGES_NORMAL) -> (ns, ticks, start_ns, end_ns) "
     "of each copy of array_bytes, 2-D arrays (members x repetitions); start_ns and end_ns on CLOCK_MONOTONIC, "
     "ns after a reading taken before any member started, comparable across members"},
    {"copy_check", GLUE_KEYWORDS(copy_check), "copy_check(array_bytes, repetitions, warmup=1, "
     "page_mode=PAGES_NORMAL) -> None if copy_team would accept them (its PUs aside); else ParameterError"},
    {"daxpy_times", daxpy_times, METH_VARARGS,
     "daxpy_times(n, warmup, iterations) -> ticks per y += a*x over n doubles"},
    {"team_check", GLUE_KEYWORDS(team_check),
     "team_check(pus) -> None if pus is a valid team (1..65536 distinct PUs of this machine); else ParameterError"},
    {NULL, NULL, 0, NULL},
};
