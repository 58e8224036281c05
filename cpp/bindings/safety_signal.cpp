// DirectorSafetySignal fast paths (see safety_signal.hpp): signal checks and build, payload
// reading, to_json and to_transport_dict.
#include "safety_signal.hpp"

#include <string>
#include <string_view>
#include <utility>

namespace director_fast::bindings::safety_impl {

// ---- DirectorSafetySignal ---------------------------------------------------------------------
bool name_ok(PyObject* s, Py_ssize_t max_len) {
  return is_str(s) && slen(s) >= 1 && slen(s) <= max_len && nonblank(s) && text_ok(s, false);
}

namespace {
// The default schema_ref (DIRECTOR_SAFETY_PROTOCOL_SCHEMA_REF) is checked once by
// _safety_setup_signal; a value equal to it is therefore valid without re-running the rules.
bool schema_ref_ok(PyObject* s) {
  if (g.default_schema_ref != nullptr && is_str(s) &&
      (s == g.default_schema_ref || PyUnicode_Compare(s, g.default_schema_ref) == 0))
    return true;
  return name_ok(s, 256);
}

// Checks the 8 signal values with the DirectorSafetySignal.__post_init__ rules; `ext_copy`
// receives a fresh dict copy of the extensions on success.
bool signal_values_ok(PyObject* const* in, PyObject** ext_copy) {
  if (!is_str(in[S_PROTOCOL]) || !ascii_eq(in[S_PROTOCOL], kProtocol)) return false;
  if (!is_str(in[S_ID]) || !is_signal_id(in[S_ID])) return false;
  if (!is_str(in[S_EMITTED]) || !is_timestamp(in[S_EMITTED])) return false;
  if (!name_ok(in[S_PRODUCER], 128) || !name_ok(in[S_FRAMEWORK], 128) ||
      !schema_ref_ok(in[S_SCHEMA_REF]))
    return false;
  if (!PyObject_TypeCheck(in[S_EVENT], g.event_cls)) return false;
  PyObject* ext = in[S_EXT];
  if (!PyDict_CheckExact(ext) || PyDict_GET_SIZE(ext) > 64) return false;
  Py_ssize_t pos = 0;
  PyObject *k, *v;
  while (PyDict_Next(ext, &pos, &k, &v))
    if (!is_str(k) || !is_attr_key(k) || !is_str(v) || slen(v) > 512) return false;
  pos = 0;
  while (PyDict_Next(ext, &pos, &k, &v))
    if (!text_ok(k, true) || !text_ok(v, false)) return false;
  *ext_copy = PyDict_Copy(ext);
  return *ext_copy != nullptr;
}

PyObject* build_signal(PyObject* const* in) {
  PyObject* ext = nullptr;
  if (!signal_values_ok(in, &ext)) return nullptr;
  PyObject* vals[kSignalFields];
  for (int f = 0; f < kSignalFields; ++f) vals[f] = in[f];
  vals[S_EXT] = ext;
  vals[S_PROTOCOL] = g.protocol;
  PyObject* sig = build(g.signal_cls, g.signal_descr, vals, kSignalFields);
  Py_DECREF(ext);
  return sig;
}

}  // namespace

// _safety_signal_build(signal_id, emitted_at, producer_id, framework, event, schema_ref,
//   extensions) -> DirectorSafetySignal | None
PyObject* py_signal_build(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_ready() || !check_signal_ready()) return nullptr;
  if (nargs != 7) return PyErr_Format(PyExc_TypeError, "_safety_signal_build expects 7 arguments");
  PyObject* sid = id_or_new(args[0], "dsp_", false);
  if (sid == nullptr) return decline();
  PyObject* ts = id_or_new(args[1], "", true);
  if (ts == nullptr) {
    Py_DECREF(sid);
    return decline();
  }
  PyObject* ext_default = nullptr;
  PyObject* ext = args[6];
  if (ext == Py_None) ext = ext_default = PyDict_New();
  PyObject* in[kSignalFields] = {sid, ts, args[2], args[3], args[4], g.protocol, args[5], ext};
  PyObject* sig = ext != nullptr ? build_signal(in) : nullptr;
  Py_DECREF(sid);
  Py_DECREF(ts);
  Py_XDECREF(ext_default);
  return sig != nullptr ? sig : decline();
}

PyObject* py_signal_post_init(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_ready() || !check_signal_ready()) return nullptr;
  if (nargs != 1) return PyErr_Format(PyExc_TypeError, "_safety_signal_post_init expects 1 argument");
  PyObject* self = args[0];
  PyObject* in[kSignalFields] = {};
  bool ok = slots_get(g.signal_descr, kSignalFields, self, in);
  PyObject* ext = nullptr;
  if (ok) ok = signal_values_ok(in, &ext);
  if (ok) ok = slot_set(g.signal_descr[S_EXT], self, ext) == 0;
  Py_XDECREF(ext);
  for (PyObject* o : in) Py_XDECREF(o);
  return checked_or_declined(ok);
}

// Signal transport dict -> new DirectorSafetySignal, or nullptr (declined).
PyObject* signal_from_payload(PyObject* d) {
  PyObject* tv[11];
  if (!fill_by_identity(d, g.top_keys, 11, nullptr, tv)) {
    if (!exact_keys(d, g.top_keys)) return nullptr;
    for (int i = 0; i < 11; ++i) tv[i] = item(d, g.top_keys[i]);
  }
  // hold the values: validating the event may run Python code (the trace helper)
  struct Hold {
    PyObject** v;
    explicit Hold(PyObject** vals) : v(vals) {
      for (int i = 0; i < 11; ++i) Py_INCREF(v[i]);
    }
    ~Hold() {
      for (int i = 0; i < 11; ++i) Py_DECREF(v[i]);
    }
  } hold(tv);
  auto top = [&](int i) { return tv[i]; };
  // order of kTopKeys: protocol_version, schema_ref, signal_id, emitted_at, producer_id,
  // framework, event_schema_version, event, interoperability, privacy, extensions
  PyObject* pv = top(0);
  if (!is_str(pv) || !ascii_eq(pv, kProtocol)) return nullptr;
  PyObject* esv = top(6);
  if (!is_str(esv) || !ascii_eq(esv, kEventSchema)) return nullptr;
  PyObject* privacy = top(9);
  if (!exact_keys(privacy, g.privacy_keys)) return nullptr;
  PyObject* cls = item(privacy, g.privacy_keys[0]);
  if (!is_str(cls) || !ascii_eq(cls, "tenant_safe")) return nullptr;
  if (item(privacy, g.privacy_keys[1]) != Py_False) return nullptr;
  PyObject* red = item(privacy, g.privacy_keys[2]);
  if (!PyList_CheckExact(red) && !PyTuple_CheckExact(red)) return nullptr;
  if (PySequence_Fast_GET_SIZE(red) != 5) return nullptr;
  PyObject** items = PySequence_Fast_ITEMS(red);
  for (int i = 0; i < 5; ++i)
    if (!is_str(items[i]) || !ascii_eq(items[i], kRedaction[i])) return nullptr;
  PyObject* interop = top(8);
  if (!exact_keys(interop, g.interop_keys)) return nullptr;
  PyObject* ev_payload = top(7);
  if (!PyDict_CheckExact(ev_payload)) return nullptr;
  PyObject* event = event_from_payload(ev_payload);
  if (event == nullptr) return nullptr;
  // rebuilding the event may have run Python code (the trace helper): check interop again
  // before its values are read as borrowed references
  if (!exact_keys(interop, g.interop_keys)) {
    Py_DECREF(event);
    return nullptr;
  }
  PyObject* result = nullptr;
  PyObject* policy = slot_get(g.event_descr[E_POLICY], event);
  PyObject* scope = slot_get(g.event_descr[E_HOOK_SCOPE], event);
  PyObject* reason = slot_get(g.event_descr[E_REASON], event);
  PyObject* refs = slot_get(g.event_descr[E_REFS], event);
  if (policy && scope && reason && refs) {
    const int dec = index_in(policy, kDecisions);
    PyObject* decision = item(interop, g.interop_keys[0]);
    PyObject* severity = item(interop, g.interop_keys[1]);
    PyObject* iscope = item(interop, g.interop_keys[2]);
    PyObject* ireason = item(interop, g.interop_keys[3]);
    PyObject* count = item(interop, g.interop_keys[4]);
    const Py_ssize_t nrefs = PyTuple_GET_SIZE(refs);
    bool count_ok = false;
    if (PyLong_CheckExact(count)) {
      int overflow = 0;
      long long c = PyLong_AsLongLongAndOverflow(count, &overflow);
      count_ok = overflow == 0 && c == nrefs && !PyErr_Occurred();
    } else if (PyFloat_CheckExact(count)) {
      count_ok = PyFloat_AS_DOUBLE(count) == static_cast<double>(nrefs);
    }
    const bool ok = dec >= 0 && is_str(decision) && ascii_eq(decision, kDecisions[dec]) &&
                    is_str(severity) && ascii_eq(severity, kSeverity[dec]) && is_str(iscope) &&
                    PyUnicode_Compare(iscope, scope) == 0 && is_str(ireason) &&
                    PyUnicode_Compare(ireason, reason) == 0 && count_ok;
    PyObject* ext = top(10);
    if (ok && PyDict_CheckExact(ext)) {
      PyObject* in[kSignalFields] = {top(2), top(3), top(4), top(5), event, g.protocol, top(1), ext};
      result = build_signal(in);
    }
  }
  Py_XDECREF(policy);
  Py_XDECREF(scope);
  Py_XDECREF(reason);
  Py_XDECREF(refs);
  Py_DECREF(event);
  return result;
}

PyObject* py_signal_from_payload(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_ready() || !check_signal_ready()) return nullptr;
  if (nargs != 1) return PyErr_Format(PyExc_TypeError, "_safety_signal_from_payload expects 1 argument");
  PyObject* sig = signal_from_payload(args[0]);
  return sig != nullptr ? sig : decline();
}

namespace {

// DirectorSafetySignal -> canonical JSON, written directly from the slots (the key order below is
// the sorted order; tests check byte identity with json.dumps(sig.to_transport_dict(), ...)).
bool put_obj(Out& out, PyObject* o) { return encode(o, out, 1); }
void put_lit(Out& out, std::string_view lit) { out.append(lit.data(), lit.size()); }

bool event_json(Out& out, PyObject* ev, int* decision) {
  PyObject* v[kEventFields] = {};
  struct Release {
    PyObject** v;
    ~Release() {
      for (int f = 0; f < kEventFields; ++f) Py_XDECREF(v[f]);
    }
  } release{v};
  if (!slots_get(g.event_descr, kEventFields, ev, v)) return false;
  *decision = is_str(v[E_POLICY]) ? index_in(v[E_POLICY], kDecisions) : -1;
  if (*decision < 0) raise_python("ValidationError", "DirectorSafetySignal.event: invalid policy_decision");
  static constexpr std::pair<const char*, int> order[kEventFields] = {
      {"{\"attributes\":", E_ATTRS}, {",\"event_id\":", E_EVENT_ID},
      {",\"evidence_refs\":", E_REFS}, {",\"halt_reason\":", E_REASON},
      {",\"hook_id\":", E_HOOK_ID}, {",\"hook_scope\":", E_HOOK_SCOPE},
      {",\"latency_ms\":", E_LATENCY}, {",\"observed_score\":", E_OBSERVED},
      {",\"policy_decision\":", E_POLICY}, {",\"request_id\":", E_REQUEST_ID},
      {",\"schema_version\":", E_SCHEMA}, {",\"tenant_id\":", E_TENANT_ID},
      {",\"tenant_safe_explanation\":", E_EXPLANATION}, {",\"threshold\":", E_THRESHOLD},
      {",\"timestamp\":", E_TIMESTAMP}, {",\"trace_attribution\":", E_TRACE}};
  for (const auto& [lit, f] : order) {
    out += lit;
    if (f == E_TRACE && v[f] != Py_None) {
      PyObject* td = PyObject_CallMethodNoArgs(v[f], g.str_to_dict);
      if (td == nullptr) return false;
      const bool ok = put_obj(out, td);
      Py_DECREF(td);
      if (!ok) return false;
    } else if (!put_obj(out, v[f])) {
      return false;
    }
  }
  out += '}';
  return true;
}

}  // namespace

PyObject* py_signal_to_json(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_ready() || !check_signal_ready()) return nullptr;
  if (nargs != 1 || !PyObject_TypeCheck(args[0], g.signal_cls))
    return PyErr_Format(PyExc_TypeError, "DirectorSafetySignal.to_json: expected a DirectorSafetySignal");
  PyObject* sig = args[0];
  PyObject* v[kSignalFields] = {};
  Out out;
  bool ok = true;
  try {
    ok = slots_get(g.signal_descr, kSignalFields, sig, v);
    ok = ok && event_slots_ok(v[S_EVENT], "DirectorSafetySignal.to_json");
    if (ok && !PyDict_Check(v[S_EXT])) {
      PyErr_SetString(PyExc_TypeError,
                      "DirectorSafetySignal.to_json: extensions has the wrong type (the instance was "
                      "modified after validation)");
      ok = false;
    }
    PyObject* ev = ok ? v[S_EVENT] : nullptr;
    PyObject *reason = nullptr, *scope = nullptr, *refs = nullptr;
    if (ok) {
      reason = slot_get(g.event_descr[E_REASON], ev);
      scope = slot_get(g.event_descr[E_HOOK_SCOPE], ev);
      refs = slot_get(g.event_descr[E_REFS], ev);
      ok = reason && scope && refs;
    }
    int decision = -1;
    ok = ok && (put_lit(out, "{\"emitted_at\":"), put_obj(out, v[S_EMITTED])) &&
         (put_lit(out, ",\"event\":"), event_json(out, ev, &decision)) &&
         (put_lit(out, ",\"event_schema_version\":\"director.safety_event.v1\",\"extensions\":"),
          put_obj(out, v[S_EXT])) &&
         (put_lit(out, ",\"framework\":"), put_obj(out, v[S_FRAMEWORK]));
    if (ok) {
      put_lit(out, ",\"interoperability\":{\"decision\":\"");
      put_lit(out, kDecisions[decision]);
      put_lit(out, "\",\"evidence_ref_count\":");
      out += std::to_string(PyObject_Length(refs));
      put_lit(out, ",\"halt_reason\":");
      ok = put_obj(out, reason) && (put_lit(out, ",\"hook_scope\":"), put_obj(out, scope));
    }
    if (ok) {
      put_lit(out, ",\"severity\":\"");
      put_lit(out, kSeverity[decision]);
      put_lit(out,
              "\"},\"privacy\":{\"payload_classification\":\"tenant_safe\",\"raw_payload_included\":"
              "false,\"redaction_required\":[\"raw_prompts\",\"raw_completions\",\"credentials\","
              "\"private_media\",\"sensor_payloads\"]},\"producer_id\":");
      ok = put_obj(out, v[S_PRODUCER]) &&
           (put_lit(out, ",\"protocol_version\":"), put_obj(out, v[S_PROTOCOL])) &&
           (put_lit(out, ",\"schema_ref\":"), put_obj(out, v[S_SCHEMA_REF])) &&
           (put_lit(out, ",\"signal_id\":"), put_obj(out, v[S_ID]));
      out += '}';
    }
    Py_XDECREF(reason);
    Py_XDECREF(scope);
    Py_XDECREF(refs);
  } catch (py::error_already_set& e) {
    e.restore();
    ok = false;
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
    ok = false;
  }
  for (PyObject* o : v) Py_XDECREF(o);
  if (!ok) return nullptr;
  return ascii_str(out);
}

// DirectorSafetySignal -> to_transport_dict() (same keys, order and values as the Python method).
PyObject* py_signal_transport_dict(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_ready() || !check_signal_ready()) return nullptr;
  if (nargs != 1 || !PyObject_TypeCheck(args[0], g.signal_cls))
    return PyErr_Format(PyExc_TypeError, "DirectorSafetySignal.to_transport_dict: expected a DirectorSafetySignal");
  PyObject* v[kSignalFields] = {};
  PyObject *ev_dict = nullptr, *interop = nullptr, *privacy = nullptr, *red = nullptr,
           *ext = nullptr, *count = nullptr, *out = nullptr;
  bool ok = slots_get(g.signal_descr, kSignalFields, args[0], v);
  if (ok && !PyDict_Check(v[S_EXT])) {
    PyErr_SetString(PyExc_TypeError,
                    "DirectorSafetySignal.to_transport_dict: extensions has the wrong type (the "
                    "instance was modified after validation)");
    ok = false;
  }
  if (ok) ok = (ev_dict = event_to_dict(v[S_EVENT])) != nullptr;
  if (ok) {
    PyObject* policy = PyDict_GetItem(ev_dict, g.event_keys[E_POLICY]);
    PyObject* refs = PyDict_GetItem(ev_dict, g.event_keys[E_REFS]);
    const int dec = policy && is_str(policy) ? index_in(policy, kDecisions) : -1;
    ok = dec >= 0 && refs != nullptr;
    if (!ok) PyErr_SetString(PyExc_KeyError, "policy_decision");
    if (ok) ok = (count = PyLong_FromSsize_t(PyList_GET_SIZE(refs))) != nullptr;
    if (ok) ok = (interop = PyDict_Copy(g.interop_template)) != nullptr;
    if (ok) {
      PyObject* vals[5] = {g.decisions[dec], g.severities[dec],
                           PyDict_GetItem(ev_dict, g.event_keys[E_HOOK_SCOPE]),
                           PyDict_GetItem(ev_dict, g.event_keys[E_REASON]), count};
      for (int i = 0; i < 5 && ok; ++i) ok = PyDict_SetItem(interop, g.interop_keys[i], vals[i]) == 0;
    }
  }
  if (ok) ok = (red = PyList_New(5)) != nullptr;
  if (ok) {
    for (int i = 0; i < 5; ++i) {
      Py_INCREF(g.redaction[i]);
      PyList_SET_ITEM(red, i, g.redaction[i]);
    }
    ok = (privacy = PyDict_Copy(g.privacy_template)) != nullptr;
    if (ok) ok = PyDict_SetItem(privacy, g.privacy_keys[2], red) == 0;
  }
  if (ok) ok = (ext = PyDict_Copy(v[S_EXT])) != nullptr;
  if (ok) ok = (out = PyDict_Copy(g.top_template)) != nullptr;
  if (ok) {
    // kTopKeys order: protocol_version, schema_ref, signal_id, emitted_at, producer_id,
    // framework, event_schema_version, event, interoperability, privacy, extensions
    PyObject* vals[11] = {v[S_PROTOCOL], v[S_SCHEMA_REF], v[S_ID], v[S_EMITTED], v[S_PRODUCER],
                          v[S_FRAMEWORK], g.event_schema, ev_dict, interop, privacy, ext};
    for (int i = 0; i < 11 && ok; ++i) ok = PyDict_SetItem(out, g.top_keys[i], vals[i]) == 0;
    if (!ok) Py_CLEAR(out);
  }
  for (PyObject* o : v) Py_XDECREF(o);
  Py_XDECREF(ev_dict);
  Py_XDECREF(interop);
  Py_XDECREF(privacy);
  Py_XDECREF(red);
  Py_XDECREF(ext);
  Py_XDECREF(count);
  return out;
}

}  // namespace director_fast::bindings::safety_impl
