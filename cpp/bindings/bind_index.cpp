// Bindings of the HNSW evidence index.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "common.hpp"
#include "director_fast/errors.hpp"
#include "director_fast/evidence_index.hpp"

namespace py = pybind11;

namespace director_fast::bindings {

namespace {

// A 2-D C-contiguous float32 array with `cols` columns, checked without copying.
py::array_t<float> require_2d_f32(const py::handle& obj, const char* what, size_t cols) {
  if (!py::isinstance<py::array>(obj)) {
    raise_python("InputTypeError", std::string(what) + " must be a numpy.ndarray of float32, got " +
                                       std::string(py::str(obj.get_type().attr("__name__"))) +
                                       " (convert with numpy.ascontiguousarray(x, dtype=numpy.float32))");
  }
  py::array arr = py::reinterpret_borrow<py::array>(obj);
  if (!arr.dtype().is(py::dtype::of<float>())) {
    raise_python("InputTypeError", std::string(what) + " must have dtype float32, got " +
                                       std::string(py::str(arr.dtype())) +
                                       " (no silent copies: convert with numpy.ascontiguousarray(x, dtype=numpy.float32))");
  }
  if (arr.ndim() != 2) {
    raise_python("InputTypeError", std::string(what) + " must be 2-D (n, dim), got " +
                                       std::to_string(arr.ndim()) + " dimensions");
  }
  if (static_cast<size_t>(arr.shape(1)) != cols) {
    raise_python("InputTypeError", std::string(what) + " must have " + std::to_string(cols) +
                                       " columns (the index dim), got " + std::to_string(arr.shape(1)));
  }
  if (!(arr.flags() & py::array::c_style)) {
    raise_python("InputTypeError", std::string(what) + " must be C-contiguous (use numpy.ascontiguousarray)");
  }
  return py::reinterpret_borrow<py::array_t<float>>(arr);
}

// A str argument as UTF-8; a lone surrogate raises ValidationError naming `what`.
std::string utf8_arg(const py::handle& obj, const std::string& what) {
  if (!PyUnicode_Check(obj.ptr())) {
    raise_python("InputTypeError", what + " must be a str, got " + std::string(py::str(obj.get_type().attr("__name__"))));
  }
  Py_ssize_t n = 0;
  const char* s = PyUnicode_AsUTF8AndSize(obj.ptr(), &n);
  if (s == nullptr) {
    PyErr_Clear();
    raise_python("ValidationError", what + " holds a lone surrogate (U+D800..U+DFFF), which UTF-8 cannot represent; "
                                           "decode the producer's bytes with errors='replace'");
  }
  return std::string(s, static_cast<size_t>(n));
}

ItemKey to_key(const py::handle& obj, const std::string& what) {
  if (PyBool_Check(obj.ptr())) raise_python("InputTypeError", what + " must be a str or int, got bool");
  if (PyUnicode_Check(obj.ptr())) return ItemKey{utf8_arg(obj, what), false};
  if (PyLong_Check(obj.ptr()) || (!PyFloat_Check(obj.ptr()) && PyIndex_Check(obj.ptr()))) {
    py::object idx = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
    if (!idx) throw py::error_already_set();
    PyObject* text = PyObject_Str(idx.ptr());
    if (text == nullptr) {  // more digits than int <-> str conversion allows (sys.get_int_max_str_digits)
      PyErr_Clear();
      raise_python("ValidationError", what + " is an int too large to convert to decimal text "
                                             "(see sys.set_int_max_str_digits)");
    }
    py::object t = py::reinterpret_steal<py::object>(text);
    return ItemKey{t.cast<std::string>(), true};
  }
  raise_python("InputTypeError", what + " must be a str or int, got " + std::string(py::str(obj.get_type().attr("__name__"))));
}

std::vector<ItemKey> to_keys(const py::handle& ids) {
  if (PyUnicode_Check(ids.ptr())) raise_python("InputTypeError", "ids must be a sequence, not a str");
  std::vector<ItemKey> keys;
  size_t i = 0;
  for (auto item : ids) keys.push_back(to_key(item, "ids[" + std::to_string(i++) + "]"));
  return keys;
}

// None -> no tenant filter; a str -> that tenant.
bool opt_tenant(const py::object& tenant, std::string* out) {
  if (tenant.is_none()) return false;
  if (!PyUnicode_Check(tenant.ptr())) raise_python("InputTypeError", "tenant must be a str or None");
  *out = utf8_arg(tenant, "tenant");
  return true;
}


py::object from_key(const ItemKey& k) {
  if (!k.is_int) return py::str(k.value);
  PyObject* o = PyLong_FromString(k.value.c_str(), nullptr, 10);
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

std::vector<std::string> opt_strings(const py::object& obj, const char* what) {
  std::vector<std::string> out;
  if (obj.is_none()) return out;
  if (PyUnicode_Check(obj.ptr())) raise_python("InputTypeError", std::string(what) + " must be a sequence of str, not a str");
  size_t i = 0;
  for (auto item : obj) {
    if (!PyUnicode_Check(item.ptr())) raise_python("InputTypeError", std::string(what) + " must hold str values");
    out.push_back(utf8_arg(item, std::string(what) + "[" + std::to_string(i++) + "]"));
  }
  return out;
}

// Rows of (id, text, source, tenant) per query; a row stops at the first label -1.
py::list hit_rows(const std::vector<SearchHit>& hits, const int64_t* labels, size_t nq, size_t k) {
  py::list out;
  for (size_t i = 0; i < nq; ++i) {
    py::list row;
    for (size_t j = 0; j < k; ++j) {
      if (labels[i * k + j] < 0) break;
      const SearchHit& h = hits[i * k + j];
      row.append(py::make_tuple(from_key(h.key), py::str(h.text), py::str(h.source), py::str(h.tenant)));
    }
    out.append(row);
  }
  return out;
}

}  // namespace

void bind_index(py::module_& m) {
  py::class_<EvidenceIndex>(m, "EvidenceIndex")
      .def(py::init([](size_t dim, const std::string& space, size_t M, size_t efc, size_t ef, size_t cap, uint64_t seed,
                       size_t exact_threshold, const std::string& storage) {
             IndexConfig c;
             c.dim = dim;
             c.metric = metric_from_string(space);
             c.M = M;
             c.ef_construction = efc;
             c.ef_search = ef;
             c.initial_capacity = cap;
             c.seed = seed;
             c.exact_threshold = exact_threshold;
             c.storage = storage_from_string(storage);
             return std::make_unique<EvidenceIndex>(c);
           }),
           py::arg("dim"), py::arg("space"), py::arg("M"), py::arg("ef_construction"), py::arg("ef_search"),
           py::arg("initial_capacity"), py::arg("seed"), py::arg("exact_threshold"), py::arg("storage") = "float32")
      .def("add",
           [](EvidenceIndex& idx, const py::handle& vectors, const py::object& ids, const py::object& texts,
              const py::object& sources, const py::object& tenants, bool upsert, int num_threads) {
             auto arr = require_2d_f32(vectors, "vectors", idx.config().dim);
             std::vector<ItemKey> keys;
             bool have_keys = !ids.is_none();
             if (have_keys) keys = to_keys(ids);
             auto tx = opt_strings(texts, "texts");
             auto so = opt_strings(sources, "sources");
             auto te = opt_strings(tenants, "tenants");
             std::vector<ItemKey> out;
             {
               py::gil_scoped_release release;
               out = idx.add(arr.data(), static_cast<size_t>(arr.shape(0)), have_keys ? &keys : nullptr, tx, so, te,
                             upsert, num_threads);
             }
             py::list res(out.size());
             for (size_t i = 0; i < out.size(); ++i) res[i] = from_key(out[i]);
             return res;
           },
           py::arg("vectors"), py::arg("ids"), py::arg("texts"), py::arg("sources"), py::arg("tenants"),
           py::arg("upsert"), py::arg("num_threads"))
      .def("remove",
           [](EvidenceIndex& idx, const py::iterable& ids, bool missing_ok) {
             std::vector<ItemKey> keys = to_keys(ids);
             py::gil_scoped_release release;
             return idx.remove(keys, missing_ok);
           },
           py::arg("ids"), py::arg("missing_ok"))
      .def("search_raw",
           [](const EvidenceIndex& idx, const py::handle& queries, size_t k, const py::object& tenant, bool exact,
              int num_threads, bool reference_search) {
             auto q = require_2d_f32(queries, "queries", idx.config().dim);
             const auto nq = static_cast<size_t>(q.shape(0));
             py::array_t<int64_t> labels({static_cast<py::ssize_t>(nq), static_cast<py::ssize_t>(k)});
             py::array_t<float> dists({static_cast<py::ssize_t>(nq), static_cast<py::ssize_t>(k)});
             std::string t;
             const std::string* tp = opt_tenant(tenant, &t) ? &t : nullptr;
             int64_t* lp = labels.mutable_data();
             float* dp = dists.mutable_data();
             {
               py::gil_scoped_release release;
               idx.search(q.data(), nq, k, tp, exact, num_threads, lp, dp, reference_search);
             }
             return py::make_tuple(labels, dists);
           },
           py::arg("queries"), py::arg("k"), py::arg("tenant"), py::arg("exact"), py::arg("num_threads"),
           py::arg("reference_search") = false)
      .def("search_hits",
           [](const EvidenceIndex& idx, const py::handle& queries, size_t k, const py::object& tenant, bool exact,
              int num_threads) {
             // Labels, distances and the hits' metadata from one shared lock: a concurrent upsert or
             // remove cannot pair a hit with another version's text.
             auto q = require_2d_f32(queries, "queries", idx.config().dim);
             const auto nq = static_cast<size_t>(q.shape(0));
             py::array_t<int64_t> labels({static_cast<py::ssize_t>(nq), static_cast<py::ssize_t>(k)});
             py::array_t<float> dists({static_cast<py::ssize_t>(nq), static_cast<py::ssize_t>(k)});
             std::string t;
             const std::string* tp = opt_tenant(tenant, &t) ? &t : nullptr;
             int64_t* lp = labels.mutable_data();
             float* dp = dists.mutable_data();
             std::vector<SearchHit> hits;
             {
               py::gil_scoped_release release;
               idx.search_with_hits(q.data(), nq, k, tp, exact, num_threads, lp, dp, &hits);
             }
             return py::make_tuple(labels, dists, hit_rows(hits, lp, nq, k));
           },
           py::arg("queries"), py::arg("k"), py::arg("tenant"), py::arg("exact"), py::arg("num_threads"))
      .def("search_ids",
           [](const EvidenceIndex& idx, const py::handle& queries, size_t k, const py::object& tenant, bool exact,
              int num_threads) {
             // Ids and distances only (no text/source/tenant copies), from one shared lock: rows of
             // ids per query (a row stops at the first missing hit) and distances (nq, k) float32.
             auto q = require_2d_f32(queries, "queries", idx.config().dim);
             const auto nq = static_cast<size_t>(q.shape(0));
             std::vector<int64_t> labels(nq * k);
             py::array_t<float> dists({static_cast<py::ssize_t>(nq), static_cast<py::ssize_t>(k)});
             std::string t;
             const std::string* tp = opt_tenant(tenant, &t) ? &t : nullptr;
             float* dp = dists.mutable_data();
             std::vector<ItemKey> keys;
             {
               py::gil_scoped_release release;
               idx.search_with_keys(q.data(), nq, k, tp, exact, num_threads, labels.data(), dp, &keys);
             }
             py::list rows(nq);
             for (size_t i = 0; i < nq; ++i) {
               size_t n = 0;
               while (n < k && labels[i * k + n] >= 0) ++n;
               py::list row(n);
               for (size_t j = 0; j < n; ++j) row[j] = from_key(keys[i * k + j]);
               rows[i] = row;
             }
             return py::make_tuple(rows, dists);
           },
           py::arg("queries"), py::arg("k"), py::arg("tenant"), py::arg("exact"), py::arg("num_threads"))
      .def("records",
           [](const EvidenceIndex& idx, const py::handle& labels_obj) {
             // labels (nq, k) int64 -> list of lists of (id, text, source, tenant); -1 ends a row.
             py::array arr = py::reinterpret_borrow<py::array>(labels_obj);
             auto labels = py::array_t<int64_t, py::array::c_style>::ensure(arr);
             if (!labels || labels.ndim() != 2) raise_python("InputTypeError", "labels must be a 2-D int64 array");
             py::list out;
             auto r = labels.unchecked<2>();
             for (py::ssize_t i = 0; i < r.shape(0); ++i) {
               py::list row;
               for (py::ssize_t j = 0; j < r.shape(1); ++j) {
                 int64_t l = r(i, j);
                 if (l < 0) break;
                 const ItemMeta& mm = idx.meta(l);
                 row.append(py::make_tuple(from_key(mm.key), py::str(mm.text), py::str(mm.source),
                                           py::str(idx.tenant_name(mm.tenant))));
               }
               out.append(row);
             }
             return out;
           },
           py::arg("labels"))
      .def("contains", [](const EvidenceIndex& idx, const py::handle& id) { return idx.contains(to_key(id, "id")); })
      .def("get_vector", [](const EvidenceIndex& idx, const py::handle& id) {
             auto v = idx.get_vector(to_key(id, "id"));
             py::array_t<float> out(static_cast<py::ssize_t>(v.size()));
             std::copy(v.begin(), v.end(), out.mutable_data());
             return out;
           })
      .def("size", &EvidenceIndex::size)
      .def("capacity", &EvidenceIndex::capacity)
      .def("deleted_count", &EvidenceIndex::deleted_count)
      .def("tenant_size", [](const EvidenceIndex& idx, const py::handle& tenant) {
             return idx.tenant_size(utf8_arg(tenant, "tenant"));
           }, py::arg("tenant"))
      .def("ids", [](const EvidenceIndex& idx, const py::object& tenant) {
             std::vector<ItemKey> keys;
             std::string t;
             keys = idx.ids(opt_tenant(tenant, &t) ? &t : nullptr);
             py::list out(keys.size());
             for (size_t i = 0; i < keys.size(); ++i) out[i] = from_key(keys[i]);
             return out;
           }, py::arg("tenant"))
      .def_property("ef_search", &EvidenceIndex::ef_search, &EvidenceIndex::set_ef_search)
      .def_property_readonly("dim", [](const EvidenceIndex& i) { return i.config().dim; })
      .def_property_readonly("space", [](const EvidenceIndex& i) { return metric_name(i.config().metric); })
      .def_property_readonly("M", [](const EvidenceIndex& i) { return i.config().M; })
      .def_property_readonly("ef_construction", [](const EvidenceIndex& i) { return i.config().ef_construction; })
      .def_property_readonly("exact_threshold", [](const EvidenceIndex& i) { return i.config().exact_threshold; })
      .def_property_readonly("storage", [](const EvidenceIndex& i) { return std::string(storage_name(i.config().storage)); })
      .def_property_readonly("distance_kernel", [](const EvidenceIndex& i) { return std::string(i.distance_kernel()); })
      .def("save", [](const EvidenceIndex& idx, const std::string& path) {
             py::gil_scoped_release release;
             idx.save(path);
           }, py::arg("path"))
      .def_static("load", [](const std::string& path) {
             py::gil_scoped_release release;
             return EvidenceIndex::load(path);
           }, py::arg("path"))
      .def_static("_sweep_stale_temps", [](const std::string& path) { return EvidenceIndex::sweep_stale_temps(path); },
                  py::arg("path"))
      .def_static("_temp_tag", &EvidenceIndex::temp_tag)
      .def_readonly_static("FORMAT_VERSION", &EvidenceIndex::kFormatVersion);
}

}  // namespace director_fast::bindings
