/* bandwidth_kernels.c - glue for bandwidth.h: the likwid-bench-style
 * kernels on a team, and their check without a team. Every rule is the
 * kernel's own check's; this file only fills the params. */
#include "families.h"

#include "../runtime/hpcb.h"
#include "../runtime/memory.h"

/* The arguments as parsed, with their defaults. */
struct bw_args {
    PyObject *sizes;
    long long min_bytes, warmup, samples;
    int kernel, isa, nontemporal, page_mode;
};

#define BW_DEFAULTS                                                                                       \
    {.min_bytes = 1 << 24, .warmup = 1, .samples = 1, .isa = HPCB_ISA_AUTO, .page_mode = HPCB_PAGES_NORMAL}

static char *bw_keywords[] = {"pus", "kernel", "sizes", "isa", "nontemporal", "min_bytes", "warmup", "samples",
                              "page_mode", NULL};

static int bw_params(PyObject *self, struct glue_call *c, const struct bw_args *a, struct hpcb_bandwidth_params *p)
{
    p->kernel = a->kernel;
    p->isa = a->isa;
    p->nontemporal = a->nontemporal;
    p->page_mode = a->page_mode;
    if (GLUE_COUNTS(self, {"min_bytes", a->min_bytes, &p->min_bytes}, {"warmup", a->warmup, &p->warmup},
                    {"samples", a->samples, &p->samples}) != 0)
        return -1;
    return glue_sizes(self, c, a->sizes, &p->sizes, &p->nsizes);
}

static PyObject *bandwidth_team(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct bw_args a = BW_DEFAULTS;
    struct glue_call c = {.kernel = GLUE_BANDWIDTH, .what = "bandwidth_team"};
    struct hpcb_bandwidth_params *p = &c.p.bandwidth;
    struct hpcb_bandwidth_out *o = &c.out.bandwidth;
    PyObject *pus;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OiO|ipLLLi:bandwidth_team", bw_keywords, &pus, &a.kernel,
                                     &a.sizes, &a.isa, &a.nontemporal, &a.min_bytes, &a.warmup, &a.samples,
                                     &a.page_mode))
        return NULL;
    if (bw_params(self, &c, &a, p) != 0 || glue_pus(self, &c, pus, &p->team) != 0) {
        glue_call_free(&c);
        return NULL;
    }
    /* One row per member: its sizes' samples one after another. */
    const struct glue_samples samples[] = {{&o->start_ns, p->team.npus, p->nsizes * p->samples},
                                           {&o->end_ns, p->team.npus, p->nsizes * p->samples},
                                           {&o->bytes, p->nsizes, 0}, {&o->array_bytes, p->nsizes, 0}};
    return glue_run(self, &c, hpcb_bandwidth_check(p, &c.why), samples, 4, "n", &o->isa);
}

static PyObject *bandwidth_check(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct bw_args a = BW_DEFAULTS;
    struct glue_call c = {.kernel = GLUE_BANDWIDTH, .what = "bandwidth_check"};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iO|ipLLLi:bandwidth_check", bw_keywords + 1, &a.kernel,
                                     &a.sizes, &a.isa, &a.nontemporal, &a.min_bytes, &a.warmup, &a.samples,
                                     &a.page_mode))
        return NULL;
    PyObject *verdict = bw_params(self, &c, &a, &c.p.bandwidth) != 0
                            ? NULL
                            : glue_verdict(self, hpcb_bandwidth_check_sizes(&c.p.bandwidth, &c.why), &c.why,
                                           "bandwidth_check");
    glue_call_free(&c);
    return verdict;
}

static PyObject *bandwidth_streams(PyObject *self, PyObject *args)
{
    int kernel;
    if (!PyArg_ParseTuple(args, "i:bandwidth_streams", &kernel))
        return NULL;
    return PyLong_FromSize_t(hpcb_bandwidth_streams(kernel));
}

PyMethodDef glue_bandwidth_methods[] = {
    {"bandwidth_team", GLUE_KEYWORDS(bandwidth_team),
     "bandwidth_team(pus, kernel, sizes, isa=ISA_AUTO, nontemporal=False, min_bytes=2**24, warmup=1, samples=1, "
     "page_mode=PAGES_NORMAL)\n-> (start_ns, end_ns, bytes, array_bytes, isa)\n\n"
     "Kernel BW_* on every PU at once over each working set of `sizes` (bytes per member, all arrays), whole\n"
     "passes of at least min_bytes per sample. start_ns, end_ns: (members, sizes * samples) on one clock;\n"
     "bytes: data volume (loads + stores) of one member's sample per size; array_bytes: bytes of each array;\n"
     "isa: the ISA_* loops used."},
    {"bandwidth_check", GLUE_KEYWORDS(bandwidth_check),
     "bandwidth_check(kernel, sizes, ...) -> None: bandwidth_team's rules (its PUs aside), without running."},
    {"bandwidth_streams", bandwidth_streams, METH_VARARGS,
     "bandwidth_streams(kernel) -> int: the arrays kernel BW_* reads and writes (0 for an unknown kernel)."},
    {NULL, NULL, 0, NULL},
};
