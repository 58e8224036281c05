// Shared helpers for the pybind11 glue: exception translation and numpy buffer checks.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

namespace director_fast::bindings {

namespace py = pybind11;

// Registers the translator from director_fast C++ errors to director_fast.errors classes.
void register_error_translator(py::module_& m);

// Raise director_fast.errors.<cls>(message) from inside a binding.
[[noreturn]] void raise_python(const char* cls, const std::string& message);

// A 1-D C-contiguous array of T, checked without copying. `what` names the argument.
template <typename T>
py::array_t<T> require_1d(const py::handle& obj, const char* what) {
  if (!py::isinstance<py::array>(obj)) {
    raise_python("InputTypeError", std::string(what) + " must be a numpy.ndarray, got " +
                                       std::string(py::str(obj.get_type().attr("__name__"))) +
                                       " (convert with numpy.ascontiguousarray(x, dtype=numpy." +
                                       std::string(py::str(py::dtype::of<T>())) + "))");
  }
  py::array arr = py::reinterpret_borrow<py::array>(obj);
  if (!arr.dtype().is(py::dtype::of<T>())) {
    raise_python("InputTypeError", std::string(what) + " must have dtype " +
                                       std::string(py::str(py::dtype::of<T>())) + ", got " +
                                       std::string(py::str(arr.dtype())) +
                                       " (no silent copies: convert with numpy.ascontiguousarray(x, dtype=numpy." +
                                       std::string(py::str(py::dtype::of<T>())) + "))");
  }
  if (arr.ndim() != 1) {
    raise_python("InputTypeError", std::string(what) + " must be 1-D, got shape with " +
                                       std::to_string(arr.ndim()) + " dimensions");
  }
  if (!(arr.flags() & py::array::c_style)) {
    raise_python("InputTypeError", std::string(what) +
                                       " must be C-contiguous (use numpy.ascontiguousarray)");
  }
  return py::reinterpret_borrow<py::array_t<T>>(arr);
}

// An integer argument taken as any object (the signature and the stub say `int`) so that
// int64_arg() can report a wrong type or an out-of-range value as a director_fast error naming
// the argument, instead of pybind11's generic "incompatible function arguments".
struct IntArg {
  py::handle obj;
};

// `arg` as an int64 in [lo, hi]: InputTypeError for a non-integer (bool and float included),
// ValidationError for a value outside the range (Python ints of any size are accepted first).
inline std::int64_t int64_arg(const IntArg& arg, const char* name, std::int64_t lo, std::int64_t hi) {
  PyObject* o = arg.obj.ptr();
  if (PyBool_Check(o) || PyFloat_Check(o) || !PyIndex_Check(o)) {
    raise_python("InputTypeError", std::string(name) + " must be an int, got " +
                                       std::string(py::str(arg.obj.get_type().attr("__name__"))));
  }
  py::object idx = py::reinterpret_steal<py::object>(PyNumber_Index(o));
  if (!idx) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(idx.ptr(), &overflow);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow != 0 || v < lo || v > hi) {
    raise_python("ValidationError", std::string(name) + " must be in [" + std::to_string(lo) +
                                        ", " + std::to_string(hi) + "], got " +
                                        std::string(py::str(idx)));
  }
  return static_cast<std::int64_t>(v);
}

void bind_halt(py::module_& m);
void bind_text(py::module_& m);
void bind_index(py::module_& m);
void bind_temporal(py::module_& m);
void bind_lexical(py::module_& m);
void bind_safety(py::module_& m);
void bind_numbers(py::module_& m);
void bind_bm25(py::module_& m);

}  // namespace director_fast::bindings

namespace pybind11::detail {
template <>
struct type_caster<director_fast::bindings::IntArg> {
  PYBIND11_TYPE_CASTER(director_fast::bindings::IntArg, const_name("int"));
  bool load(handle src, bool) {
    value.obj = src;
    return static_cast<bool>(src);
  }
};
}  // namespace pybind11::detail
