/* cache_kernels.c - glue for the cache sweep's kernels: the latency chase
 * and the read-bandwidth loads over prefixes of one buffer, and their
 * checks. Every rule is the kernel's own check's; this file only fills
 * params structs and glue_run does the rest. */
#include "families.h"

#include "../runtime/hpcb.h"
#include "../runtime/memory.h"

/* The chase arguments as parsed, with their defaults. */
struct chase_args {
    long long buffer_bytes, stride_bytes, window_bytes, min_accesses, warmup, samples, long_slots;
    unsigned long long seed;
    int order, page_mode;
    PyObject *sizes;
};

#define CHASE_DEFAULTS                                                                                  \
    {.stride_bytes = 64, .window_bytes = 131072, .min_accesses = 1, .warmup = 1, .samples = 1,         \
     .seed = 1, .order = HPCB_ORDER_RANDOM, .page_mode = HPCB_PAGES_HUGE}

static int chase_params(PyObject *self, struct glue_call *c, const struct chase_args *a,
                        struct hpcb_chase_params *p)
{
    p->order = a->order;
    p->seed = a->seed;
    p->page_mode = a->page_mode;
    if (GLUE_COUNTS(self, {"buffer_bytes", a->buffer_bytes, &p->buffer_bytes},
                    {"stride_bytes", a->stride_bytes, &p->stride_bytes},
                    {"window_bytes", a->window_bytes, &p->window_bytes},
                    {"min_accesses", a->min_accesses, &p->min_accesses}, {"warmup", a->warmup, &p->warmup},
                    {"samples", a->samples, &p->samples}, {"long_slots", a->long_slots, &p->long_slots}) != 0)
        return -1;
    return glue_sizes(self, c, a->sizes, &p->sizes, &p->nsizes);
}

static char *chase_keywords[] = {"buffer_bytes", "sizes", "stride_bytes", "order", "seed", "window_bytes",
                                 "min_accesses", "warmup", "samples", "page_mode", "long_slots", NULL};

static PyObject *chase_sweep(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct chase_args a = CHASE_DEFAULTS;
    struct glue_call c = {.kernel = GLUE_CHASE, .what = "chase_sweep"};
    struct hpcb_chase_params *p = &c.p.chase;
    struct hpcb_chase_out *o = &c.out.chase;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LO|LiKLLLLiL:chase_sweep", chase_keywords, &a.buffer_bytes,
                                     &a.sizes, &a.stride_bytes, &a.order, &a.seed, &a.window_bytes, &a.min_accesses,
                                     &a.warmup, &a.samples, &a.page_mode, &a.long_slots))
        return NULL;
    if (chase_params(self, &c, &a, p) != 0) {
        glue_call_free(&c);
        return NULL;
    }
    int status = hpcb_chase_check(p, &c.why);
    const struct glue_samples samples[] = {
        {&o->ticks, p->nsizes, p->samples}, {&o->ns, p->nsizes, p->samples}, {&o->accesses, p->nsizes, 0},
        {&o->frames, status == HPCB_OK ? hpcb_chase_pages(p) : 0, 0}};
    return glue_run(self, &c, status, samples, 4, "nd", &o->frames_known, &o->huge_bytes);
}

static PyObject *chase_check(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct chase_args a = CHASE_DEFAULTS;
    struct glue_call c = {.kernel = GLUE_CHASE, .what = "chase_check"};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LO|LiKLLLLiL:chase_check", chase_keywords, &a.buffer_bytes,
                                     &a.sizes, &a.stride_bytes, &a.order, &a.seed, &a.window_bytes, &a.min_accesses,
                                     &a.warmup, &a.samples, &a.page_mode, &a.long_slots))
        return NULL;
    PyObject *verdict = chase_params(self, &c, &a, &c.p.chase) != 0
                            ? NULL
                            : glue_verdict(self, hpcb_chase_check(&c.p.chase, &c.why), &c.why, "chase_check");
    glue_call_free(&c);
    return verdict;
}

/* The load arguments as parsed, with their defaults. */
struct load_args {
    long long buffer_bytes, min_bytes, warmup, samples;
    int page_mode, isa;
    PyObject *sizes;
};

#define LOAD_DEFAULTS \
    {.min_bytes = 1 << 24, .warmup = 1, .samples = 1, .page_mode = HPCB_PAGES_HUGE, .isa = HPCB_ISA_AUTO}

static int load_params(PyObject *self, struct glue_call *c, const struct load_args *a, struct hpcb_load_params *p)
{
    p->page_mode = a->page_mode;
    p->isa = a->isa;
    if (GLUE_COUNTS(self, {"buffer_bytes", a->buffer_bytes, &p->buffer_bytes},
                    {"min_bytes", a->min_bytes, &p->min_bytes}, {"warmup", a->warmup, &p->warmup},
                    {"samples", a->samples, &p->samples}) != 0)
        return -1;
    return glue_sizes(self, c, a->sizes, &p->sizes, &p->nsizes);
}

static char *load_keywords[] = {"buffer_bytes", "sizes", "min_bytes", "warmup", "samples", "page_mode", "isa",
                                NULL};

static PyObject *load_sweep(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct load_args a = LOAD_DEFAULTS;
    struct glue_call c = {.kernel = GLUE_LOAD, .what = "load_sweep"};
    struct hpcb_load_params *p = &c.p.load;
    struct hpcb_load_out *o = &c.out.load;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LO|LLLii:load_sweep", load_keywords, &a.buffer_bytes, &a.sizes,
                                     &a.min_bytes, &a.warmup, &a.samples, &a.page_mode, &a.isa))
        return NULL;
    if (load_params(self, &c, &a, p) != 0) {
        glue_call_free(&c);
        return NULL;
    }
    const struct glue_samples samples[] = {
        {&o->ns, p->nsizes, p->samples}, {&o->ticks, p->nsizes, p->samples}, {&o->bytes, p->nsizes, 0}};
    return glue_run(self, &c, hpcb_load_check(p, &c.why), samples, 3, "n", &o->isa);
}

static PyObject *load_check(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct load_args a = LOAD_DEFAULTS;
    struct glue_call c = {.kernel = GLUE_LOAD, .what = "load_check"};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LO|LLLii:load_check", load_keywords, &a.buffer_bytes, &a.sizes,
                                     &a.min_bytes, &a.warmup, &a.samples, &a.page_mode, &a.isa))
        return NULL;
    PyObject *verdict = load_params(self, &c, &a, &c.p.load) != 0
                            ? NULL
                            : glue_verdict(self, hpcb_load_check(&c.p.load, &c.why), &c.why, "load_check");
    glue_call_free(&c);
    return verdict;
}

static PyObject *load_supported(PyObject *self, PyObject *args)
{
    int isa;
    if (!PyArg_ParseTuple(args, "i:load_supported", &isa))
        return NULL;
    return PyBool_FromLong(hpcb_load_supported(isa));
}

PyMethodDef glue_cache_methods[] = {
    {"chase_sweep", GLUE_KEYWORDS(chase_sweep),
     "chase_sweep(buffer_bytes, sizes, stride_bytes=64, order=ORDER_RANDOM, seed=1, window_bytes=131072,\n"
     "            min_accesses=1, warmup=1, samples=1, page_mode=PAGES_HUGE, long_slots=0)\n"
     "-> (ticks, ns, accesses, frames, frames_known, huge_bytes)\n\n"
     "One buffer, touched in address order; for each size (in the order given) a pure pointer chase\n"
     "through the slots of the first `size` bytes. ticks, ns: (sizes, samples) per access (a size of\n"
     "long_slots slots or more is timed once, warmed by the verifying walk alone, its other samples\n"
     "NaN); accesses:\n"
     "loads per sample; frames: the physical frame of each base page of the buffer (-1 unknown);\n"
     "frames_known: how many are known; huge_bytes: bytes huge pages back (-1 unknown)."},
    {"chase_check", GLUE_KEYWORDS(chase_check),
     "chase_check(buffer_bytes, sizes, stride_bytes=64, ...) -> None: chase_sweep's rules, without running."},
    {"load_sweep", GLUE_KEYWORDS(load_sweep),
     "load_sweep(buffer_bytes, sizes, min_bytes=2**24, warmup=1, samples=1, page_mode=PAGES_HUGE, isa=ISA_AUTO)\n"
     "-> (ns, ticks, bytes, isa)\n\n"
     "Streaming loads over the first `size` bytes of one buffer, whole passes of at least min_bytes per\n"
     "sample. ns, ticks: (sizes, samples) per sample; bytes: read per sample; isa: the loop used."},
    {"load_check", GLUE_KEYWORDS(load_check),
     "load_check(buffer_bytes, sizes, ...) -> None: load_sweep's rules, without running."},
    {"load_supported", load_supported, METH_VARARGS,
     "load_supported(isa) -> bool: whether this CPU runs load_sweep's loop with that instruction set."},
    {NULL, NULL, 0, NULL},
};
