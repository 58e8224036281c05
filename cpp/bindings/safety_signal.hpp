// DirectorSafetySignal fast paths (defined in safety_signal.cpp): the __post_init__ checks, build,
// reading a transport dict back, and the writers to_json (canonical JSON straight from the slots)
// and to_transport_dict.
#pragma once

#include "safety_common.hpp"
#include "safety_event.hpp"
#include "safety_json.hpp"

namespace director_fast::bindings::safety_impl {

bool name_ok(PyObject* s, Py_ssize_t max_len);
PyObject* py_signal_build(PyObject*, PyObject* const* args, Py_ssize_t nargs);
PyObject* py_signal_post_init(PyObject*, PyObject* const* args, Py_ssize_t nargs);
// Signal transport dict -> new DirectorSafetySignal, or nullptr (declined).
PyObject* signal_from_payload(PyObject* d);
PyObject* py_signal_from_payload(PyObject*, PyObject* const* args, Py_ssize_t nargs);
PyObject* py_signal_to_json(PyObject*, PyObject* const* args, Py_ssize_t nargs);
PyObject* py_signal_transport_dict(PyObject*, PyObject* const* args, Py_ssize_t nargs);

}  // namespace director_fast::bindings::safety_impl
