// Bindings of the SafetyEvent / DirectorSafetySignal fast paths (private; used by
// director_fast.core.safety_event and director_fast.core.safety_protocol).
//
// The hot functions are plain CPython METH_FASTCALL functions (pybind11's argument dispatch
// would cost more than the checks themselves). Each "fast path" either returns a fully validated
// object -- built exactly as the Python reference path would build it -- or declines; a declined
// call runs the Python implementation, which names the offending field in its error (so errors
// and their order are those of the Python implementation). Fast paths never raise except for
// MemoryError / OSError. Three kinds of objects are handed to Python:
//   * module functions _safety_* (setup, the fast paths returning None to decline, helpers);
//   * method descriptors installed on the classes (SafetyEvent.from_policy_decision / to_dict,
//     DirectorSafetySignal.to_json / to_transport_dict), see _safety_*_methods();
//   * the public functions validate_safety_event_payload, validate_director_safety_signal and
//     director_safety_signal_from_event, built by _safety_entry() as builtins of their Python
//     module that pass declined calls to the registered Python function.
// Instances are allocated with tp_alloc and their slots written at the offsets of the classes'
// member descriptors (checked to be object slots at setup), i.e. without running __init__.
//
// Thread-safety: every function runs under the GIL; the class references, slot offsets and
// interned strings are set once at import and never change afterwards; the id byte pool has its
// own mutex and is reset in a forked child; the timestamp cache is thread_local.
#include <pybind11/pybind11.h>
#include <structmember.h>

#include <pthread.h>

#include <algorithm>
#include <charconv>
#include <system_error>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <initializer_list>

#include "director_fast/portable.hpp"
#include <utility>
#include <vector>

#include "common.hpp"
#include "director_fast/safety_rules.hpp"

namespace py = pybind11;

namespace director_fast::bindings {
namespace {

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
VerifiedCache vc;
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
constexpr const char* kEventFieldNames[kEventFields] = {
    "event_id", "timestamp", "request_id", "tenant_id", "hook_id", "hook_scope",
    "policy_decision", "halt_reason", "threshold", "observed_score", "latency_ms",
    "evidence_refs", "tenant_safe_explanation", "trace_attribution", "attributes",
    "schema_version",
};
constexpr int kSignalFields = 8;
enum SignalField { S_ID, S_EMITTED, S_PRODUCER, S_FRAMEWORK, S_EVENT, S_PROTOCOL, S_SCHEMA_REF, S_EXT };
constexpr const char* kSignalFieldNames[kSignalFields] = {
    "signal_id", "emitted_at", "producer_id", "framework", "event", "protocol_version",
    "schema_ref", "extensions",
};
constexpr const char* kTraceStrFields[3] = {"fact_source", "retrieval_path", "scorer_path"};

constexpr std::string_view kEventSchema = "director.safety_event.v1";
constexpr std::string_view kProtocol = "director.safety_protocol.v1";
constexpr std::string_view kHookScopes[] = {"streaming", "containment", "attestation",
                                            "ontology", "trajectory", "cyber_physical",
                                            "swarm", "agent", "inference_server"};
constexpr std::string_view kDecisions[] = {"allow", "warn", "halt", "block"};
constexpr std::string_view kSeverity[] = {"informational", "advisory", "terminal", "terminal"};
constexpr std::string_view kRedaction[] = {"raw_prompts", "raw_completions", "credentials",
                                           "private_media", "sensor_payloads"};
constexpr std::string_view kTopKeys[] = {
    "protocol_version", "schema_ref", "signal_id", "emitted_at", "producer_id", "framework",
    "event_schema_version", "event", "interoperability", "privacy", "extensions"};
constexpr std::string_view kInteropKeys[] = {"decision", "severity", "hook_scope", "halt_reason",
                                             "evidence_ref_count"};
constexpr std::string_view kPrivacyKeys[] = {"payload_classification", "raw_payload_included",
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
State g;

PyObject* intern(std::string_view s) {
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

// Allocates `tp` without calling __init__ and stores the values through the slot descriptors.
PyObject* build(PyTypeObject* tp, const Py_ssize_t* descr, PyObject* const* values, int n) {
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
bool clearable_error() {
  return PyErr_ExceptionMatches(PyExc_Exception) && !PyErr_ExceptionMatches(PyExc_MemoryError);
}
// The result of a __post_init__ fast path: True when every check passed; False when one failed or
// an ordinary exception was raised (cleared: the Python checks run and report it); NULL for the
// errors that must propagate (see clearable_error).
PyObject* checked_or_declined(bool ok) {
  if (ok) Py_RETURN_TRUE;
  if (PyErr_Occurred()) {
    if (!clearable_error()) return nullptr;
    PyErr_Clear();
  }
  Py_RETURN_FALSE;
}
PyObject* decline() {
  if (PyErr_Occurred() && clearable_error()) PyErr_Clear();
  if (PyErr_Occurred()) return nullptr;
  Py_RETURN_NONE;
}

// ---- ids and timestamps -----------------------------------------------------------------------
// A str from n pure-ASCII bytes (no decoding pass).
PyObject* ascii_str(const char* p, std::size_t n) {
  PyObject* r = PyUnicode_New(static_cast<Py_ssize_t>(n), 127);
  if (r != nullptr) std::memcpy(PyUnicode_DATA(r), p, n);
  return r;
}

// Random bytes for ids: the kernel CSPRNG (getrandom(2), arc4random_buf(3) or /dev/urandom: see
// portable.hpp) read 512 bytes at a time; each byte is
// handed out once and wiped. A forked child discards the parent's unused bytes (pthread_atfork),
// so parent and child never share an id.
class RandomPool {
 public:
  RandomPool() { pthread_atfork(nullptr, nullptr, [] { pool().reset_after_fork(); }); }
  static RandomPool& pool() {
    static RandomPool p;
    return p;
  }
  // Fills out[0..16); false with errno set when the kernel refuses.
  bool take16(unsigned char* out) {
    std::lock_guard<std::mutex> lock(mu_);
    if (pos_ + 16 > sizeof buf_) {
      if (!director_fast::portable::fill_random(buf_, sizeof buf_)) return false;
      pos_ = 0;
    }
    std::memcpy(out, buf_ + pos_, 16);
    std::memset(buf_ + pos_, 0, 16);
    pos_ += 16;
    return true;
  }

 private:
  void reset_after_fork() {
    // the child is single-threaded here; the mutex may have been held by another parent thread
    new (&mu_) std::mutex();
    std::memset(buf_, 0, sizeof buf_);
    pos_ = sizeof buf_;
  }
  std::mutex mu_;
  unsigned char buf_[512] = {};
  std::size_t pos_ = sizeof buf_;
};

PyObject* new_id(std::string_view prefix) {
  unsigned char raw[16];
  if (!RandomPool::pool().take16(raw)) return PyErr_SetFromErrno(PyExc_OSError);
  static const char hex[] = "0123456789abcdef";
  char buf[8 + 32];
  std::memcpy(buf, prefix.data(), prefix.size());
  char* p = buf + prefix.size();
  for (unsigned char b : raw) {
    *p++ = hex[b >> 4];
    *p++ = hex[b & 15];
  }
  return ascii_str(buf, static_cast<std::size_t>(p - buf));
}

// Current UTC time "YYYY-MM-DDTHH:MM:SS.ffffffZ". The date-time part is formatted once per second
// per thread (thread_local cache); only the microseconds are written on every call.
PyObject* utc_now() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  thread_local std::int64_t cached_sec = -1;
  thread_local char buf[27];
  const std::int64_t sec = static_cast<std::int64_t>(ts.tv_sec);
  if (sec != cached_sec) {
    sr::format_utc_timestamp(sec * 1000000000, buf);
    cached_sec = sec;
  }
  std::uint32_t us = static_cast<std::uint32_t>(ts.tv_nsec / 1000);
  for (int i = 25; i >= 20; --i) {
    buf[i] = static_cast<char>('0' + us % 10);
    us /= 10;
  }
  return ascii_str(buf, 27);
}

// "" / None -> generated; a non-empty str -> itself; anything else -> nullptr (decline).
PyObject* id_or_new(PyObject* v, std::string_view prefix, bool timestamp) {
  if (v == Py_None || (is_str(v) && slen(v) == 0)) return timestamp ? utc_now() : new_id(prefix);
  if (!is_str(v)) return nullptr;
  Py_INCREF(v);
  return v;
}

bool check_ready() {
  if (!g.ready) PyErr_SetString(PyExc_ImportError, "director_fast._core: _safety_setup not called");
  return g.ready;
}
bool check_signal_ready() {
  if (!g.signal_ready)
    PyErr_SetString(PyExc_ImportError, "director_fast._core: _safety_setup_signal not called");
  return g.signal_ready;
}

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
constexpr int kPolicyArgs = 15;
constexpr const char* kPolicyArgNames[kPolicyArgs] = {
    "hook_id", "hook_scope", "policy_decision", "halt_reason", "tenant_safe_explanation",
    "request_id", "tenant_id", "threshold", "observed_score", "latency_ms", "evidence_refs",
    "trace_attribution", "attributes", "event_id", "timestamp"};
// position of each keyword in _safety_event_build's argument list
constexpr int kPolicyToBuild[kPolicyArgs] = {E_HOOK_ID, E_HOOK_SCOPE, E_POLICY, E_REASON,
                                             E_EXPLANATION, E_REQUEST_ID, E_TENANT_ID, E_THRESHOLD,
                                             E_OBSERVED, E_LATENCY, E_REFS, E_TRACE, E_ATTRS,
                                             E_EVENT_ID, E_TIMESTAMP};

PyObject* py_event_build(PyObject*, PyObject* const* args, Py_ssize_t nargs);

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

// Borrowed item of a dict by interned key (nullptr when missing).
inline PyObject* item(PyObject* d, PyObject* key) { return PyDict_GetItemWithError(d, key); }

// Every key of dict `d` is an exact str. Lookups in such a dict compare exact strs only and run no
// Python code; a str-subclass key's __eq__ could otherwise mutate the dict (and free values
// already read as borrowed references) in the middle of the lookups.
bool all_keys_exact_str(PyObject* d) {
  Py_ssize_t pos = 0;
  PyObject *k, *v;
  while (PyDict_Next(d, &pos, &k, &v))
    if (!PyUnicode_CheckExact(k)) return false;
  return true;
}

// d is a dict with exactly the N (interned) keys, all exact strs (see all_keys_exact_str).
template <std::size_t N>
bool exact_keys(PyObject* d, PyObject* const (&keys)[N]) {
  if (!PyDict_CheckExact(d) || PyDict_GET_SIZE(d) != static_cast<Py_ssize_t>(N)) return false;
  if (!all_keys_exact_str(d)) return false;
  for (PyObject* k : keys)
    if (item(d, k) == nullptr) return false;
  return true;
}

// SafetyEvent payload dict -> new SafetyEvent, or nullptr (declined; maybe an exception set).
// to_dict() key order as field indices (the order a payload built by to_dict() iterates in).
constexpr int kDictOrder[kEventFields] = {
    E_SCHEMA, E_EVENT_ID, E_TIMESTAMP, E_REQUEST_ID, E_TENANT_ID, E_HOOK_ID,
    E_HOOK_SCOPE, E_POLICY, E_REASON, E_THRESHOLD, E_OBSERVED, E_LATENCY,
    E_REFS, E_EXPLANATION, E_TRACE, E_ATTRS};

// vals[f] = d[keys[f]] (borrowed) for the n expected keys, when d is a dict whose keys are
// exactly those (interned) key objects: one pass over the entries, matching keys by identity
// (first against the expected order). False (vals undefined): use the hashed lookups instead.
bool fill_by_identity(PyObject* d, PyObject* const* keys, int n, const int* order, PyObject** vals) {
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


// ---- DirectorSafetySignal ---------------------------------------------------------------------
bool name_ok(PyObject* s, Py_ssize_t max_len) {
  return is_str(s) && slen(s) >= 1 && slen(s) <= max_len && nonblank(s) && text_ok(s, false);
}

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

// ---- canonical JSON ---------------------------------------------------------------------------
// json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
// for dict (str keys) / list / tuple / str / int / float / bool / None.
constexpr int kMaxJsonDepth = 256;

// Growable output buffer of the JSON encoder: callers reserve room and write through a raw
// pointer (no per-character capacity checks).
class Out {
 public:
  Out() : buf_(static_cast<char*>(std::malloc(2048))), cap_(buf_ != nullptr ? 2048 : 0) {}
  ~Out() { std::free(buf_); }
  Out(const Out&) = delete;
  Out& operator=(const Out&) = delete;
  // Room for `extra` more bytes; returns the write position (commit() the new end).
  char* reserve(std::size_t extra) {
    if (len_ + extra > cap_) grow(len_ + extra);
    return buf_ + len_;
  }
  void commit(char* end) { len_ = static_cast<std::size_t>(end - buf_); }
  Out& operator+=(char c) {
    *reserve(1) = c;
    ++len_;
    return *this;
  }
  Out& append(const char* p, std::size_t n) {
    std::memcpy(reserve(n), p, n);
    len_ += n;
    return *this;
  }
  Out& append(std::size_t n, char c) {
    std::memset(reserve(n), c, n);
    len_ += n;
    return *this;
  }
  Out& operator+=(std::string_view sv) { return append(sv.data(), sv.size()); }
  Out& operator+=(const char* z) { return append(z, std::strlen(z)); }
  Out& operator+=(const std::string& str) { return append(str.data(), str.size()); }
  const char* data() const { return buf_; }
  std::size_t size() const { return len_; }

 private:
  void grow(std::size_t need) {
    std::size_t c = cap_ > 0 ? cap_ * 2 : 2048;
    while (c < need) c *= 2;
    char* p = static_cast<char*>(std::realloc(buf_, c));
    if (p == nullptr) throw std::bad_alloc();
    buf_ = p;
    cap_ = c;
  }
  char* buf_;
  std::size_t len_ = 0;
  std::size_t cap_;
};

// A JSON string literal of s[0..n) as json.dumps(ensure_ascii=True) writes it: '"' and '\\'
// escaped, \n \r \t \b \f, other code points outside 0x20..0x7e as \u00XX / \uXXXX (surrogate
// pairs above U+FFFF), lower-case hex.
template <typename CharT>
void put_string(Out& out, const CharT* s, std::size_t n) {
  static const char hex[] = "0123456789abcdef";
  constexpr std::size_t kWorst = sizeof(CharT) == 4 ? 12 : 6;  // bytes per code unit at most
  constexpr std::size_t kBlock = 4096;                          // code units per reservation
  out += '"';
  std::size_t i = 0;
  while (i < n) {
    const std::size_t stop = n - i > kBlock ? i + kBlock : n;
    char* w = out.reserve(kWorst * (stop - i));
    while (i < stop) {
      if constexpr (sizeof(CharT) == 1) {
        // 8 bytes at a time (SWAR) while none is < 0x20, >= 0x7f, '"' or '\\'
        constexpr std::uint64_t k01 = 0x0101010101010101ULL, k80 = 0x8080808080808080ULL;
        auto zero_byte = [](std::uint64_t v) { return (v - k01) & ~v & k80; };
        while (i + 8 <= stop) {
          std::uint64_t x;
          std::memcpy(&x, s + i, 8);
          const std::uint64_t bad = ((x - 0x20 * k01) & ~x & k80) | (x & k80) |
                                    zero_byte(x ^ (0x7f * k01)) | zero_byte(x ^ (0x22 * k01)) |
                                    zero_byte(x ^ (0x5c * k01));
          if (bad) break;
          std::memcpy(w, &x, 8);
          w += 8;
          i += 8;
        }
        if (i >= stop) break;
      }
      const std::uint32_t c = s[i++];
      if (c >= 0x20 && c <= 0x7e && c != '"' && c != '\\') {
        *w++ = static_cast<char>(c);
        continue;
      }
      auto esc2 = [&](char e) {
        w[0] = '\\';
        w[1] = e;
        w += 2;
      };
      auto u = [&](std::uint32_t v) {
        w[0] = '\\';
        w[1] = 'u';
        w[2] = hex[(v >> 12) & 15];
        w[3] = hex[(v >> 8) & 15];
        w[4] = hex[(v >> 4) & 15];
        w[5] = hex[v & 15];
        w += 6;
      };
      switch (c) {
        case '"': esc2('"'); break;
        case '\\': esc2('\\'); break;
        case '\n': esc2('n'); break;
        case '\r': esc2('r'); break;
        case '\t': esc2('t'); break;
        case '\b': esc2('b'); break;
        case '\f': esc2('f'); break;
        default:
          if (c >= 0x10000) {
            const std::uint32_t v = c - 0x10000;
            u(0xd800 | (v >> 10));
            u(0xdc00 | (v & 0x3ff));
          } else {
            u(c);
          }
      }
    }
    out.commit(w);
  }
  out += '"';
}

// Code-point order of two str keys (as sorted() on str). Two 1-byte strings compare with
// memcmp (their units are the code points); anything else with PyUnicode_Compare.
inline bool key_less(PyObject* a, PyObject* b) {
  if (PyUnicode_KIND(a) == PyUnicode_1BYTE_KIND && PyUnicode_KIND(b) == PyUnicode_1BYTE_KIND) {
    const Py_ssize_t na = PyUnicode_GET_LENGTH(a), nb = PyUnicode_GET_LENGTH(b);
    const int c = std::memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b),
                              static_cast<std::size_t>(na < nb ? na : nb));
    return c < 0 || (c == 0 && na < nb);
  }
  return PyUnicode_Compare(a, b) < 0;
}

// Appends repr(x) for a finite double, as float.__repr__ / json.dumps write it: the shortest
// digit string that round-trips (std::to_chars, shortest mode -- the same digits as CPython's
// PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0), checked by a Hypothesis test over all
// kinds of doubles), laid out with CPython's rule: exponent form when the decimal point position
// is <= -4 or > 16 ("1e+16", "1.5e-05"), otherwise positional with at least one fractional digit.
// Falls back to PyOS_double_to_string if to_chars fails.
bool put_float_repr(Out& out, double x) {
  char sci[40];
  const auto res = std::to_chars(sci, sci + sizeof sci, x, std::chars_format::scientific);
  if (res.ec != std::errc()) {
    char* p = PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, nullptr);
    if (p == nullptr) return false;
    out += p;
    PyMem_Free(p);
    return true;
  }
  // sci = [-]d[.ddd]e(+|-)XX
  const char* p = sci;
  const char* end = res.ptr;
  if (*p == '-') {
    out += '-';
    ++p;
  }
  char digits[32];
  int nd = 0;
  while (p < end && *p != 'e') {
    if (*p != '.') digits[nd++] = *p;
    ++p;
  }
  int exp10 = 0;
  if (p < end) {  // 'e'
    ++p;
    const bool neg = *p == '-';
    ++p;
    while (p < end) exp10 = exp10 * 10 + (*p++ - '0');
    if (neg) exp10 = -exp10;
  }
  const int decpt = exp10 + 1;  // position of the decimal point relative to the digits
  if (decpt <= -4 || decpt > 16) {
    out += digits[0];
    if (nd > 1) {
      out += '.';
      out.append(digits + 1, static_cast<std::size_t>(nd - 1));
    }
    const int e = decpt - 1;
    out += 'e';
    out += e < 0 ? '-' : '+';
    const int ae = e < 0 ? -e : e;
    if (ae < 10) out += '0';
    out += std::to_string(ae);
  } else if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-decpt), '0');
    out.append(digits, static_cast<std::size_t>(nd));
  } else if (decpt >= nd) {
    out.append(digits, static_cast<std::size_t>(nd));
    out.append(static_cast<std::size_t>(decpt - nd), '0');
    out += ".0";
  } else {
    out.append(digits, static_cast<std::size_t>(decpt));
    out += '.';
    out.append(digits + decpt, static_cast<std::size_t>(nd - decpt));
  }
  return true;
}

// `depth`: the number of containers around `o`. At most kMaxJsonDepth containers nest, whatever
// they hold (empty or not).
bool encode(PyObject* o, Out& out, int depth) {
  if (depth >= kMaxJsonDepth && (PyList_Check(o) || PyTuple_Check(o) || PyDict_Check(o))) {
    raise_python("ValidationError", "canonical JSON: nested deeper than 256 levels");
  }
  if (PyUnicode_Check(o)) {
    visit_str(o, [&](auto* p, std::size_t n) { put_string(out, p, n); });
    return true;
  }
  if (o == Py_None) { out += "null"; return true; }
  if (o == Py_True) { out += "true"; return true; }
  if (o == Py_False) { out += "false"; return true; }
  if (PyLong_Check(o)) {
    PyObject* r = PyLong_Type.tp_repr(o);
    if (r == nullptr) return false;
    Py_ssize_t n;
    const char* p = PyUnicode_AsUTF8AndSize(r, &n);
    if (p != nullptr) out.append(p, static_cast<std::size_t>(n));
    Py_DECREF(r);
    return p != nullptr;
  }
  if (PyFloat_Check(o)) {
    const double x = PyFloat_AS_DOUBLE(o);
    if (!std::isfinite(x)) raise_python("ValidationError", "canonical JSON: out of range float values are not JSON compliant");
    return put_float_repr(out, x);
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    out += '[';
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (i) out += ',';
      // lists may change size while encoding nested items; re-read the item each time
      if (i >= PySequence_Fast_GET_SIZE(o)) break;
      PyObject* it = PySequence_Fast_GET_ITEM(o, i);
      Py_INCREF(it);
      const bool ok = encode(it, out, depth + 1);
      Py_DECREF(it);
      if (!ok) return false;
    }
    out += ']';
    return true;
  }
  if (PyDict_Check(o)) {
    std::vector<std::pair<PyObject*, PyObject*>> items;
    items.reserve(static_cast<std::size_t>(PyDict_GET_SIZE(o)));
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(o, &pos, &k, &v)) {
      if (!PyUnicode_Check(k)) {
        raise_python("InputTypeError", std::string("canonical JSON: keys must be str, not ") +
                                           Py_TYPE(k)->tp_name);
      }
      Py_INCREF(k);
      Py_INCREF(v);
      items.emplace_back(k, v);
    }
    struct Release {
      std::vector<std::pair<PyObject*, PyObject*>>& v;
      ~Release() {
        for (auto& kv : v) {
          Py_DECREF(kv.first);
          Py_DECREF(kv.second);
        }
      }
    } release{items};
    std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
      return key_less(a.first, b.first);
    });
    out += '{';
    bool first = true;
    for (auto& kv : items) {
      if (!first) out += ',';
      first = false;
      visit_str(kv.first, [&](auto* p, std::size_t n) { put_string(out, p, n); });
      out += ':';
      if (!encode(kv.second, out, depth + 1)) return false;
    }
    out += '}';
    return true;
  }
  raise_python("InputTypeError", std::string("canonical JSON: object of type ") +
                                     Py_TYPE(o)->tp_name + " is not JSON serializable");
}

PyObject* ascii_str(const Out& out) { return ascii_str(out.data(), out.size()); }

PyObject* py_canonical_json(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1) return PyErr_Format(PyExc_TypeError, "canonical_json expects 1 argument");
  Out out;
  try {
    if (!encode(args[0], out, 0)) return nullptr;
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
  return ascii_str(out);
}

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

// ---- methods installed on the classes -------------------------------------------------------
PyObject* meth_event_to_dict(PyObject* self, PyObject*) { return event_to_dict(self); }
// An event of a SafetyEvent subclass may override to_dict(): the signal is then written by the
// Python reference methods (which call event.to_dict()); the C++ writers read the exact class.
bool event_is_subclass(PyObject* sig) {
  if (!g.signal_ready || !PyObject_TypeCheck(sig, g.signal_cls)) return false;
  PyObject* ev = *reinterpret_cast<PyObject**>(reinterpret_cast<char*>(sig) + g.signal_descr[S_EVENT]);
  return ev != nullptr && Py_TYPE(ev) != g.event_cls && PyObject_TypeCheck(ev, g.event_cls);
}
PyObject* meth_signal_to_json(PyObject* self, PyObject*) {
  if (event_is_subclass(self)) return PyObject_CallMethod(self, "_to_json_py", nullptr);
  return py_signal_to_json(nullptr, &self, 1);
}
PyObject* meth_signal_transport_dict(PyObject* self, PyObject*) {
  if (event_is_subclass(self)) return PyObject_CallMethod(self, "_to_transport_dict_py", nullptr);
  return py_signal_transport_dict(nullptr, &self, 1);
}

PyMethodDef kFromPolicyDef = {
    "from_policy_decision",
    reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(py_from_policy_decision)),
    METH_FASTCALL | METH_KEYWORDS | METH_CLASS,
    "from_policy_decision($type, /, *, hook_id, hook_scope, policy_decision, halt_reason, "
    "tenant_safe_explanation, request_id='', tenant_id='', threshold=None, observed_score=None, "
    "latency_ms=None, evidence_refs=(), trace_attribution=None, attributes=None, event_id=None, "
    "timestamp=None)\n--\n\n"
    "Build an event from a hook's policy decision (as a hook reports it). Same errors as the "
    "constructor: ValidationError / FieldTypeError / TenantSafetyError naming the field.\n\n"
    "The inputs are validated once, in C++, and the event is built directly; event_id / timestamp "
    "None or '' are generated (sevt_ + 128 random bits; the current UTC time). Every call the "
    "fast path declines (a subclass, unusual or invalid values) runs the Python implementation "
    "(SafetyEvent._from_policy_decision_py) and the constructor."};
PyMethodDef kEventToDictDef = {
    "to_dict", reinterpret_cast<PyCFunction>(meth_event_to_dict), METH_NOARGS,
    "to_dict($self, /)\n--\n\n"
    "JSON-safe dict with the 16 schema keys (the same keys and values as director-ai's "
    "SafetyEvent.to_dict()); evidence_refs is a list, trace_attribution a dict or None, "
    "attributes a copy."};
PyMethodDef kSignalToJsonDef = {
    "to_json", reinterpret_cast<PyCFunction>(meth_signal_to_json), METH_NOARGS,
    "to_json($self, /)\n--\n\n"
    "Canonical JSON: sorted keys, compact separators, ASCII only (\\uXXXX escapes). "
    "Byte-identical to director-ai 3.21.0's to_json() for the same payload (written directly "
    "from the fields, without building the transport dict)."};
PyMethodDef kSignalTransportDef = {
    "to_transport_dict", reinterpret_cast<PyCFunction>(meth_signal_transport_dict), METH_NOARGS,
    "to_transport_dict($self, /)\n--\n\n"
    "The JSON-safe transport payload (11 keys; privacy.redaction_required is a list)."};

// {name: descriptor} of the C++ methods for SafetyEvent / DirectorSafetySignal.
PyObject* methods_dict(PyTypeObject* tp, std::initializer_list<std::pair<PyMethodDef*, bool>> defs) {
  PyObject* d = PyDict_New();
  if (d == nullptr) return nullptr;
  for (const auto& [def, is_class] : defs) {
    PyObject* descr = is_class ? PyDescr_NewClassMethod(tp, def) : PyDescr_NewMethod(tp, def);
    if (descr == nullptr || PyDict_SetItemString(d, def->ml_name, descr) < 0) {
      Py_XDECREF(descr);
      Py_DECREF(d);
      return nullptr;
    }
    Py_DECREF(descr);
  }
  return d;
}

PyObject* py_event_methods(PyObject*, PyObject* const*, Py_ssize_t nargs) {
  if (!check_ready()) return nullptr;
  if (nargs != 0) return PyErr_Format(PyExc_TypeError, "_safety_event_methods() takes no arguments");
  return methods_dict(g.event_cls, {{&kFromPolicyDef, true}, {&kEventToDictDef, false}});
}

PyObject* py_signal_methods(PyObject*, PyObject* const*, Py_ssize_t nargs) {
  if (!check_ready() || !check_signal_ready()) return nullptr;
  if (nargs != 0) return PyErr_Format(PyExc_TypeError, "_safety_signal_methods() takes no arguments");
  return methods_dict(g.signal_cls, {{&kSignalToJsonDef, false}, {&kSignalTransportDef, false}});
}

// ---- public entry points (validate_safety_event_payload, validate_director_safety_signal,
// director_safety_signal_from_event) --------------------------------------------------------
// Each is a builtin of the Python module it replaces a function of (so it pickles by name); the
// C++ fast path runs first and every call it declines (keyword forms, invalid or unusual input) is
// passed on, unchanged, to the Python implementation registered with it, which gives the
// documented result or error.

PyObject* pass_on(PyObject* fallback, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (PyErr_Occurred()) {
    if (!clearable_error()) return nullptr;
    PyErr_Clear();
  }
  return PyObject_Vectorcall(fallback, args, static_cast<std::size_t>(nargs), kwnames);
}

PyObject* g_entry_fallback[3] = {};  // validate_event, validate_signal, signal_from_event

PyObject* entry_validate_event(PyObject*, PyObject* const* args, Py_ssize_t nargs,
                               PyObject* kwnames) {
  if (!check_ready()) return nullptr;
  PyObject* fallback = g_entry_fallback[0];
  if (nargs == 1 && kwnames == nullptr) {
    PyObject* ev = event_from_payload(args[0]);
    if (ev != nullptr) return ev;
  }
  return pass_on(fallback, args, nargs, kwnames);
}

PyObject* entry_validate_signal(PyObject*, PyObject* const* args, Py_ssize_t nargs,
                                PyObject* kwnames) {
  if (!check_ready() || !check_signal_ready()) return nullptr;
  PyObject* fallback = g_entry_fallback[1];
  if (nargs == 1 && kwnames == nullptr) {
    PyObject* sig = signal_from_payload(args[0]);
    if (sig != nullptr) return sig;
  }
  return pass_on(fallback, args, nargs, kwnames);
}

// director_safety_signal_from_event(event, *, producer_id, framework="generic", signal_id=None,
//                                   emitted_at=None, extensions=None)
constexpr const char* kFromEventNames[5] = {"producer_id", "framework", "signal_id", "emitted_at",
                                            "extensions"};
PyObject* entry_signal_from_event(PyObject*, PyObject* const* args, Py_ssize_t nargs,
                                  PyObject* kwnames) {
  if (!check_ready() || !check_signal_ready()) return nullptr;
  PyObject* fallback = g_entry_fallback[2];
  if (nargs != 1 || kwnames == nullptr) return pass_on(fallback, args, nargs, kwnames);
  PyObject* kw[5] = {};
  const Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, k);
    int found = -1;
    for (int a = 0; a < 5 && found < 0; ++a)
      if (name == g.from_event_names[a]) found = a;
    for (int a = 0; a < 5 && found < 0; ++a)
      if (PyUnicode_Compare(name, g.from_event_names[a]) == 0) found = a;
    if (found < 0 || kw[found] != nullptr) return pass_on(fallback, args, nargs, kwnames);
    kw[found] = args[nargs + k];
  }
  if (kw[0] == nullptr) return pass_on(fallback, args, nargs, kwnames);  // producer_id required
  PyObject* build_args[7] = {kw[2] ? kw[2] : Py_None, kw[3] ? kw[3] : Py_None, kw[0],
                             kw[1] ? kw[1] : g.str_generic, args[0], g.default_schema_ref,
                             kw[4] ? kw[4] : Py_None};
  PyObject* sig = py_signal_build(nullptr, build_args, 7);
  if (sig == nullptr) return nullptr;  // MemoryError / OSError
  if (sig != Py_None) return sig;
  Py_DECREF(sig);
  return pass_on(fallback, args, nargs, kwnames);
}

struct EntryDef {
  const char* kind;
  PyMethodDef def;
  std::string doc;  // text signature + the Python function's docstring (kept alive here)
  const char* signature;
};
EntryDef kEntries[] = {
    {"validate_event",
     {"validate_safety_event_payload",
      reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(entry_validate_event)),
      METH_FASTCALL | METH_KEYWORDS, nullptr},
     {}, "validate_safety_event_payload(payload)"},
    {"validate_signal",
     {"validate_director_safety_signal",
      reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(entry_validate_signal)),
      METH_FASTCALL | METH_KEYWORDS, nullptr},
     {}, "validate_director_safety_signal(payload)"},
    {"signal_from_event",
     {"director_safety_signal_from_event",
      reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(entry_signal_from_event)),
      METH_FASTCALL | METH_KEYWORDS, nullptr},
     {}, "director_safety_signal_from_event(event, *, producer_id, framework='generic', "
         "signal_id=None, emitted_at=None, extensions=None)"},
};

// _safety_entry(kind, fallback, module, doc) -> builtin function of `module`
PyObject* py_entry(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_ready()) return nullptr;
  if (nargs != 4 || !PyUnicode_Check(args[0]) || !PyCallable_Check(args[1]) ||
      !PyModule_Check(args[2]) || !PyUnicode_Check(args[3]))
    return PyErr_Format(PyExc_TypeError, "_safety_entry(kind, fallback, module, doc)");
  for (std::size_t k = 0; k < 3; ++k) {
    EntryDef& e = kEntries[k];
    if (!ascii_eq(args[0], e.kind)) continue;
    if (e.def.ml_doc == nullptr) {  // first call: fix the docstring and fallback (kept afterwards)
      const char* doc = PyUnicode_AsUTF8(args[3]);
      if (doc == nullptr) return nullptr;
      e.doc = std::string(e.signature) + "\n--\n\n" + doc;
      e.def.ml_doc = e.doc.c_str();
      Py_INCREF(args[1]);
      g_entry_fallback[k] = args[1];
    }
    PyObject* name = PyModule_GetNameObject(args[2]);
    if (name == nullptr) return nullptr;
    PyObject* f = PyCFunction_NewEx(&e.def, args[2], name);
    Py_DECREF(name);
    return f;
  }
  return PyErr_Format(PyExc_ValueError, "_safety_entry: unknown kind %R", args[0]);
}

// ---- small entry points -----------------------------------------------------------------------
PyObject* py_tenant_violation(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2 || !PyUnicode_Check(args[0])) {
    return PyErr_Format(PyExc_TypeError, "_safety_tenant_violation(text: str, key: bool)");
  }
  const int key = PyObject_IsTrue(args[1]);
  if (key < 0) return nullptr;
  std::string why;
  try {
    why = visit_str(args[0], [key](auto* p, std::size_t n) {
      return sr::tenant_safety_violation(p, n, key != 0);
    });
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
  if (why.empty()) Py_RETURN_NONE;
  return PyUnicode_FromStringAndSize(why.data(), static_cast<Py_ssize_t>(why.size()));
}

PyObject* py_fold(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1 || !PyUnicode_Check(args[0])) return PyErr_Format(PyExc_TypeError, "_safety_fold(text: str)");
  std::string folded;
  try {
    folded = visit_str(args[0], [](auto* p, std::size_t n) { return sr::fold_for_detection(p, n); });
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
  // ASCII plus 0x80 (a code point with no ASCII form): decoded as Latin-1 to keep 0x80
  return PyUnicode_DecodeLatin1(folded.data(), static_cast<Py_ssize_t>(folded.size()), nullptr);
}

PyObject* py_new_id(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1 || !PyUnicode_Check(args[0])) return PyErr_Format(PyExc_TypeError, "_safety_new_id(prefix: str)");
  Py_ssize_t n;
  const char* p = PyUnicode_AsUTF8AndSize(args[0], &n);
  if (p == nullptr) return nullptr;
  if (n > 8) return PyErr_Format(PyExc_ValueError, "prefix longer than 8 bytes");
  return new_id(std::string_view(p, static_cast<std::size_t>(n)));
}

PyObject* py_utc_timestamp(PyObject*, PyObject* const*, Py_ssize_t nargs) {
  if (nargs != 0) return PyErr_Format(PyExc_TypeError, "_safety_utc_timestamp() takes no arguments");
  return utc_now();
}

PyObject* py_format_timestamp(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1) return PyErr_Format(PyExc_TypeError, "_safety_format_timestamp(unix_ns: int)");
  const long long ns = PyLong_AsLongLong(args[0]);
  if (ns == -1 && PyErr_Occurred()) return nullptr;
  char buf[27];
  sr::format_utc_timestamp(ns, buf);
  return PyUnicode_FromStringAndSize(buf, 27);
}

// Offset of the object slot `name` of `tp` (false with an exception when it is not one).
bool get_descr(PyTypeObject* tp, const char* name, Py_ssize_t* offset) {
  PyObject* d = PyObject_GetAttrString(reinterpret_cast<PyObject*>(tp), name);
  if (d == nullptr) return false;
  bool ok = Py_TYPE(d) == &PyMemberDescr_Type;
  if (ok) {
    const PyMemberDef* m = reinterpret_cast<PyMemberDescrObject*>(d)->d_member;
    ok = m->type == T_OBJECT_EX && !(m->flags & READONLY) && m->offset > 0;
    *offset = m->offset;
  }
  Py_DECREF(d);
  if (!ok) PyErr_Format(PyExc_TypeError, "%s.%s is not an object slot", tp->tp_name, name);
  return ok;
}

// _safety_setup(SafetyEvent, HaltTraceAttribution, trace_from_payload, from_policy_decision_py)
PyObject* py_setup(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 4 || !PyType_Check(args[0]) || !PyType_Check(args[1]) ||
      !PyCallable_Check(args[2]) || !PyCallable_Check(args[3]))
    return PyErr_Format(PyExc_TypeError,
                        "_safety_setup(event_cls, trace_cls, trace_from_payload, from_policy_decision_py)");
  if (g.ready) Py_RETURN_NONE;  // idempotent (a module reload keeps the first classes)
  g.event_cls = reinterpret_cast<PyTypeObject*>(args[0]);
  g.trace_cls = reinterpret_cast<PyTypeObject*>(args[1]);
  g.trace_from_payload = args[2];
  g.from_policy_py = args[3];
  for (int i = 0; i < 4; ++i) Py_INCREF(args[i]);
  for (int a = 0; a < kPolicyArgs; ++a)
    if (!(g.policy_arg_names[a] = intern(kPolicyArgNames[a]))) return nullptr;
  for (int a = 0; a < 5; ++a)
    if (!(g.from_event_names[a] = intern(kFromEventNames[a]))) return nullptr;
  if (!(g.str_generic = intern("generic"))) return nullptr;
  if (!(g.empty_str = intern("")) || !(g.empty_tuple = PyTuple_New(0))) return nullptr;
  if (!(g.event_dict_template = PyDict_New())) return nullptr;
  {
    static constexpr int order[kEventFields] = {
        E_SCHEMA, E_EVENT_ID, E_TIMESTAMP, E_REQUEST_ID, E_TENANT_ID, E_HOOK_ID,
        E_HOOK_SCOPE, E_POLICY, E_REASON, E_THRESHOLD, E_OBSERVED, E_LATENCY,
        E_REFS, E_EXPLANATION, E_TRACE, E_ATTRS};
    for (int f : order) {
      PyObject* key = intern(kEventFieldNames[f]);
      if (key == nullptr || PyDict_SetItem(g.event_dict_template, key, Py_None) < 0) return nullptr;
      Py_DECREF(key);
    }
  }
  for (int f = 0; f < kEventFields; ++f) {
    if (!get_descr(g.event_cls, kEventFieldNames[f], &g.event_descr[f])) return nullptr;
    if (!(g.event_keys[f] = intern(kEventFieldNames[f]))) return nullptr;
  }
  for (int f = 0; f < 3; ++f)
    if (!get_descr(g.trace_cls, kTraceStrFields[f], &g.trace_descr[f])) return nullptr;
  for (int i = 0; i < 11; ++i)
    if (!(g.top_keys[i] = intern(kTopKeys[i]))) return nullptr;
  for (int i = 0; i < 5; ++i)
    if (!(g.interop_keys[i] = intern(kInteropKeys[i]))) return nullptr;
  for (int i = 0; i < 3; ++i)
    if (!(g.privacy_keys[i] = intern(kPrivacyKeys[i]))) return nullptr;
  for (int i = 0; i < 9; ++i)
    if (!(g.scopes[i] = intern(kHookScopes[i]))) return nullptr;
  for (int i = 0; i < 4; ++i) {
    if (!(g.decisions[i] = intern(kDecisions[i]))) return nullptr;
    if (!(g.severities[i] = intern(kSeverity[i]))) return nullptr;
  }
  for (int i = 0; i < 5; ++i)
    if (!(g.redaction[i] = intern(kRedaction[i]))) return nullptr;
  if (!(g.str_tenant_safe = intern("tenant_safe"))) return nullptr;
  if (!(g.top_template = PyDict_New()) || !(g.interop_template = PyDict_New()) ||
      !(g.privacy_template = PyDict_New()))
    return nullptr;
  for (PyObject* k : g.top_keys)
    if (PyDict_SetItem(g.top_template, k, Py_None) < 0) return nullptr;
  for (PyObject* k : g.interop_keys)
    if (PyDict_SetItem(g.interop_template, k, Py_None) < 0) return nullptr;
  if (!(g.str_tenant_safe = intern("tenant_safe"))) return nullptr;
  if (PyDict_SetItem(g.privacy_template, g.privacy_keys[0], g.str_tenant_safe) < 0 ||
      PyDict_SetItem(g.privacy_template, g.privacy_keys[1], Py_False) < 0 ||
      PyDict_SetItem(g.privacy_template, g.privacy_keys[2], Py_None) < 0)
    return nullptr;
  if (!(g.event_schema = intern(kEventSchema)) || !(g.protocol = intern(kProtocol)) ||
      !(g.str_to_dict = intern("to_dict")))
    return nullptr;
  g.ready = true;
  Py_RETURN_NONE;
}

// _safety_setup_signal(DirectorSafetySignal, default_schema_ref)
PyObject* py_setup_signal(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_ready()) return nullptr;
  if (nargs != 2 || !PyType_Check(args[0]) || !is_str(args[1]))
    return PyErr_Format(PyExc_TypeError, "_safety_setup_signal(signal_cls, default_schema_ref)");
  if (g.signal_ready) Py_RETURN_NONE;
  if (!name_ok(args[1], 256))
    return PyErr_Format(PyExc_ValueError, "_safety_setup_signal: default schema_ref is not valid");
  g.default_schema_ref = args[1];
  Py_INCREF(args[1]);
  g.signal_cls = reinterpret_cast<PyTypeObject*>(args[0]);
  Py_INCREF(args[0]);
  for (int f = 0; f < kSignalFields; ++f)
    if (!get_descr(g.signal_cls, kSignalFieldNames[f], &g.signal_descr[f])) return nullptr;
  g.signal_ready = true;
  Py_RETURN_NONE;
}

#define DF_FASTCALL(name, fn, doc) \
  {name, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(fn)), METH_FASTCALL, doc}

PyMethodDef kMethods[] = {
    DF_FASTCALL("_safety_setup", py_setup,
                "_safety_setup(event_cls, trace_cls, trace_from_payload, from_policy_decision_py, /)\n--\n\n"
                "Register the SafetyEvent and HaltTraceAttribution classes (private; called once "
                "at import)."),
    DF_FASTCALL("_safety_setup_signal", py_setup_signal,
                "_safety_setup_signal(signal_cls, default_schema_ref, /)\n--\n\n"
                "Register the DirectorSafetySignal class and validate the default schema_ref "
                "(private; called once at import)."),
    DF_FASTCALL("_safety_event_build", py_event_build,
                "_safety_event_build(event_id, timestamp, request_id, tenant_id, hook_id, "
                "hook_scope, policy_decision, halt_reason, threshold, observed_score, latency_ms, "
                "evidence_refs, tenant_safe_explanation, trace_attribution, attributes, /)\n--\n\n"
                "Validated SafetyEvent, or None when the values need the Python path (invalid or "
                "unusual types). event_id/timestamp None or '' are generated."),
    DF_FASTCALL("_safety_event_methods", py_event_methods,
                "_safety_event_methods()\n--\n\n"
                "{name: descriptor} of the C++ SafetyEvent methods (from_policy_decision, to_dict); "
                "private, installed on the class at import."),
    DF_FASTCALL("_safety_signal_methods", py_signal_methods,
                "_safety_signal_methods()\n--\n\n"
                "{name: descriptor} of the C++ DirectorSafetySignal methods (to_json, "
                "to_transport_dict); private, installed on the class at import."),
    DF_FASTCALL("_safety_entry", py_entry,
                "_safety_entry(kind, fallback, module, doc, /)\n--\n\n"
                "The C++ entry point of kind 'validate_event', 'validate_signal' or "
                "'signal_from_event' as a builtin that passes every call it declines to "
                "`fallback` (private; used at import)."),
    DF_FASTCALL("_safety_event_post_init", py_event_post_init,
                "_safety_event_post_init(event, /)\n--\n\n"
                "True when a constructed SafetyEvent is valid (attributes are then copied); "
                "False: run the Python checks."),
    DF_FASTCALL("_safety_event_from_payload", py_event_from_payload,
                "_safety_event_from_payload(payload, /)\n--\n\n"
                "SafetyEvent from a valid to_dict() payload, or None (use the Python path)."),
    DF_FASTCALL("_safety_signal_build", py_signal_build,
                "_safety_signal_build(signal_id, emitted_at, producer_id, framework, event, "
                "schema_ref, extensions, /)\n--\n\n"
                "Validated DirectorSafetySignal, or None (use the Python path)."),
    DF_FASTCALL("_safety_signal_post_init", py_signal_post_init,
                "_safety_signal_post_init(signal, /)\n--\n\n"
                "True when a constructed DirectorSafetySignal is valid (extensions copied)."),
    DF_FASTCALL("_safety_signal_from_payload", py_signal_from_payload,
                "_safety_signal_from_payload(payload, /)\n--\n\n"
                "DirectorSafetySignal from a valid transport dict, or None (use the Python path)."),
    DF_FASTCALL("_safety_tenant_violation", py_tenant_violation,
                "_safety_tenant_violation(text, key, /)\n--\n\n"
                "Reason why text breaks a tenant-safety rule (V1..V6, S1, S2, K1..K5), or None."),
    DF_FASTCALL("_safety_fold", py_fold,
                "_safety_fold(text, /)\n--\n\n"
                "The detection fold of text: ASCII, with U+0080 for code points that map to no ASCII."),
    DF_FASTCALL("_safety_new_id", py_new_id,
                "_safety_new_id(prefix, /)\n--\n\n"
                "prefix + 32 hex digits of 128 bits from the kernel CSPRNG (getrandom, arc4random_buf or /dev/urandom)."),
    DF_FASTCALL("_safety_utc_timestamp", py_utc_timestamp,
                "_safety_utc_timestamp()\n--\n\n"
                "Current UTC time as 'YYYY-MM-DDTHH:MM:SS.ffffffZ' (27 characters)."),
    DF_FASTCALL("_safety_format_timestamp", py_format_timestamp,
                "_safety_format_timestamp(unix_ns, /)\n--\n\n"
                "'YYYY-MM-DDTHH:MM:SS.ffffffZ' for integer nanoseconds since the Unix epoch."),
    DF_FASTCALL("canonical_json", py_canonical_json,
                "canonical_json(obj, /)\n--\n\n"
                "json.dumps(obj, sort_keys=True, separators=(',', ':'), ensure_ascii=True, "
                "allow_nan=False) for dict (str keys) / list / tuple / str / int / float / bool / "
                "None, byte for byte. Raises ValidationError (NaN/inf, > 256 levels) or "
                "InputTypeError (other types, non-str keys)."),
    {nullptr, nullptr, 0, nullptr},
};
#undef DF_FASTCALL

}  // namespace

void bind_safety(py::module_& m) {
  for (PyMethodDef* def = kMethods; def->ml_name != nullptr; ++def) {
    PyObject* f = PyCFunction_NewEx(def, nullptr, m.attr("__name__").ptr());
    if (f == nullptr) throw py::error_already_set();
    m.add_object(def->ml_name, py::reinterpret_steal<py::object>(f));
  }
}

}  // namespace director_fast::bindings
