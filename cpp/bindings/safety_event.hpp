// SafetyEvent fast paths (defined in safety_event.cpp): build and validation (_safety_event_build,
// from_policy_decision, __post_init__), reading a to_dict() payload back, and to_dict().
#pragma once

#include "safety_common.hpp"
#include "safety_ids.hpp"

namespace director_fast::bindings::safety_impl {

// SafetyEvent.from_policy_decision keyword names (interned by _safety_setup).
constexpr int kPolicyArgs = 15;
inline constexpr const char* kPolicyArgNames[kPolicyArgs] = {
    "hook_id", "hook_scope", "policy_decision", "halt_reason", "tenant_safe_explanation",
    "request_id", "tenant_id", "threshold", "observed_score", "latency_ms", "evidence_refs",
    "trace_attribution", "attributes", "event_id", "timestamp"};

PyObject* py_event_build(PyObject*, PyObject* const* args, Py_ssize_t nargs);
PyObject* py_from_policy_decision(PyObject* cls, PyObject* const* args, Py_ssize_t nargs,
                                  PyObject* kwnames);
PyObject* py_event_post_init(PyObject*, PyObject* const* args, Py_ssize_t nargs);
// SafetyEvent payload dict -> new SafetyEvent, or nullptr (declined; maybe an exception set).
PyObject* event_from_payload(PyObject* d);
PyObject* py_event_from_payload(PyObject*, PyObject* const* args, Py_ssize_t nargs);
bool event_slots_ok(PyObject* ev, const char* where);
PyObject* event_to_dict(PyObject* ev);

}  // namespace director_fast::bindings::safety_impl
