/* topology.c - glue: hwloc topologies as plain Python data, and thread
 * binding. The Python class hpcbench.topology.Topology is built on this. */
#include "families.h"

#include <stdlib.h>

#include "../runtime/hpcb.h"
#include "../runtime/topo.h"

/* Append `item` (a new reference, or NULL after a failure) to `list` and
 * drop the reference; on failure drop the list too. 0 or -1. */
static int append_new(PyObject *list, PyObject *item)
{
    int rc = item == NULL ? -1 : PyList_Append(list, item);
    Py_XDECREF(item);
    if (rc != 0)
        Py_DECREF(list);
    return rc;
}

/* OS indexes of the PUs in a cpuset, as a Python list. */
static PyObject *cpuset_to_list(hwloc_const_cpuset_t set)
{
    PyObject *list = PyList_New(0);
    if (list == NULL || set == NULL)
        return list;
    int idx;
    hwloc_bitmap_foreach_begin(idx, set) {
        if (append_new(list, PyLong_FromLong(idx)) != 0)
            return NULL;
    }
    hwloc_bitmap_foreach_end();
    return list;
}

static int set_item(PyObject *dict, const char *key, PyObject *value)
{
    if (value == NULL)
        return -1;
    int rc = PyDict_SetItemString(dict, key, value);
    Py_DECREF(value);
    return rc;
}

static PyObject *optional_index(unsigned idx)
{
    if (idx == HWLOC_UNKNOWN_INDEX)
        Py_RETURN_NONE;
    return PyLong_FromUnsignedLong(idx);
}

static PyObject *infos_to_dict(hwloc_obj_t obj)
{
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    for (unsigned i = 0; i < obj->infos_count; i++) {
        if (set_item(d, obj->infos[i].name, PyUnicode_DecodeUTF8(obj->infos[i].value,
                     (Py_ssize_t)strlen(obj->infos[i].value), "replace")) != 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

static const char *cache_kind(hwloc_obj_cache_type_t t)
{
    switch (t) {
    case HWLOC_OBJ_CACHE_DATA: return "data";
    case HWLOC_OBJ_CACHE_INSTRUCTION: return "instruction";
    default: return "unified";
    }
}

static PyObject *describe_object(hwloc_obj_t obj)
{
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    int bad = set_item(d, "type", PyUnicode_FromString(hwloc_obj_type_string(obj->type)))
        || set_item(d, "logical_index", PyLong_FromUnsignedLong(obj->logical_index))
        || set_item(d, "os_index", optional_index(obj->os_index))
        || set_item(d, "gp_index", PyLong_FromUnsignedLongLong(obj->gp_index))
        || set_item(d, "parent", obj->parent ? PyLong_FromUnsignedLongLong(obj->parent->gp_index)
                                             : (Py_INCREF(Py_None), Py_None))
        || set_item(d, "depth", PyLong_FromLong(obj->depth))
        || set_item(d, "cpuset", cpuset_to_list(obj->cpuset))
        || set_item(d, "subtype", obj->subtype ? PyUnicode_FromString(obj->subtype)
                                               : (Py_INCREF(Py_None), Py_None))
        || set_item(d, "infos", infos_to_dict(obj));
    if (!bad && hwloc_obj_type_is_cache(obj->type)) {
        struct hwloc_cache_attr_s *c = &obj->attr->cache;
        bad = set_item(d, "cache_level", PyLong_FromUnsignedLong(c->depth))
            || set_item(d, "cache_size", PyLong_FromUnsignedLongLong(c->size))
            || set_item(d, "cache_linesize", PyLong_FromUnsignedLong(c->linesize))
            || set_item(d, "cache_associativity", PyLong_FromLong(c->associativity))
            || set_item(d, "cache_type", PyUnicode_FromString(cache_kind(c->type)));
    }
    if (!bad && obj->type == HWLOC_OBJ_NUMANODE)
        bad = set_item(d, "local_memory",
                       PyLong_FromUnsignedLongLong(obj->attr->numanode.local_memory));
    if (bad) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* Every object of the types hpcbench reasons about, parents before children. */
static PyObject *describe_topology(hwloc_topology_t topo)
{
    static const hwloc_obj_type_t types[] = {
        HWLOC_OBJ_MACHINE, HWLOC_OBJ_PACKAGE,
#if HWLOC_API_VERSION >= 0x00020100
        HWLOC_OBJ_DIE,
#endif
        HWLOC_OBJ_GROUP, HWLOC_OBJ_NUMANODE,
        HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE,
        HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L3ICACHE, HWLOC_OBJ_L2ICACHE, HWLOC_OBJ_L1ICACHE,
        HWLOC_OBJ_CORE, HWLOC_OBJ_PU,
    };
    PyObject *objects = PyList_New(0);
    if (objects == NULL)
        return NULL;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        for (hwloc_obj_t obj = hwloc_get_next_obj_by_type(topo, types[t], NULL); obj != NULL;
             obj = hwloc_get_next_obj_by_type(topo, types[t], obj))
            if (append_new(objects, describe_object(obj)) != 0)
                return NULL;
    }
    hwloc_obj_t root = hwloc_get_root_obj(topo);
    unsigned v = hwloc_get_api_version();
    PyObject *result = Py_BuildValue(
        "{s:N,s:N,s:N,s:N}", "objects", objects, "infos", infos_to_dict(root),
        "is_this_system", PyBool_FromLong(hwloc_topology_is_thissystem(topo)),
        "hwloc_version", PyUnicode_FromFormat("%u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff));
    return result;
}

static PyObject *describe_with_module(PyObject *module, hwloc_topology_t topo)
{
    return describe_topology(topo);
}

static PyObject *topology_describe(PyObject *self, PyObject *args)
{
    struct hpcb_topo_params p = {.source = NULL};
    if (!PyArg_ParseTuple(args, "i|z:topology_describe", &p.kind, &p.source))
        return NULL;
    return glue_with_topology(self, &p, "topology_describe", describe_with_module);
}

/* The network OS devices of a topology loaded with I/O: [{"name", "kind",
 * "pus"}], "pus" the cpuset of the closest non-I/O ancestor (the package,
 * NUMA node or machine the device is attached to). */
static PyObject *describe_network_devices(hwloc_topology_t topo)
{
    PyObject *list = PyList_New(0);
    for (hwloc_obj_t obj = hwloc_get_next_osdev(topo, NULL); list != NULL && obj != NULL;
         obj = hwloc_get_next_osdev(topo, obj)) {
        hwloc_obj_osdev_type_t t = obj->attr->osdev.type;
        if (t != HWLOC_OBJ_OSDEV_NETWORK && t != HWLOC_OBJ_OSDEV_OPENFABRICS)
            continue;
        hwloc_obj_t place = hwloc_get_non_io_ancestor_obj(topo, obj);
        PyObject *d = Py_BuildValue("{s:s,s:s,s:N}", "name", obj->name ? obj->name : "?", "kind",
                                    t == HWLOC_OBJ_OSDEV_NETWORK ? "network" : "openfabrics", "pus",
                                    cpuset_to_list(place ? place->cpuset : NULL));
        if (append_new(list, d) != 0)
            return NULL;
    }
    return list;
}

static PyObject *devices_with_module(PyObject *module, hwloc_topology_t topo)
{
    return describe_network_devices(topo);
}

static PyObject *network_devices(PyObject *self, PyObject *args)
{
    struct hpcb_topo_params p = {.source = NULL, .io = 1};
    if (!PyArg_ParseTuple(args, "i|z:network_devices", &p.kind, &p.source))
        return NULL;
    return glue_with_topology(self, &p, "network_devices", devices_with_module);
}

static PyObject *bind_thread(PyObject *self, PyObject *args)
{
    PyObject *seq;
    size_t n;
    unsigned *pus;
    struct hpcb_why why = {0};
    if (!PyArg_ParseTuple(args, "O:bind_thread", &seq) || (pus = glue_pu_list(self, seq, &n)) == NULL)
        return NULL;
    int rc = hpcb_bind_check(pus, n, &why);
    if (rc == HPCB_OK)
        rc = hpcb_bind_thread(pus, n);
    free(pus);
    return glue_verdict(self, rc, &why, "bind_thread");
}

static PyObject *thread_binding(PyObject *self, PyObject *noargs)
{
    size_t count = 0, got = 0;
    unsigned *pus = NULL;
    PyObject *list = NULL;
    int rc = hpcb_thread_binding(NULL, 0, &count);   /* how many, then which */
    if (rc == HPCB_OK && (pus = malloc((count ? count : 1) * sizeof *pus)) == NULL)
        rc = HPCB_ENOMEM;
    if (rc == HPCB_OK)
        rc = hpcb_thread_binding(pus, count, &got);
    if (glue_status(self, rc, NULL, "thread_binding") == 0)
        list = PyList_New(0);
    for (size_t i = 0; list != NULL && i < got && i < count; i++)
        if (append_new(list, PyLong_FromUnsignedLong(pus[i])) != 0)
            list = NULL;
    free(pus);
    return list;
}

PyMethodDef glue_topology_methods[] = {
    {"topology_describe", topology_describe, METH_VARARGS,
     "topology_describe(kind, source=None) -> dict of hwloc objects "
     "(kind TOPO_THIS_MACHINE, TOPO_XML_FILE with a path, or TOPO_SYNTHETIC with a description)."},
    {"network_devices", network_devices, METH_VARARGS,
     "network_devices(kind, source=None) -> list of {name, kind, pus}: hwloc's network OS devices and "
     "the PUs of the object each is attached to (the topology loaded with I/O discovery)."},
    {"bind_thread", bind_thread, METH_VARARGS,
     "bind_thread(pus): bind the calling thread to these PU OS indexes."},
    {"thread_binding", thread_binding, METH_NOARGS,
     "thread_binding() -> list of the PU OS indexes the calling thread may use."},
    {NULL, NULL, 0, NULL},
};
