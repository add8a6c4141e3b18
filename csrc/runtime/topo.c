/* topo.c - loading topologies and binding threads with hwloc; see topo.h. */
#include "topo.h"

#include <pthread.h>

#include "hpcb.h"

static const char *const kinds[] = {HPCB_TOPO_SOURCES(HPCB_ENUM_NAME)};

int hpcb_topo_check(const struct hpcb_topo_params *p, struct hpcb_why *why)
{
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    int rc = hpcb_why_choice(why, "kind", p->kind, kinds, HPCB_TOPO_SOURCE_COUNT);
    if (rc != HPCB_OK)
        return rc;
    if (p->kind != HPCB_TOPO_THIS_MACHINE && (p->source == NULL || p->source[0] == '\0'))
        return hpcb_why_set(why, "source", "must be a non-empty XML path or synthetic description, got %s",
                            p->source == NULL ? "None" : "an empty string");
    return HPCB_OK;
}

int hpcb_topo_load(const struct hpcb_topo_params *p, hwloc_topology_t *out)
{
    hwloc_topology_t topo;
    if (out == NULL || hpcb_topo_check(p, NULL) != HPCB_OK)
        return HPCB_EINVAL;
    if (hwloc_topology_init(&topo) != 0)
        return HPCB_EHWLOC;

    int rc = 0;
    if (p->io && hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0) {
        hwloc_topology_destroy(topo);
        return HPCB_EHWLOC;
    }
    if (p->kind == HPCB_TOPO_XML_FILE)
        rc = hwloc_topology_set_xml(topo, p->source);
    else if (p->kind == HPCB_TOPO_SYNTHETIC)
        rc = hwloc_topology_set_synthetic(topo, p->source);
    if (rc != 0 || hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return p->kind == HPCB_TOPO_THIS_MACHINE ? HPCB_EHWLOC : HPCB_EINVAL;
    }
    *out = topo;
    return HPCB_OK;
}

static pthread_once_t machine_once = PTHREAD_ONCE_INIT;
static hwloc_topology_t machine_topo;
static int machine_status = HPCB_EHWLOC;

static void load_machine(void)
{
    struct hpcb_topo_params p = {.kind = HPCB_TOPO_THIS_MACHINE};
    machine_status = hpcb_topo_load(&p, &machine_topo);
}

int hpcb_topo_machine(hwloc_topology_t *out)
{
    if (pthread_once(&machine_once, load_machine) != 0)
        return HPCB_ESYS;
    if (machine_status == HPCB_OK)
        *out = machine_topo;
    return machine_status;
}

int hpcb_topo_check_pus(const unsigned *pus, size_t npus, struct hpcb_why *why)
{
    hwloc_topology_t topo;
    int rc = hpcb_topo_machine(&topo);
    if (rc != HPCB_OK)
        return rc;
    if (pus == NULL && npus > 0)
        return hpcb_why_set(why, "pus", "must point to %zu PU indexes, got NULL", npus);
    for (size_t i = 0; i < npus; i++)
        if (hwloc_get_pu_obj_by_os_index(topo, pus[i]) == NULL)
            return hpcb_why_set(why, "pus", "must be PUs of this machine: PU %u is not one (or is not allowed "
                                "to this process)", pus[i]);
    return HPCB_OK;
}

int hpcb_bind_check(const unsigned *pus, size_t npus, struct hpcb_why *why)
{
    if (npus == 0)
        return hpcb_why_set(why, "pus", "must list at least one PU, got none");
    return hpcb_topo_check_pus(pus, npus, why);
}

int hpcb_bind_thread(const unsigned *pus, size_t npus)
{
    int rc = hpcb_bind_check(pus, npus, NULL);
    if (rc != HPCB_OK)
        return rc;
    hwloc_topology_t topo;
    rc = hpcb_topo_machine(&topo);
    if (rc != HPCB_OK)
        return rc;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set == NULL)
        return HPCB_ENOMEM;
    for (size_t i = 0; i < npus; i++)
        if (hwloc_bitmap_set(set, pus[i]) != 0) {
            hwloc_bitmap_free(set);
            return HPCB_ENOMEM;
        }
    rc = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD) == 0 ? HPCB_OK : HPCB_EBIND;
    hwloc_bitmap_free(set);
    return rc;
}

int hpcb_thread_binding(unsigned *pus, size_t cap, size_t *count)
{
    hwloc_topology_t topo;
    int rc = hpcb_topo_machine(&topo);
    if (rc != HPCB_OK)
        return rc;
    if (count == NULL || (pus == NULL && cap > 0))
        return HPCB_EINVAL;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set == NULL)
        return HPCB_ENOMEM;
    /* Keep only PUs hwloc knows about (the set may be "all bits"). */
    if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD) != 0 ||
        hwloc_bitmap_and(set, set, hwloc_topology_get_topology_cpuset(topo)) != 0) {
        hwloc_bitmap_free(set);
        return HPCB_EHWLOC;
    }
    size_t n = 0;
    int idx;
    hwloc_bitmap_foreach_begin(idx, set) {
        if (n < cap)
            pus[n] = (unsigned)idx;
        n++;
    }
    hwloc_bitmap_foreach_end();
    hwloc_bitmap_free(set);
    *count = n;
    return HPCB_OK;
}
