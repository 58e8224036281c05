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

void bind_halt(py::module_& m);
void bind_text(py::module_& m);
void bind_index(py::module_& m);
void bind_temporal(py::module_& m);
void bind_lexical(py::module_& m);
void bind_safety(py::module_& m);
void bind_numbers(py::module_& m);

}  // namespace director_fast::bindings
