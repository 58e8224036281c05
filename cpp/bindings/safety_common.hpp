// Shared core of the SafetyEvent / DirectorSafetySignal fast paths (split out of bind_safety.cpp;
// see that file for the overview). Owns: the str helpers and the verified-string cache, the field
// enums and constant strings, the module state `g` (classes, slot offsets, interned strings; set
// once by _safety_setup), the slot reader/writer, build(), the decline / error helpers and the
// dict-key helpers. Header-only: the state and the cache are `inline` variables (one definition in
// the whole module), the helpers `inline` so that every hot path keeps them inlined.
// Include direction (one way): safety_common.hpp <- safety_ids.hpp, safety_json.hpp
//   <- safety_event.hpp <- safety_signal.hpp <- bind_safety.cpp (module registration).
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "common.hpp"
#include "director_fast/safety_rules.hpp"

namespace director_fast::bindings::safety_impl {

namespace sr = director_fast::safety;

// ---- str helpers ------------------------------------------------------------------------------
template <typename F>
inline auto visit_str(PyObject* s, F&& f) {
  const std::size_t n = static_cast<std::size_t>(PyUnicode_GET_LENGTH(s));
  switch (PyUnicode_KIND(s)) {
    case PyUnicode_1BYTE_KIND:
      return f(static_cast<const std::uint8_t*>(PyUnicode_DATA(s)), n);
    case PyUnicode_2BYTE_KIND:
      return f(static_cast<const std::uint16_t*>(PyUnicode_DATA(s)), n);
    default:
      return f(static_cast<const std::uint32_t*>(PyUnicode_DATA(s)), n);
  }
}

inline bool is_str(PyObject* o) { return PyUnicode_CheckExact(o); }
inline Py_ssize_t slen(PyObject* s) { return PyUnicode_GET_LENGTH(s); }

inline bool ascii_eq(PyObject* s, std::string_view lit) {
  return PyUnicode_KIND(s) == PyUnicode_1BYTE_KIND &&
         static_cast<std::size_t>(PyUnicode_GET_LENGTH(s)) == lit.size() &&
         std::memcmp(PyUnicode_DATA(s), lit.data(), lit.size()) == 0;
}

// ---- verified-string cache ---------------------------------------------------------------------
// Events and signals reuse the same str objects over and over: a hook's constant hook_id, reason
// and explanation, a policy's attribute keys and values, and -- in event.to_dict() -> validate
// round trips -- the very objects the event was built from. A small direct-mapped table remembers,
// per str object, which checks it passed. It holds a strong reference to each remembered object,
// so while an entry exists its address cannot be reused by another object, and a str's content
// never changes (immutable; only exact str objects are remembered). Identity, not equality, is
// compared: a hit costs one pointer compare. Only passes are remembered; a miss runs the check.
// Bounded: kVcSlots entries of at most kVcMaxLen code points (at most ~2 MiB stays alive). Only
// touched with the GIL held (every caller is a CPython entry point of this module): no lock.
enum VerifiedRole : std::uint8_t {
  V_TEXT = 1,      // no control character, no tenant-safety violation in the text role
  V_KEY = 2,       // the same in the attribute-key role
  V_HOOK_ID = 4,   // is_hook_id
  V_ATTR_KEY = 8,  // is_attr_key
  V_NO_CTRL = 16,  // no control character
};
constexpr std::size_t kVcSlots = 512;  // power of two
struct VerifiedCache {
  PyObject* obj[kVcSlots] = {};
  std::uint8_t roles[kVcSlots] = {};
};
inline VerifiedCache vc;
inline std::size_t vc_slot(PyObject* s) {
  // Fibonacci hashing of the address (objects are 16-byte aligned)
  return static_cast<std::size_t>(((reinterpret_cast<std::uintptr_t>(s) >> 4) * 0x9E3779B97F4A7C15ULL) >> 55) &
         (kVcSlots - 1);
}
inline bool vc_has(PyObject* s, std::uint8_t role) {
  const std::size_t i = vc_slot(s);
  return vc.obj[i] == s && (vc.roles[i] & role) == role;
}
constexpr Py_ssize_t kVcMaxLen = 1024;  // longer strings are checked every time, never kept
inline void vc_add(PyObject* s, std::uint8_t role) {
  if (PyUnicode_GET_LENGTH(s) > kVcMaxLen) return;
  const std::size_t i = vc_slot(s);
  if (vc.obj[i] == s) {
    vc.roles[i] |= role;
    return;
  }
  PyObject* old = vc.obj[i];
  Py_INCREF(s);
  vc.obj[i] = s;
  vc.roles[i] = role;
  Py_XDECREF(old);  // a str: freeing it runs no Python code
}
// Runs `check` unless exact str `s` is remembered as passing `role`; remembers a pass.
template <typename F>
inline bool vc_check(PyObject* s, std::uint8_t role, F&& check) {
  if (vc_has(s, role)) return true;
  if (!check()) return false;
  vc_add(s, role);
  return true;
}

inline bool nonblank(PyObject* s) {
  return visit_str(s, [](auto* p, std::size_t n) { return sr::has_nonblank(p, n); });
}
// No control character and no tenant-safety violation (Python: check_text(s, where, role)).
inline bool text_ok(PyObject* s, bool key) {
  return vc_check(s, key ? V_KEY : V_TEXT, [s, key] {
    return visit_str(s, [key](auto* p, std::size_t n) {
      return !sr::has_control(p, n) && sr::tenant_safety_violation(p, n, key).empty();
    });
  });
}
#define DF_FORMAT(fn) \
  inline bool fn(PyObject* s) { \
    return visit_str(s, [](auto* p, std::size_t n) { return sr::fn(p, n); }); \
  }
DF_FORMAT(is_timestamp)
#undef DF_FORMAT
// ids: the format, and the part after the prefix is tenant-safe (an id can carry no secret)
inline bool id_ok(PyObject* s, std::size_t prefix, bool (*format)(const std::uint8_t*, std::size_t)) {
  if (PyUnicode_KIND(s) != PyUnicode_1BYTE_KIND) return false;  // both formats are ASCII
  const auto* p = static_cast<const std::uint8_t*>(PyUnicode_DATA(s));
  const auto n = static_cast<std::size_t>(PyUnicode_GET_LENGTH(s));
  if (!format(p, n)) return false;
  bool hex = true;  // hex digits (the generated ids) carry nothing the rules look for
  for (std::size_t i = prefix; i < n && hex; ++i) hex = (p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f');
  return hex || sr::tenant_safety_violation(p + prefix, n - prefix, false).empty();
}
inline bool is_event_id(PyObject* s) { return id_ok(s, 5, sr::is_event_id<std::uint8_t>); }
inline bool is_signal_id(PyObject* s) { return id_ok(s, 4, sr::is_signal_id<std::uint8_t>); }
inline bool is_hook_id(PyObject* s) {
  return vc_check(s, V_HOOK_ID, [s] {
    return visit_str(s, [](auto* p, std::size_t n) { return sr::is_hook_id(p, n); });
  });
}
inline bool is_attr_key(PyObject* s) {
  return vc_check(s, V_ATTR_KEY, [s] {
    return visit_str(s, [](auto* p, std::size_t n) { return sr::is_attr_key(p, n); });
  });
}
// ---- module state (set once by _safety_setup) ------------------------------------------------
constexpr int kEventFields = 16;
// SafetyEvent field order (dataclass order).
enum EventField {
  E_EVENT_ID, E_TIMESTAMP, E_REQUEST_ID, E_TENANT_ID, E_HOOK_ID, E_HOOK_SCOPE, E_POLICY,
  E_REASON, E_THRESHOLD, E_OBSERVED, E_LATENCY, E_REFS, E_EXPLANATION, E_TRACE, E_ATTRS,
  E_SCHEMA,
};
inline constexpr const char* kEventFieldNames[kEventFields] = {
    "event_id", "timestamp", "request_id", "tenant_id", "hook_id", "hook_scope",
    "policy_decision", "halt_reason", "threshold", "observed_score", "latency_ms",
    "evidence_refs", "tenant_safe_explanation", "trace_attribution", "attributes",
    "schema_version",
};
constexpr int kSignalFields = 8;
enum SignalField { S_ID, S_EMITTED, S_PRODUCER, S_FRAMEWORK, S_EVENT, S_PROTOCOL, S_SCHEMA_REF, S_EXT };
inline constexpr const char* kSignalFieldNames[kSignalFields] = {
    "signal_id", "emitted_at", "producer_id", "framework", "event", "protocol_version",
    "schema_ref", "extensions",
};
inline constexpr const char* kTraceStrFields[3] = {"fact_source", "retrieval_path", "scorer_path"};

inline constexpr std::string_view kEventSchema = "director.safety_event.v1";
inline constexpr std::string_view kProtocol = "director.safety_protocol.v1";
inline constexpr std::string_view kHookScopes[] = {"streaming", "containment", "attestation",
                                            "ontology", "trajectory", "cyber_physical",
                                            "swarm", "agent", "inference_server"};
inline constexpr std::string_view kDecisions[] = {"allow", "warn", "halt", "block"};
inline constexpr std::string_view kSeverity[] = {"informational", "advisory", "terminal", "terminal"};
inline constexpr std::string_view kRedaction[] = {"raw_prompts", "raw_completions", "credentials",
                                           "private_media", "sensor_payloads"};
inline constexpr std::string_view kTopKeys[] = {
    "protocol_version", "schema_ref", "signal_id", "emitted_at", "producer_id", "framework",
    "event_schema_version", "event", "interoperability", "privacy", "extensions"};
inline constexpr std::string_view kInteropKeys[] = {"decision", "severity", "hook_scope", "halt_reason",
                                             "evidence_ref_count"};
inline constexpr std::string_view kPrivacyKeys[] = {"payload_classification", "raw_payload_included",
                                             "redaction_required"};

struct State {
  PyTypeObject* event_cls = nullptr;
  PyTypeObject* trace_cls = nullptr;
  PyTypeObject* signal_cls = nullptr;
  PyObject* trace_from_payload = nullptr;  // Python helper: dict -> HaltTraceAttribution
  Py_ssize_t event_descr[kEventFields] = {};  // slot offsets
  PyObject* event_keys[kEventFields] = {};  // interned field names (also the payload keys)
  Py_ssize_t signal_descr[kSignalFields] = {};
  Py_ssize_t trace_descr[3] = {};
  PyObject* top_keys[11] = {};
  PyObject* interop_keys[5] = {};
  PyObject* privacy_keys[3] = {};
  PyObject* event_schema = nullptr;  // the constant strings, shared by every built object
  PyObject* protocol = nullptr;
  PyObject* scopes[9] = {};
  PyObject* decisions[4] = {};
  PyObject* str_to_dict = nullptr;
  PyObject* str_tenant_safe = nullptr;
  PyObject* severities[4] = {};
  PyObject* redaction[5] = {};
  PyObject* default_schema_ref = nullptr;  // validated at _safety_setup_signal
  PyObject* from_policy_py = nullptr;       // Python SafetyEvent._from_policy_decision_py
  PyObject* policy_arg_names[15] = {};
  PyObject* from_event_names[5] = {};
  PyObject* str_generic = nullptr;
  PyObject* empty_str = nullptr;
  PyObject* empty_tuple = nullptr;
  PyObject* event_dict_template = nullptr;  // {key: None} in SafetyEvent.to_dict() order
  PyObject* top_template = nullptr;         // the same for the transport dict and its blocks
  PyObject* interop_template = nullptr;
  PyObject* privacy_template = nullptr;
  bool ready = false;         // event classes registered
  bool signal_ready = false;  // signal class registered
};
inline State g;

inline PyObject* intern(std::string_view s) {
  PyObject* o = PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
  if (o != nullptr) PyUnicode_InternInPlace(&o);
  return o;
}

// Slots are read and written directly at their offsets (taken from the classes' member
// descriptors by _safety_setup, which checks that each one is an object slot): the value of slot
// `off` of `obj` as a new reference (AttributeError when unset) / store `v` (new reference taken).
inline PyObject* slot_get(Py_ssize_t off, PyObject* obj) {
  PyObject* v = *reinterpret_cast<PyObject**>(reinterpret_cast<char*>(obj) + off);
  if (v == nullptr) {
    PyErr_SetString(PyExc_AttributeError, "director_fast: slot is not set");
    return nullptr;
  }
  Py_INCREF(v);
  return v;
}
// All n slots of `obj` (offsets `descr`) into v as new references. On failure (an unset slot:
// AttributeError) the references already taken are released and every v[f] is null.
inline bool slots_get(const Py_ssize_t* descr, int n, PyObject* obj, PyObject** v) {
  for (int f = 0; f < n; ++f) {
    if ((v[f] = slot_get(descr[f], obj)) == nullptr) {
      for (int j = 0; j < f; ++j) Py_CLEAR(v[j]);
      return false;
    }
  }
  return true;
}
inline int slot_set(Py_ssize_t off, PyObject* obj, PyObject* v) {
  PyObject** p = reinterpret_cast<PyObject**>(reinterpret_cast<char*>(obj) + off);
  PyObject* old = *p;
  Py_INCREF(v);
  *p = v;
  Py_XDECREF(old);
  return 0;
}

// Index of `s` in `set` when it is equal to one member, else -1.
template <std::size_t N>
int index_in(PyObject* s, const std::string_view (&set)[N]) {
  for (std::size_t i = 0; i < N; ++i)
    if (ascii_eq(s, set[i])) return static_cast<int>(i);
  return -1;
}

// Allocates `tp` without calling __init__ and stores the values through the slot descriptors.
inline PyObject* build(PyTypeObject* tp, const Py_ssize_t* descr, PyObject* const* values, int n) {
  PyObject* obj = tp->tp_alloc(tp, 0);
  if (obj == nullptr) return nullptr;
  for (int f = 0; f < n; ++f) {
    if (slot_set(descr[f], obj, values[f]) < 0) {
      Py_DECREF(obj);
      return nullptr;
    }
  }
  return obj;
}

// Only an ordinary Exception (raised by the input's own code during a fast path) is cleared so that
// the Python path can report it; MemoryError, KeyboardInterrupt, SystemExit propagate.
inline bool clearable_error() {
  return PyErr_ExceptionMatches(PyExc_Exception) && !PyErr_ExceptionMatches(PyExc_MemoryError);
}
// The result of a __post_init__ fast path: True when every check passed; False when one failed or
// an ordinary exception was raised (cleared: the Python checks run and report it); NULL for the
// errors that must propagate (see clearable_error).
inline PyObject* checked_or_declined(bool ok) {
  if (ok) Py_RETURN_TRUE;
  if (PyErr_Occurred()) {
    if (!clearable_error()) return nullptr;
    PyErr_Clear();
  }
  Py_RETURN_FALSE;
}
inline PyObject* decline() {
  if (PyErr_Occurred() && clearable_error()) PyErr_Clear();
  if (PyErr_Occurred()) return nullptr;
  Py_RETURN_NONE;
}

// A str from n pure-ASCII bytes (no decoding pass).
inline PyObject* ascii_str(const char* p, std::size_t n) {
  PyObject* r = PyUnicode_New(static_cast<Py_ssize_t>(n), 127);
  if (r != nullptr) std::memcpy(PyUnicode_DATA(r), p, n);
  return r;
}

inline bool check_ready() {
  if (!g.ready) PyErr_SetString(PyExc_ImportError, "director_fast._core: _safety_setup not called");
  return g.ready;
}
inline bool check_signal_ready() {
  if (!g.signal_ready)
    PyErr_SetString(PyExc_ImportError, "director_fast._core: _safety_setup_signal not called");
  return g.signal_ready;
}

// Borrowed item of a dict by interned key (nullptr when missing).
inline PyObject* item(PyObject* d, PyObject* key) { return PyDict_GetItemWithError(d, key); }

// Every key of dict `d` is an exact str. Lookups in such a dict compare exact strs only and run no
// Python code; a str-subclass key's __eq__ could otherwise mutate the dict (and free values
// already read as borrowed references) in the middle of the lookups.
inline bool all_keys_exact_str(PyObject* d) {
  Py_ssize_t pos = 0;
  PyObject *k, *v;
  while (PyDict_Next(d, &pos, &k, &v))
    if (!PyUnicode_CheckExact(k)) return false;
  return true;
}

// d is a dict with exactly the N (interned) keys, all exact strs (see all_keys_exact_str).
template <std::size_t N>
inline bool exact_keys(PyObject* d, PyObject* const (&keys)[N]) {
  if (!PyDict_CheckExact(d) || PyDict_GET_SIZE(d) != static_cast<Py_ssize_t>(N)) return false;
  if (!all_keys_exact_str(d)) return false;
  for (PyObject* k : keys)
    if (item(d, k) == nullptr) return false;
  return true;
}

// vals[f] = d[keys[f]] (borrowed) for the n expected keys, when d is a dict whose keys are
// exactly those (interned) key objects: one pass over the entries, matching keys by identity
// (first against the expected order). False (vals undefined): use the hashed lookups instead.
inline bool fill_by_identity(PyObject* d, PyObject* const* keys, int n, const int* order, PyObject** vals) {
  if (!PyDict_CheckExact(d) || PyDict_GET_SIZE(d) != n) return false;
  for (int f = 0; f < n; ++f) vals[f] = nullptr;
  Py_ssize_t pos = 0;
  PyObject *k, *v;
  int idx = 0;
  while (PyDict_Next(d, &pos, &k, &v)) {
    int f = idx < n ? (order != nullptr ? order[idx] : idx) : -1;
    if (f < 0 || keys[f] != k) {
      f = -1;
      for (int j = 0; j < n && f < 0; ++j)
        if (keys[j] == k) f = j;
      if (f < 0 || vals[f] != nullptr) return false;
    }
    vals[f] = v;
    ++idx;
  }
  return idx == n;
}

}  // namespace director_fast::bindings::safety_impl
