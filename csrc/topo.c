/* topo.c - loading topologies and binding threads with hwloc; see topo.h. */
#include "topo.h"

#include <pthread.h>

#include "hpcb.h"

int hpcb_topo_load(hwloc_topology_t *out, int kind, const char *source)
{
    hwloc_topology_t topo;
    if (out == NULL)
        return HPCB_EINVAL;
    if (kind != HPCB_TOPO_THIS_MACHINE && (source == NULL || source[0] == '\0'))
        return HPCB_EINVAL;
    if (hwloc_topology_init(&topo) != 0)
        return HPCB_EHWLOC;

    int rc = 0;
    if (kind == HPCB_TOPO_XML_FILE)
        rc = hwloc_topology_set_xml(topo, source);
    else if (kind == HPCB_TOPO_SYNTHETIC)
        rc = hwloc_topology_set_synthetic(topo, source);
    else if (kind != HPCB_TOPO_THIS_MACHINE)
        rc = -1;
    if (rc != 0 || hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return kind == HPCB_TOPO_THIS_MACHINE ? HPCB_EHWLOC : HPCB_EINVAL;
    }
    *out = topo;
    return HPCB_OK;
}

static pthread_once_t machine_once = PTHREAD_ONCE_INIT;
static hwloc_topology_t machine_topo;
static int machine_status = HPCB_EHWLOC;

static void load_machine(void)
{
    machine_status = hpcb_topo_load(&machine_topo, HPCB_TOPO_THIS_MACHINE, NULL);
}

int hpcb_topo_machine(hwloc_topology_t *out)
{
    if (pthread_once(&machine_once, load_machine) != 0)
        return HPCB_ESYS;
    if (machine_status == HPCB_OK)
        *out = machine_topo;
    return machine_status;
}

int hpcb_bind_thread(const unsigned *pus, size_t npus)
{
    hwloc_topology_t topo;
    int rc = hpcb_topo_machine(&topo);
    if (rc != HPCB_OK)
        return rc;
    if (pus == NULL || npus == 0)
        return HPCB_EINVAL;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set == NULL)
        return HPCB_ENOMEM;
    for (size_t i = 0; i < npus; i++) {
        if (hwloc_get_pu_obj_by_os_index(topo, pus[i]) == NULL) {
            hwloc_bitmap_free(set);
            return HPCB_EINVAL;
        }
        if (hwloc_bitmap_set(set, pus[i]) != 0) {
            hwloc_bitmap_free(set);
            return HPCB_ENOMEM;
        }
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
    if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD) != 0) {
        hwloc_bitmap_free(set);
        return HPCB_EHWLOC;
    }
    /* Keep only PUs hwloc knows about (the set may be "all bits"). */
    hwloc_bitmap_and(set, set, hwloc_topology_get_topology_cpuset(topo));
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
