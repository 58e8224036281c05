// Ids and timestamps of the safety fast paths: random ids (prefix + 32 hex digits from the kernel
// CSPRNG), the current UTC timestamp, and the _safety_new_id / _safety_utc_timestamp /
// _safety_format_timestamp entry points (defined in safety_ids.cpp). id_or_new is inline: it runs
// on every event / signal build.
#pragma once

#include <string_view>

#include "safety_common.hpp"

namespace director_fast::bindings::safety_impl {

PyObject* new_id(std::string_view prefix);
PyObject* utc_now();

// "" / None -> generated; a non-empty str -> itself; anything else -> nullptr (decline).
inline PyObject* id_or_new(PyObject* v, std::string_view prefix, bool timestamp) {
  if (v == Py_None || (is_str(v) && slen(v) == 0)) return timestamp ? utc_now() : new_id(prefix);
  if (!is_str(v)) return nullptr;
  Py_INCREF(v);
  return v;
}

PyObject* py_new_id(PyObject*, PyObject* const* args, Py_ssize_t nargs);
PyObject* py_utc_timestamp(PyObject*, PyObject* const*, Py_ssize_t nargs);
PyObject* py_format_timestamp(PyObject*, PyObject* const* args, Py_ssize_t nargs);

}  // namespace director_fast::bindings::safety_impl
