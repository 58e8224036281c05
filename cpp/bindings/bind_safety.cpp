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
//
// Files (split by concern; include direction one way, top to bottom):
//   safety_common.hpp   str helpers, verified-string cache, field constants, module state, slots
//   safety_ids.*        random ids and UTC timestamps
//   safety_json.*       the canonical JSON encoder
//   safety_event.*      SafetyEvent build / checks / payload reading / to_dict
//   safety_signal.*     DirectorSafetySignal checks / build / payload reading / to_json / transport
//   bind_safety.cpp     (this file) the methods installed on the classes, the public entry points,
//                       _safety_setup*, the small text helpers and the module's method table.
#include <pybind11/pybind11.h>
#include <structmember.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "safety_common.hpp"
#include "safety_event.hpp"
#include "safety_ids.hpp"
#include "safety_json.hpp"
#include "safety_signal.hpp"

namespace py = pybind11;

namespace director_fast::bindings::safety_impl {
namespace {
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

}  // namespace director_fast::bindings::safety_impl

namespace director_fast::bindings {

void bind_safety(py::module_& m) {
  for (PyMethodDef* def = safety_impl::kMethods; def->ml_name != nullptr; ++def) {
    PyObject* f = PyCFunction_NewEx(def, nullptr, m.attr("__name__").ptr());
    if (f == nullptr) throw py::error_already_set();
    m.add_object(def->ml_name, py::reinterpret_steal<py::object>(f));
  }
}

}  // namespace director_fast::bindings
