// Bindings of the BM25 inverted index (bm25.hpp); the public wrapper is
// director_fast.knowledge.BM25. Inputs are converted and checked while holding the GIL; the
// index work itself runs with the GIL released.
#include <pybind11/pybind11.h>
#include <pybind11/typing.h>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common.hpp"
#include "director_fast/bm25.hpp"
#include "director_fast/hashing_embedder.hpp"
#include "director_fast/offsets.hpp"
#include "text_convert.hpp"

namespace py = pybind11;

namespace director_fast::bindings {

namespace {

// A list or tuple of str as UTF-8 strings; InputTypeError / ValidationError name `what`.
std::vector<std::string> term_list(const py::handle& obj, const char* what) {
  if (PyUnicode_Check(obj.ptr()) || !(PyList_Check(obj.ptr()) || PyTuple_Check(obj.ptr()))) {
    raise_python("InputTypeError", std::string(what) + " must be a list or tuple of str, got " +
                                       std::string(py::str(obj.get_type().attr("__name__"))));
  }
  const auto n = static_cast<size_t>(PySequence_Fast_GET_SIZE(obj.ptr()));
  std::vector<std::string> out;
  out.reserve(n);
  PyObject** items = PySequence_Fast_ITEMS(obj.ptr());
  for (size_t i = 0; i < n; ++i) {
    PyObject* it = items[i];
    if (!PyUnicode_Check(it)) {
      raise_python("InputTypeError", std::string(what) + "[" + std::to_string(i) + "] must be a str, got " +
                                         std::string(Py_TYPE(it)->tp_name));
    }
    Py_ssize_t len = 0;
    const char* s = PyUnicode_AsUTF8AndSize(it, &len);
    if (s == nullptr) {
      PyErr_Clear();
      raise_python("ValidationError", std::string(what) + "[" + std::to_string(i) +
                                          "] is not valid text (lone surrogate)");
    }
    out.emplace_back(s, static_cast<size_t>(len));
  }
  return out;
}

py::list hits_to_list(const std::vector<std::pair<int64_t, double>>& hits) {
  py::list out(hits.size());
  for (size_t i = 0; i < hits.size(); ++i) {
    out[i] = py::make_tuple(py::int_(hits[i].first), py::float_(hits[i].second));
  }
  return out;
}

// A list or tuple of ints (int64) as a vector; InputTypeError / ValidationError name `what`.
std::vector<int64_t> id_list(const py::handle& obj, const char* what) {
  if (!(PyList_Check(obj.ptr()) || PyTuple_Check(obj.ptr()))) {
    raise_python("InputTypeError", std::string(what) + " must be a list or tuple of int, got " +
                                       std::string(py::str(obj.get_type().attr("__name__"))));
  }
  const auto n = static_cast<size_t>(PySequence_Fast_GET_SIZE(obj.ptr()));
  PyObject** items = PySequence_Fast_ITEMS(obj.ptr());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    PyObject* it = items[i];
    if (!PyLong_Check(it) || PyBool_Check(it)) {
      raise_python("InputTypeError", std::string(what) + "[" + std::to_string(i) + "] must be an int, got " +
                                         std::string(Py_TYPE(it)->tp_name));
    }
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(it, &overflow);
    if (overflow != 0) raise_python("ValidationError", std::string(what) + "[" + std::to_string(i) + "] is outside int64");
    out[i] = static_cast<int64_t>(v);
  }
  return out;
}

constexpr int64_t kMaxK = std::numeric_limits<int64_t>::max();

// `k` as a count: any int (a negative one asks for nothing, as in the Python class).
size_t k_arg(const IntArg& k) {
  const int64_t v = int64_arg(k, "k", std::numeric_limits<int64_t>::min(), kMaxK);
  return v < 0 ? 0 : static_cast<size_t>(v);
}

// The index terms of a query text (normalize_terms, UTF-8 encoded); call without the GIL.
std::vector<std::string> query_terms(const std::u32string& q) {
  std::vector<std::u32string> terms32 = normalize_terms(q);
  std::vector<std::string> terms;
  terms.reserve(terms32.size());
  for (const auto& t : terms32) terms.push_back(utf8_encode(t));
  return terms;
}

}  // namespace

void bind_bm25(py::module_& m) {
  py::class_<Bm25Index>(m, "Bm25Index",
                        "Okapi BM25 inverted index (private; use director_fast.knowledge.BM25). "
                        "Thread-safe: add is exclusive, top runs concurrently.")
      .def(py::init([](double k1, double b) { return new Bm25Index(k1, b); }), py::arg("k1") = 1.2,
           py::arg("b") = 0.75)
      .def_property_readonly("k1", &Bm25Index::k1)
      .def_property_readonly("b", &Bm25Index::b)
      .def("__len__", &Bm25Index::size)
      .def_property_readonly("total_length", &Bm25Index::total_length)
      .def_property_readonly("vocabulary_size", &Bm25Index::vocabulary_size)
      .def_property_readonly("postings_size", &Bm25Index::postings_size)
      .def(
          "add",
          [](Bm25Index& idx, const IntArg& doc_id, const py::handle& terms) {
            const int64_t id = int64_arg(doc_id, "doc_id", std::numeric_limits<int64_t>::min(), kMaxK);
            std::vector<std::string> t = term_list(terms, "terms");
            py::gil_scoped_release release;
            idx.add(id, t);
          },
          py::arg("doc_id"), py::arg("terms"))
      .def(
          "top",
          [](const Bm25Index& idx, const py::handle& terms, const IntArg& k) {
            const size_t kk = k_arg(k);
            std::vector<std::string> t = term_list(terms, "terms");
            std::vector<std::pair<int64_t, double>> hits;
            {
              py::gil_scoped_release release;
              hits = idx.top(t, kk);
            }
            return hits_to_list(hits);
          },
          py::arg("terms"), py::arg("k"))
      .def(
          "top_text",
          [](const Bm25Index& idx, const py::handle& query, const IntArg& k) {
            // normalize_terms(query) and top() in one call (the terms never become Python objects).
            const size_t kk = k_arg(k);
            std::u32string q = to_u32(query, "query");
            std::vector<std::pair<int64_t, double>> hits;
            {
              py::gil_scoped_release release;
              const std::vector<std::string> terms = query_terms(q);
              hits = idx.top(terms, kk);
            }
            return hits_to_list(hits);
          },
          py::arg("query"), py::arg("k"))
      .def(
          "fuse_top_text",
          [](const Bm25Index& idx, const py::handle& dense_ids, double dense_weight, double rrf_k,
             const py::handle& query, const IntArg& depth, const IntArg& k) {
            // Reciprocal rank fusion of a dense ranking with top_text(query, depth), in one call.
            std::vector<int64_t> dense = id_list(dense_ids, "dense_ids");
            const size_t d = k_arg(depth);
            const size_t kk = k_arg(k);
            std::u32string q = to_u32(query, "query");
            std::vector<std::pair<int64_t, double>> hits;
            {
              py::gil_scoped_release release;
              const std::vector<std::string> terms = query_terms(q);
              hits = idx.fuse_top(dense, dense_weight, rrf_k, terms, d, kk);
            }
            return hits_to_list(hits);
          },
          py::arg("dense_ids"), py::arg("dense_weight"), py::arg("rrf_k"), py::arg("query"), py::arg("depth"),
          py::arg("k"));
}

}  // namespace director_fast::bindings
