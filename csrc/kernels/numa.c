/* numa.c - one cell of the NUMA matrix; see numa.h. */
#include "numa.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <hwloc/distances.h>

#include "../runtime/memory.h"
#include "../runtime/phase.h"
#include "../runtime/timer.h"
#include "cycle.h"
#include "load.h"

#define LARGEST_BUFFER ((size_t)1 << 40)
#define MOST_REPETITIONS ((size_t)1000000)

static const char *const isa_names[] = {HPCB_ISAS(HPCB_ENUM_NAME)};

int hpcb_numa_check_sizes(const struct hpcb_numa_params *p, struct hpcb_why *why)
{
    int rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    size_t members = p->team.npus > 0 ? p->team.npus : 1;
    if (p->buffer_bytes < 2 * HPCB_NUMA_LINE * members || p->buffer_bytes % (HPCB_NUMA_LINE * members) != 0)
        return hpcb_why_set(why, "buffer_bytes", "must be a multiple of %zu bytes (a %zu-byte line per member, %zu "
                            "member(s)) of at least two lines per member, got %zu", HPCB_NUMA_LINE * members,
                            HPCB_NUMA_LINE, members, p->buffer_bytes);
    if ((rc = hpcb_why_range(why, "buffer_bytes", p->buffer_bytes, 1, LARGEST_BUFFER, " bytes")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "repetitions", p->repetitions, 1, MOST_REPETITIONS, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "chase_bytes", p->chase_bytes, 2 * HPCB_NUMA_LINE, p->buffer_bytes, " bytes")) !=
            HPCB_OK ||
        (rc = hpcb_why_range(why, "warmup", p->warmup, 0, 1000, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "samples", p->samples, 1, MOST_REPETITIONS, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "accesses", p->accesses, 1, LARGEST_BUFFER, "")) != HPCB_OK ||
        (rc = hpcb_cycle_order_check(why, p->order, p->window_bytes, HPCB_NUMA_LINE)) != HPCB_OK ||
        (rc = hpcb_page_mode_check(p->page_mode, why)) != HPCB_OK ||
        (rc = hpcb_why_choice(why, "isa", p->isa, isa_names, HPCB_ISA_COUNT)) != HPCB_OK)
        return rc;
    if (!hpcb_load_supported(p->isa))
        return hpcb_why_set(why, "isa", "must be one this CPU supports, got %s", isa_names[p->isa]);
    if (p->chase_bytes % HPCB_NUMA_LINE != 0)
        return hpcb_why_set(why, "chase_bytes", "must be a multiple of %zu bytes, got %zu", HPCB_NUMA_LINE,
                            p->chase_bytes);
    return HPCB_OK;
}

/* The rule of `node`, naming the nodes there are (at most the first 16). */
static int check_node(unsigned node, hwloc_topology_t topo, struct hpcb_why *why)
{
    if (hwloc_get_numanode_obj_by_os_index(topo, node) != NULL)
        return HPCB_OK;
    char names[160] = "";
    size_t used = 0;
    int shown = 0;
    for (hwloc_obj_t o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, NULL); o != NULL && shown < 16;
         o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o), shown++) {
        int n = snprintf(names + used, sizeof names - used, "%s%u", shown ? ", " : "", o->os_index);
        used += n > 0 && (size_t)n < sizeof names - used ? (size_t)n : 0;
    }
    return hpcb_why_set(why, "node", "must be the OS index of a NUMA node of this machine (%s), got %u", names, node);
}

int hpcb_numa_check(const struct hpcb_numa_params *p, struct hpcb_why *why)
{
    int rc = hpcb_numa_check_sizes(p, why);
    if (rc == HPCB_OK)
        rc = hpcb_team_check(&p->team, why);
    hwloc_topology_t topo;
    if (rc == HPCB_OK && (rc = hpcb_topo_machine(&topo)) == HPCB_OK)
        rc = check_node(p->node, topo, why);
    return rc;
}

/* Bind [data, data + bytes) to `node` before its first touch: strict where
 * the system takes it, else the plain binding (*strict says which). A
 * system without memory binding (ENOSYS) is no error on a machine of one
 * NUMA node, where all memory is that node's: the buffer stays unbound. */
static int bind_area(hwloc_topology_t topo, void *data, size_t bytes, unsigned node, size_t *strict)
{
    hwloc_obj_t obj = hwloc_get_numanode_obj_by_os_index(topo, node);
    if (obj == NULL || obj->nodeset == NULL)
        return HPCB_EHWLOC;
    int flags = HWLOC_MEMBIND_BYNODESET;
    *strict = 1;
    if (hwloc_set_area_membind(topo, data, bytes, obj->nodeset, HWLOC_MEMBIND_BIND, flags | HWLOC_MEMBIND_STRICT) == 0)
        return HPCB_OK;
    *strict = 0;
    if (hwloc_set_area_membind(topo, data, bytes, obj->nodeset, HWLOC_MEMBIND_BIND, flags) == 0)
        return HPCB_OK;
    return errno == ENOSYS && hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) == 1 ? HPCB_OK : HPCB_EHWLOC;
}

/* Where the touched pages are, in up to HPCB_NUMA_LOCATION_CHUNKS chunks:
 * how many chunks hwloc could tell, and how many of them have a page on a
 * node other than `node`. A system that cannot tell (ENOSYS) leaves 0, 0. */
static int locate(hwloc_topology_t topo, const char *data, size_t bytes, unsigned node, struct hpcb_numa_out *out)
{
    hwloc_bitmap_t where = hwloc_bitmap_alloc();
    if (where == NULL)
        return HPCB_ENOMEM;
    size_t chunk = (bytes + HPCB_NUMA_LOCATION_CHUNKS - 1) / HPCB_NUMA_LOCATION_CHUNKS;
    int rc = HPCB_OK;
    out->location_chunks = out->misplaced_chunks = 0;
    for (size_t at = 0; at < bytes; at += chunk) {
        size_t len = bytes - at < chunk ? bytes - at : chunk;
        if (hwloc_get_area_memlocation(topo, data + at, len, where, HWLOC_MEMBIND_BYNODESET) != 0) {
            rc = errno == ENOSYS ? HPCB_OK : HPCB_EHWLOC;
            out->location_chunks = out->misplaced_chunks = 0;
            break;
        }
        out->location_chunks++;
        if (hwloc_bitmap_weight(where) != 1 || !hwloc_bitmap_isset(where, node))
            out->misplaced_chunks++;
    }
    hwloc_bitmap_free(where);
    return rc;
}

/* What the team shares: the job, the bound buffer, each member slice's
 * sums (computed while it is written, before timing), the topology. */
struct numa_job {
    struct hpcb_team_job team;
    uint64_t *data;
    uint64_t (*expected)[8];   /* per member: its slice's sums */
    hwloc_topology_t topo;
    int isa;
};

/* The timed reads of one member; the sums of every repetition checked. */
static int read_slices(struct numa_job *job, size_t member, int rc)
{
    const struct hpcb_numa_params *p = job->team.params;
    struct hpcb_numa_out *out = job->team.out;
    const uint64_t *slice = job->data + member * (out->slice_bytes / sizeof(uint64_t));
    uint64_t got[8];
    for (size_t w = 0; rc == HPCB_OK && w < p->warmup; w++)
        hpcb_load_sum(job->isa, slice, out->slice_bytes, 1, got);
    for (size_t r = 0; r < p->repetitions; r++) {
        if (!hpcb_phase_wait_idle(&job->team.phase, rc == HPCB_OK))
            return rc;
        HPCB_COMPILER_BARRIER();
        uint64_t n0 = hpcb_now_ns();
        hpcb_load_sum(job->isa, slice, out->slice_bytes, 1, got);
        uint64_t n1 = hpcb_now_ns();
        HPCB_COMPILER_BARRIER();
        for (int k = 0; k < 8; k++)
            if (got[k] != job->expected[member][k])
                rc = HPCB_ECHECK;
        size_t at = member * p->repetitions + r;
        out->ns[at] = (double)(n1 - n0);
        out->start_ns[at] = (double)(n0 - out->origin_ns);
        out->end_ns[at] = (double)(n1 - out->origin_ns);
    }
    return rc;
}

/* The timed chase: `steps` dependent loads from `at`; returns where it stops. */
static void *chase(void *at, size_t steps)
{
    void **q = at;
    for (; steps >= 8; steps -= 8) {
        q = *q; q = *q; q = *q; q = *q;
        q = *q; q = *q; q = *q; q = *q;
    }
    for (; steps > 0; steps--)
        q = *q;
    return q;
}

/* Link every line of the first chase_bytes into one cycle, walk it once (the check
 * that it is one, and the warm-up), then time the samples; the chase must
 * end on the slot visit[total steps % slots]. */
static int time_chase(const struct hpcb_numa_params *p, struct hpcb_numa_out *out, char *base)
{
    size_t slots = p->chase_bytes / HPCB_NUMA_LINE;
    size_t *visit = malloc(slots * sizeof *visit);
    if (visit == NULL)
        return HPCB_ENOMEM;
    int rc = hpcb_cycle_order(visit, slots, p->order, p->seed, p->window_bytes / HPCB_NUMA_LINE);
    for (size_t s = 0; rc == HPCB_OK && s < slots; s++)
        *(void **)(base + visit[s] * HPCB_NUMA_LINE) = base + visit[(s + 1) % slots] * HPCB_NUMA_LINE;
    if (rc == HPCB_OK && chase(base, slots) != (void *)base)
        rc = HPCB_ECHECK;
    void *at = base;
    for (size_t j = 0; rc == HPCB_OK && j < p->samples; j++) {
        HPCB_COMPILER_BARRIER();
        uint64_t n0 = hpcb_now_ns();
        at = chase(at, p->accesses);
        uint64_t n1 = hpcb_now_ns();
        HPCB_COMPILER_BARRIER();
        out->latency_ns[j] = (double)(n1 - n0) / (double)p->accesses;
    }
    /* samples * accesses <= 2^60: no overflow. */
    if (rc == HPCB_OK && at != base + visit[(p->samples * p->accesses) % slots] * HPCB_NUMA_LINE)
        rc = HPCB_ECHECK;
    free(visit);
    return rc;
}

/* Fill this member's slice of the bound buffer (its first touch: the
 * binding, not this thread, places the pages, so the members share the
 * work) with distinct words, and keep the slice's sums. */
static void fill_slice(struct numa_job *job, size_t member)
{
    const struct hpcb_numa_out *out = job->team.out;
    size_t per = out->slice_bytes / sizeof(uint64_t), first = member * per;
    uint64_t *slice = job->data + first, *sum = job->expected[member];
    for (size_t i = 0; i < per; i++) {
        slice[i] = (uint64_t)(first + i) * 0x9E3779B97F4A7C15ull + 1;
        sum[i % 8] += slice[i];
    }
}

/* Fill, then (member 0, once every slice is written) read back where the
 * pages are, then the timed reads, then member 0's chase. */
static int numa_member(void *arg, size_t member)
{
    struct numa_job *job = arg;
    const struct hpcb_numa_params *p = job->team.params;
    fill_slice(job, member);
    int rc = HPCB_OK;
    if (hpcb_phase_wait_idle(&job->team.phase, 1) && member == 0)
        rc = locate(job->topo, (const char *)job->data, p->buffer_bytes, p->node, job->team.out);
    rc = read_slices(job, member, rc);
    /* Member 0 chases after every member has read (the last phase); the
     * others are done and sleep in their thread's end. */
    int all_ok = hpcb_phase_wait_idle(&job->team.phase, rc == HPCB_OK);
    if (member == 0 && rc == HPCB_OK && all_ok)
        rc = time_chase(job->team.params, job->team.out, (char *)job->data);
    return rc;
}

int hpcb_numa_run(const struct hpcb_numa_params *p, struct hpcb_numa_out *out)
{
    int rc = hpcb_contract_start(hpcb_numa_check(p, NULL), out != NULL && out->ns != NULL && out->start_ns != NULL &&
                                                              out->end_ns != NULL && out->latency_ns != NULL);
    hwloc_topology_t topo;
    if (rc != HPCB_OK || (rc = hpcb_topo_machine(&topo)) != HPCB_OK)
        return rc;
    struct numa_job job = {.team = {.params = p, .out = out}};
    job.isa = p->isa == HPCB_ISA_AUTO ? hpcb_load_widest() : p->isa;
    out->isa = (size_t)job.isa;
    out->slice_bytes = p->buffer_bytes / p->team.npus;
    struct hpcb_region region = {0};
    if ((rc = hpcb_region_alloc(&region, p->buffer_bytes, p->page_mode)) != HPCB_OK)
        return rc;
    job.data = region.data;
    job.topo = topo;
    job.expected = calloc(p->team.npus, sizeof *job.expected);
    rc = job.expected == NULL ? HPCB_ENOMEM : bind_area(topo, region.data, p->buffer_bytes, p->node, &out->strict);
    if (rc == HPCB_OK) {
        out->origin_ns = hpcb_now_ns();
        rc = hpcb_team_run(&p->team, numa_member, &job, &job.team.phase);
    }
    free(job.expected);
    hpcb_region_free(&region);
    return rc;
}

int hpcb_numa_distances(hwloc_topology_t topo, unsigned *nodes, double *values, size_t cap, size_t *count)
{
    unsigned nr = 1;
    struct hwloc_distances_s *d = NULL;
    *count = 0;
    if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &d, HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0)
        return HPCB_EHWLOC;
    if (nr == 0 || d == NULL)
        return HPCB_OK;
    size_t n = d->nbobjs;
    *count = n;
    for (size_t i = 0; i < n && i < cap; i++) {
        nodes[i] = d->objs[i]->os_index;
        for (size_t j = 0; j < n && j < cap; j++)
            values[i * cap + j] = (double)d->values[i * n + j];
    }
    hwloc_distances_release(topo, d);
    return HPCB_OK;
}
