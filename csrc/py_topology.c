/* py_topology.c - glue: hwloc topologies as plain Python data, and thread
 * binding. The Python class hpcbench.topology.Topology is built on this. */
#include "glue.h"

#include <stdlib.h>

#include "hpcb.h"
#include "topo.h"

/* OS indexes of the PUs in a cpuset, as a Python list. */
static PyObject *cpuset_to_list(hwloc_const_cpuset_t set)
{
    PyObject *list = PyList_New(0);
    if (list == NULL || set == NULL)
        return list;
    int idx;
    hwloc_bitmap_foreach_begin(idx, set) {
        PyObject *v = PyLong_FromLong(idx);
        if (v == NULL || PyList_Append(list, v) != 0) {
            Py_XDECREF(v);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(v);
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
             obj = hwloc_get_next_obj_by_type(topo, types[t], obj)) {
            PyObject *d = describe_object(obj);
            if (d == NULL || PyList_Append(objects, d) != 0) {
                Py_XDECREF(d);
                Py_DECREF(objects);
                return NULL;
            }
            Py_DECREF(d);
        }
    }
    hwloc_obj_t root = hwloc_get_root_obj(topo);
    unsigned v = hwloc_get_api_version();
    PyObject *result = Py_BuildValue(
        "{s:N,s:N,s:N,s:N}", "objects", objects, "infos", infos_to_dict(root),
        "is_this_system", PyBool_FromLong(hwloc_topology_is_thissystem(topo)),
        "hwloc_version", PyUnicode_FromFormat("%u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff));
    return result;
}

static PyObject *topology_describe(PyObject *self, PyObject *args)
{
    int kind;
    const char *source = NULL;
    if (!PyArg_ParseTuple(args, "i|z", &kind, &source))
        return NULL;
    if (kind != HPCB_TOPO_THIS_MACHINE && kind != HPCB_TOPO_XML_FILE &&
        kind != HPCB_TOPO_SYNTHETIC) {
        PyErr_Format(PyExc_ValueError, "topology source kind must be 0, 1 or 2, got %d", kind);
        return NULL;
    }
    if (kind == HPCB_TOPO_THIS_MACHINE) {
        hwloc_topology_t topo;
        int rc = hpcb_topo_machine(&topo);
        if (rc != HPCB_OK)
            return hpcb_raise(rc, "loading this machine's topology");
        return describe_topology(topo);
    }
    if (source == NULL || source[0] == '\0') {
        PyErr_SetString(PyExc_ValueError, "a topology file or description must not be empty");
        return NULL;
    }
    hwloc_topology_t topo;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_topo_load(&topo, kind, source);
    Py_END_ALLOW_THREADS
    if (rc != HPCB_OK) {
        PyErr_Format(PyExc_ValueError, "hwloc could not load the %s %s",
                     kind == HPCB_TOPO_XML_FILE ? "XML topology file" : "synthetic topology",
                     source);
        return NULL;
    }
    PyObject *result = describe_topology(topo);
    hwloc_topology_destroy(topo);
    return result;
}

static PyObject *bind_thread(PyObject *self, PyObject *args)
{
    PyObject *seq;
    if (!PyArg_ParseTuple(args, "O", &seq))
        return NULL;
    Py_ssize_t n;
    unsigned *pus = hpcb_parse_pus(seq, "bind_thread", PY_SSIZE_T_MAX, &n);
    if (pus == NULL)
        return NULL;
    int rc = hpcb_bind_thread(pus, (size_t)n);
    free(pus);
    if (rc == HPCB_EINVAL) {
        PyErr_SetString(PyExc_ValueError, "bind_thread: a PU index is not on this machine");
        return NULL;
    }
    if (rc != HPCB_OK)
        return hpcb_raise(rc, "bind_thread");
    Py_RETURN_NONE;
}

static PyObject *thread_binding(PyObject *self, PyObject *noargs)
{
    size_t count = 0;
    int rc = hpcb_thread_binding(NULL, 0, &count);
    if (rc != HPCB_OK)
        return hpcb_raise(rc, "thread_binding");
    unsigned *pus = malloc((count ? count : 1) * sizeof *pus);
    if (pus == NULL)
        return PyErr_NoMemory();
    size_t got = 0;
    rc = hpcb_thread_binding(pus, count, &got);
    if (rc != HPCB_OK) {
        free(pus);
        return hpcb_raise(rc, "thread_binding");
    }
    if (got > count)
        got = count;
    PyObject *list = PyList_New((Py_ssize_t)got);
    for (size_t i = 0; list != NULL && i < got; i++)
        PyList_SET_ITEM(list, (Py_ssize_t)i, PyLong_FromUnsignedLong(pus[i]));
    free(pus);
    return list;
}

PyMethodDef hpcb_topology_methods[] = {
    {"topology_describe", topology_describe, METH_VARARGS,
     "topology_describe(kind, source=None) -> dict of hwloc objects "
     "(kind 0: this machine, 1: XML file, 2: synthetic string)."},
    {"bind_thread", bind_thread, METH_VARARGS,
     "bind_thread(pus): bind the calling thread to these PU OS indexes."},
    {"thread_binding", thread_binding, METH_NOARGS,
     "thread_binding() -> list of the PU OS indexes the calling thread may use."},
    {NULL, NULL, 0, NULL},
};
