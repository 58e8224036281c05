// director_fast._core: the private extension. Only glue lives here: conversion, GIL management,
// exception translation. Each subsystem has its own bind_<name>.cpp.
#include <pybind11/pybind11.h>

#include "common.hpp"
#include "director_fast/errors.hpp"

namespace py = pybind11;

namespace director_fast::bindings {

// A C++ message as a Python str: invalid UTF-8 (a message that quotes a cut of the caller's text)
// becomes U+FFFD instead of a UnicodeDecodeError that would hide the library's own error.
py::str utf8_message(const std::string& message) {
  PyObject* s = PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()), "replace");
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

[[noreturn]] void raise_python(const char* cls, const std::string& message) {
  py::object errors = py::module_::import("director_fast.errors");
  py::object exc = errors.attr(cls)(utf8_message(message));
  PyErr_SetObject(exc.get_type().ptr(), exc.ptr());
  throw py::error_already_set();
}

void register_error_translator(py::module_& m) {
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    auto set = [](const char* cls, const std::string& msg, const char* attr = nullptr,
                  py::object value = py::none()) {
      py::object errors = py::module_::import("director_fast.errors");
      py::object exc = errors.attr(cls)(utf8_message(msg));
      if (attr != nullptr) exc.attr(attr) = value;
      PyErr_SetObject(exc.get_type().ptr(), exc.ptr());
    };
    try {
      std::rethrow_exception(p);
    } catch (const director_fast::ConfigError& e) {
      set("ConfigError", e.what(), "field", py::str(e.field()));
    } catch (const director_fast::ScoreError& e) {
      set("ScoreError", e.what(), "index", py::int_(e.index()));
    } catch (const director_fast::FormatError& e) {
      set("FormatError", e.what());
    } catch (const director_fast::ValueError& e) {
      set("ValidationError", e.what());
    } catch (const director_fast::TypeError& e) {
      set("InputTypeError", e.what());
    } catch (const director_fast::IndexError& e) {
      set("DirectorIndexError", e.what());
    } catch (const director_fast::KeyError& e) {
      set("DirectorKeyError", e.what());
    } catch (const director_fast::IOError& e) {
      set("StorageError", e.what());
    } catch (const director_fast::Error& e) {
      set("DirectorFastError", e.what());
    } catch (const std::bad_alloc&) {
      PyErr_SetString(PyExc_MemoryError, "director_fast: out of memory");
    } catch (const std::invalid_argument& e) {
      set("ValidationError", e.what());
    } catch (const std::out_of_range& e) {
      set("DirectorIndexError", e.what());
    }
  });
  (void)m;
}

}  // namespace director_fast::bindings

PYBIND11_MODULE(_core, m) {
  m.doc() = "director_fast C++ core (private; use the director_fast package).";
  m.attr("__version__") = DIRECTOR_FAST_VERSION;
  director_fast::bindings::register_error_translator(m);
  director_fast::bindings::bind_halt(m);
  director_fast::bindings::bind_text(m);
  director_fast::bindings::bind_index(m);
  director_fast::bindings::bind_temporal(m);
  director_fast::bindings::bind_lexical(m);
  director_fast::bindings::bind_safety(m);
  director_fast::bindings::bind_numbers(m);
  director_fast::bindings::bind_bm25(m);
}
