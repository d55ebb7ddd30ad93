/* csrc/python/module.h: creating an extension module and adding its types from one table, shared by the
 * module files of kvec's extensions. */
#ifndef KVEC_MODULE_H
#define KVEC_MODULE_H

#include <Python.h>

typedef struct {
    const char *name;
    PyTypeObject *type;
} ModuleType;

/* The module of `def` with every type of `types` ready and added under its name; NULL on error. */
static inline PyObject *
create_module(struct PyModuleDef *def, const ModuleType *types, size_t n_types)
{
    for (size_t i = 0; i < n_types; i++)
        if (PyType_Ready(types[i].type) < 0) return NULL;
    PyObject *module = PyModule_Create(def);
    if (!module) return NULL;
    for (size_t i = 0; i < n_types; i++) {
        Py_INCREF(types[i].type);
        if (PyModule_AddObject(module, types[i].name, (PyObject *)types[i].type) < 0) {
            Py_DECREF(types[i].type);
            Py_DECREF(module);
            return NULL;
        }
    }
    return module;
}

#endif
