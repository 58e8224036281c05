// SafetyEvent fast paths (see safety_event.hpp): the __post_init__ value checks, the build /
// from_policy_decision / post_init / from_payload entry points, and to_dict().
#include "safety_event.hpp"

#include <vector>

namespace director_fast::bindings::safety_impl {

namespace {
// Optional number in [0, hi]: None, a float, or an int (not bool) -- unchanged on success.
bool number_ok(PyObject* v, double hi) {
  if (v == Py_None) return true;
  double x;
  if (PyFloat_CheckExact(v)) {
    x = PyFloat_AS_DOUBLE(v);
  } else if (PyLong_CheckExact(v)) {
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow != 0 || i < 0 || i > (1LL << 53)) return false;
    x = static_cast<double>(i);
  } else {
    return false;
  }
  return x >= 0.0 && x <= hi;  // NaN fails
}

// ---- SafetyEvent ------------------------------------------------------------------------------
// Checks the 16 values (dataclass order) with the SafetyEvent.__post_init__ rules. On success
// returns true and leaves in `out` the values to store (evidence_refs as a tuple, attributes as
// a fresh dict; new references). Returns false (no exception set) to decline.
struct Values {
  PyObject* v[kEventFields] = {};
  ~Values() {
    for (PyObject*& o : v) Py_CLEAR(o);
  }
};

bool event_values_ok(PyObject* const* in, Values& out) {
  PyObject* schema = in[E_SCHEMA];
  if (!is_str(schema) || !ascii_eq(schema, kEventSchema)) return false;
  for (int f : {E_EVENT_ID, E_TIMESTAMP, E_REQUEST_ID, E_TENANT_ID, E_HOOK_ID, E_HOOK_SCOPE,
                E_POLICY, E_REASON, E_EXPLANATION})
    if (!is_str(in[f])) return false;
  if (!is_event_id(in[E_EVENT_ID]) || !is_timestamp(in[E_TIMESTAMP])) return false;
  if (slen(in[E_REQUEST_ID]) > 128 || slen(in[E_TENANT_ID]) > 128) return false;
  if (!is_hook_id(in[E_HOOK_ID])) return false;
  const int scope = index_in(in[E_HOOK_SCOPE], kHookScopes);
  const int decision = index_in(in[E_POLICY], kDecisions);
  if (scope < 0 || decision < 0) return false;
  PyObject* reason = in[E_REASON];
  PyObject* expl = in[E_EXPLANATION];
  if (slen(reason) < 1 || slen(reason) > 256 || !nonblank(reason)) return false;
  if (slen(expl) < 1 || slen(expl) > 1024 || !nonblank(expl)) return false;
  if (!number_ok(in[E_THRESHOLD], 1.0) || !number_ok(in[E_OBSERVED], 1.5) ||
      !number_ok(in[E_LATENCY], 1e12))
    return false;
  PyObject* refs = in[E_REFS];
  PyObject* refs_tuple;
  if (PyTuple_CheckExact(refs)) {
    Py_INCREF(refs);
    refs_tuple = refs;
  } else if (PyList_CheckExact(refs)) {
    refs_tuple = PyList_AsTuple(refs);
    if (refs_tuple == nullptr) return false;
  } else {
    return false;
  }
  out.v[E_REFS] = refs_tuple;
  const Py_ssize_t nrefs = PyTuple_GET_SIZE(refs_tuple);
  if (nrefs > 64) return false;
  for (Py_ssize_t i = 0; i < nrefs; ++i) {
    PyObject* r = PyTuple_GET_ITEM(refs_tuple, i);
    if (!is_str(r) || slen(r) < 1 || slen(r) > 512) return false;
  }
  PyObject* attrs = in[E_ATTRS];
  if (!PyDict_CheckExact(attrs) || PyDict_GET_SIZE(attrs) > 64) return false;
  Py_ssize_t pos = 0;
  PyObject *k, *val;
  while (PyDict_Next(attrs, &pos, &k, &val)) {
    if (!is_str(k) || !is_attr_key(k) || !is_str(val) || slen(val) > 512) return false;
  }
  PyObject* trace = in[E_TRACE];
  // a subclass may override the fields with properties: only the exact class is read by slot
  if (trace != Py_None && Py_TYPE(trace) != g.trace_cls) return false;
  // control characters and tenant-safety rules
  if (!text_ok(reason, false) || !text_ok(expl, false) || !text_ok(in[E_HOOK_ID], false))
    return false;
  if (!text_ok(in[E_REQUEST_ID], false) || !text_ok(in[E_TENANT_ID], false)) return false;
  for (Py_ssize_t i = 0; i < nrefs; ++i)
    if (!text_ok(PyTuple_GET_ITEM(refs_tuple, i), false)) return false;
  pos = 0;
  while (PyDict_Next(attrs, &pos, &k, &val))
    if (!text_ok(k, true) || !text_ok(val, false)) return false;
  if (trace != Py_None) {
    for (Py_ssize_t d : g.trace_descr) {
      PyObject* t = slot_get(d, trace);
      if (t == nullptr) {
        PyErr_Clear();
        return false;
      }
      const bool ok = is_str(t) && text_ok(t, false);
      Py_DECREF(t);
      if (!ok) return false;
    }
  }
  PyObject* attrs_copy = PyDict_Copy(attrs);
  if (attrs_copy == nullptr) return false;
  out.v[E_ATTRS] = attrs_copy;
  for (int f = 0; f < kEventFields; ++f) {
    if (out.v[f] == nullptr) {
      PyObject* o = in[f];
      // share the interned constants (equal values; saves memory and speeds up comparisons)
      if (f == E_SCHEMA) o = g.event_schema;
      else if (f == E_HOOK_SCOPE) o = g.scopes[scope];
      else if (f == E_POLICY) o = g.decisions[decision];
      Py_INCREF(o);
      out.v[f] = o;
    }
  }
  return true;
}

}  // namespace

// _safety_event_build(event_id, timestamp, request_id, tenant_id, hook_id, hook_scope,
//   policy_decision, halt_reason, threshold, observed_score, latency_ms, evidence_refs,
//   tenant_safe_explanation, trace_attribution, attributes) -> SafetyEvent | None
PyObject* py_event_build(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_ready()) return nullptr;
  if (nargs != kEventFields - 1) {
    PyErr_SetString(PyExc_TypeError, "_safety_event_build expects 15 arguments");
    return nullptr;
  }
  PyObject* in[kEventFields];
  for (int f = 0; f < kEventFields - 1; ++f) in[f] = args[f];
  in[E_SCHEMA] = g.event_schema;
  PyObject* eid = id_or_new(args[E_EVENT_ID], "sevt_", false);
  if (eid == nullptr) return decline();
  PyObject* ts = id_or_new(args[E_TIMESTAMP], "", true);
  if (ts == nullptr) {
    Py_DECREF(eid);
    return decline();
  }
  in[E_EVENT_ID] = eid;
  in[E_TIMESTAMP] = ts;
  PyObject* attrs_default = nullptr;
  if (in[E_ATTRS] == Py_None) in[E_ATTRS] = attrs_default = PyDict_New();
  Values out;
  PyObject* result = nullptr;
  if (in[E_ATTRS] != nullptr && event_values_ok(in, out))
    result = build(g.event_cls, g.event_descr, out.v, kEventFields);
  Py_DECREF(eid);
  Py_DECREF(ts);
  Py_XDECREF(attrs_default);
  if (result != nullptr) return result;
  return decline();
}

// SafetyEvent.from_policy_decision(cls, *, hook_id, hook_scope, policy_decision, halt_reason,
//   tenant_safe_explanation, request_id="", tenant_id="", threshold=None, observed_score=None,
//   latency_ms=None, evidence_refs=(), trace_attribution=None, attributes=None, event_id=None,
//   timestamp=None): keyword arguments parsed here, validated and built in one step; any call the
// fast path declines (unknown / missing / positional arguments, a subclass, invalid or unusual
// values) is forwarded unchanged to the Python implementation, which raises the documented errors.
namespace {
// position of each keyword in _safety_event_build's argument list
constexpr int kPolicyToBuild[kPolicyArgs] = {E_HOOK_ID, E_HOOK_SCOPE, E_POLICY, E_REASON,
                                             E_EXPLANATION, E_REQUEST_ID, E_TENANT_ID, E_THRESHOLD,
                                             E_OBSERVED, E_LATENCY, E_REFS, E_TRACE, E_ATTRS,
                                             E_EVENT_ID, E_TIMESTAMP};
}  // namespace

PyObject* py_from_policy_decision(PyObject* cls, PyObject* const* args, Py_ssize_t nargs,
                                  PyObject* kwnames) {
  if (!check_ready()) return nullptr;
  auto forward = [&]() -> PyObject* {
    // the Python implementation is a plain function of (cls, *args, **kwargs)
    const Py_ssize_t nkw = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
    std::vector<PyObject*> full(static_cast<std::size_t>(1 + nargs + nkw));
    full[0] = cls;
    for (Py_ssize_t k = 0; k < nargs + nkw; ++k) full[static_cast<std::size_t>(1 + k)] = args[k];
    return PyObject_Vectorcall(g.from_policy_py, full.data(), static_cast<std::size_t>(1 + nargs),
                               kwnames);
  };
  if (nargs != 0 || cls != reinterpret_cast<PyObject*>(g.event_cls) || kwnames == nullptr)
    return forward();
  PyObject* vals[kEventFields - 1];
  for (int f = 0; f < kEventFields - 1; ++f) vals[f] = nullptr;
  const Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, k);
    int found = -1;
    for (int a = 0; a < kPolicyArgs && found < 0; ++a)
      if (name == g.policy_arg_names[a]) found = a;
    for (int a = 0; a < kPolicyArgs && found < 0; ++a)
      if (PyUnicode_Compare(name, g.policy_arg_names[a]) == 0) found = a;
    if (found < 0 || vals[kPolicyToBuild[found]] != nullptr) {
      PyErr_Clear();
      return forward();
    }
    vals[kPolicyToBuild[found]] = args[k];
  }
  for (int a = 0; a < 5; ++a)  // the required keywords
    if (vals[kPolicyToBuild[a]] == nullptr) return forward();
  if (vals[E_REQUEST_ID] == nullptr) vals[E_REQUEST_ID] = g.empty_str;
  if (vals[E_TENANT_ID] == nullptr) vals[E_TENANT_ID] = g.empty_str;
  if (vals[E_REFS] == nullptr) vals[E_REFS] = g.empty_tuple;
  for (PyObject*& v : vals)
    if (v == nullptr) v = Py_None;
  PyObject* ev = py_event_build(nullptr, vals, kEventFields - 1);
  if (ev == nullptr) return nullptr;  // MemoryError / OSError
  if (ev != Py_None) return ev;
  Py_DECREF(ev);
  return forward();
}

// _safety_event_post_init(event) -> bool: validates a constructed event; on success stores the
// copied attributes and returns True. False: run the Python checks.
PyObject* py_event_post_init(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_ready()) return nullptr;
  if (nargs != 1) return PyErr_Format(PyExc_TypeError, "_safety_event_post_init expects 1 argument");
  PyObject* self = args[0];
  PyObject* in[kEventFields] = {};
  bool ok = slots_get(g.event_descr, kEventFields, self, in);
  Values out;
  if (ok) ok = PyTuple_CheckExact(in[E_REFS]) && event_values_ok(in, out);
  if (ok) ok = slot_set(g.event_descr[E_ATTRS], self, out.v[E_ATTRS]) == 0;
  for (PyObject* o : in) Py_XDECREF(o);
  return checked_or_declined(ok);
}

namespace {

// SafetyEvent payload dict -> new SafetyEvent, or nullptr (declined; maybe an exception set).
// to_dict() key order as field indices (the order a payload built by to_dict() iterates in).
constexpr int kDictOrder[kEventFields] = {
    E_SCHEMA, E_EVENT_ID, E_TIMESTAMP, E_REQUEST_ID, E_TENANT_ID, E_HOOK_ID,
    E_HOOK_SCOPE, E_POLICY, E_REASON, E_THRESHOLD, E_OBSERVED, E_LATENCY,
    E_REFS, E_EXPLANATION, E_TRACE, E_ATTRS};

}  // namespace

// SafetyEvent payload dict -> new SafetyEvent, or nullptr (declined; maybe an exception set).
PyObject* event_from_payload(PyObject* d) {
  PyObject* in[kEventFields];
  if (!fill_by_identity(d, g.event_keys, kEventFields, kDictOrder, in)) {
    if (!exact_keys(d, g.event_keys)) return nullptr;
    for (int f = 0; f < kEventFields; ++f) in[f] = item(d, g.event_keys[f]);
  }
  // hold the values: the trace helper below runs Python code
  struct Hold {
    PyObject** v;
    explicit Hold(PyObject** vals) : v(vals) {
      for (int f = 0; f < kEventFields; ++f) Py_INCREF(v[f]);
    }
    ~Hold() {
      for (int f = 0; f < kEventFields; ++f) Py_DECREF(v[f]);
    }
  } hold(in);
  // pre-checks of validate_safety_event_payload (types the constructor would convert)
  if (!PyList_CheckExact(in[E_REFS]) && !PyTuple_CheckExact(in[E_REFS])) return nullptr;
  PyObject* vals[kEventFields];
  for (int f = 0; f < kEventFields; ++f) vals[f] = in[f];
  PyObject* built_trace = nullptr;
  if (in[E_TRACE] != Py_None) {
    built_trace = PyObject_CallOneArg(g.trace_from_payload, in[E_TRACE]);
    if (built_trace == nullptr) return nullptr;
    vals[E_TRACE] = built_trace;
  }
  Values out;
  PyObject* result = nullptr;
  if (event_values_ok(vals, out)) result = build(g.event_cls, g.event_descr, out.v, kEventFields);
  Py_XDECREF(built_trace);
  return result;
}

PyObject* py_event_from_payload(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_ready()) return nullptr;
  if (nargs != 1) return PyErr_Format(PyExc_TypeError, "_safety_event_from_payload expects 1 argument");
  PyObject* ev = event_from_payload(args[0]);
  return ev != nullptr ? ev : decline();
}

// SafetyEvent -> to_dict() (same keys, order and values as the Python method).
// A tampered instance (slots rewritten with object.__setattr__, or a crafted pickle) is never
// serialised by the fast paths: the container slots they rely on are checked first, and anything
// else raises TypeError naming the slot instead of reaching undefined behaviour.
bool event_slots_ok(PyObject* ev, const char* where) {
  if (!PyObject_TypeCheck(ev, g.event_cls)) {
    PyErr_Format(PyExc_TypeError, "%s: event is not a SafetyEvent", where);
    return false;
  }
  PyObject* a = slot_get(g.event_descr[E_ATTRS], ev);
  if (a == nullptr) return false;
  PyObject* r = slot_get(g.event_descr[E_REFS], ev);
  if (r == nullptr) {
    Py_DECREF(a);
    return false;
  }
  const bool attrs_ok = PyDict_Check(a);
  const bool refs_ok = PyTuple_Check(r) || PyList_Check(r);
  Py_DECREF(a);
  Py_DECREF(r);
  if (!attrs_ok || !refs_ok) {
    PyErr_Format(PyExc_TypeError,
                 "%s: SafetyEvent.%s has the wrong type (the instance was modified after validation)",
                 where, attrs_ok ? "evidence_refs" : "attributes");
    return false;
  }
  return true;
}

PyObject* event_to_dict(PyObject* ev) {
  if (!event_slots_ok(ev, "SafetyEvent.to_dict")) return nullptr;
  PyObject* v[kEventFields];
  if (!slots_get(g.event_descr, kEventFields, ev, v)) return nullptr;
  PyObject* d = nullptr;
  PyObject* refs = PySequence_List(v[E_REFS]);
  PyObject* attrs = refs ? PyDict_Copy(v[E_ATTRS]) : nullptr;
  PyObject* trace = nullptr;
  if (attrs != nullptr) {
    if (v[E_TRACE] == Py_None) {
      Py_INCREF(Py_None);
      trace = Py_None;
    } else {
      trace = PyObject_CallMethodNoArgs(v[E_TRACE], g.str_to_dict);
    }
  }
  if (trace != nullptr) {
    // a copy of the key template (the 16 keys in to_dict() order) is a flat memcpy; the values
    // are then replaced in place
    d = PyDict_Copy(g.event_dict_template);
    for (int f = 0; f < kEventFields; ++f) {
      if (d == nullptr) break;
      PyObject* val = f == E_REFS ? refs : f == E_ATTRS ? attrs : f == E_TRACE ? trace : v[f];
      if (PyDict_SetItem(d, g.event_keys[f], val) < 0) Py_CLEAR(d);
    }
  }
  Py_XDECREF(refs);
  Py_XDECREF(attrs);
  Py_XDECREF(trace);
  for (PyObject* o : v) Py_DECREF(o);
  return d;
}

}  // namespace director_fast::bindings::safety_impl
