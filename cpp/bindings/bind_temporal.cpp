// Bindings of the temporal contradiction index: director_fast._core.TemporalIndex (private; the
// public API is director_fast.core.temporal_consistency). Glue only: argument checks, UTF-8
// views, the normalisation fast path for batches, GIL management.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"
#include "director_fast/contradiction_index.hpp"

namespace director_fast::bindings {

namespace {

// Python's str.isspace() for code points below 128.
inline bool py_ascii_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}

std::string_view utf8_of(PyObject* s) {
  Py_ssize_t n = 0;
  const char* d = PyUnicode_AsUTF8AndSize(s, &n);
  if (d == nullptr) throw py::error_already_set();
  return {d, static_cast<std::size_t>(n)};
}

// A column of strings: one value broadcast to every row, or one per row. Views point into Python
// str objects that `keep` holds alive: a tuple snapshot of the caller's list (a new reference to
// every str), so another thread that clears or refills the list while the GIL is released cannot
// free a string a view points into.
struct StrCol {
  std::vector<std::string_view> views;
  std::vector<py::object> keep;
  bool scalar = false;
  std::string_view at(std::size_t i) const { return scalar ? views[0] : views[i]; }
};

// `normalizer` (a Python callable str -> str) is called only for strings that are not plain ASCII
// without surrounding whitespace: for those, NFC + strip are the identity.
std::string_view load_one(PyObject* item, const char* name, std::size_t row, bool scalar,
                          const py::handle& normalizer, StrCol& col) {
  if (!PyUnicode_Check(item)) {
    raise_python("InputTypeError",
                 std::string(name) + (scalar ? "" : "[" + std::to_string(row) + "]") +
                     " must be str, got " +
                     std::string(py::str(py::handle(item).get_type().attr("__name__"))));
  }
  Py_ssize_t len = 0;
  const char* data = PyUnicode_AsUTF8AndSize(item, &len);
  if (data == nullptr) {  // a lone surrogate: no UTF-8 form
    PyErr_Clear();
    raise_python("ValidationError", std::string(name) +
                                        (scalar ? "" : "[" + std::to_string(row) + "]") +
                                        " holds a lone surrogate (not encodable as UTF-8)");
  }
  std::string_view v(data, static_cast<std::size_t>(len));
  if (normalizer.is_none()) return v;
  const bool fast = PyUnicode_IS_ASCII(item) &&
                    (v.empty() || (!py_ascii_space(v.front()) && !py_ascii_space(v.back())));
  if (fast) return v;
  py::object norm = normalizer(py::handle(item));
  if (!PyUnicode_Check(norm.ptr())) raise_python("InputTypeError", "normalizer must return str");
  v = utf8_of(norm.ptr());
  col.keep.push_back(std::move(norm));
  return v;
}

StrCol load_col(const py::handle& obj, std::size_t n, const char* name,
                const py::handle& normalizer, bool allow_scalar) {
  StrCol col;
  if (PyUnicode_Check(obj.ptr())) {
    if (!allow_scalar)
      raise_python("InputTypeError", std::string(name) + " must be a list of str, one per claim");
    col.scalar = true;
    col.keep.push_back(py::reinterpret_borrow<py::object>(obj));
    col.views.push_back(load_one(obj.ptr(), name, 0, true, normalizer, col));
    return col;
  }
  if (!PyList_Check(obj.ptr()) && !PyTuple_Check(obj.ptr())) {
    raise_python("InputTypeError", std::string(name) + " must be a list or tuple of str" +
                                       (allow_scalar ? " (or one str for every claim)" : "") +
                                       ", got " +
                                       std::string(py::str(obj.get_type().attr("__name__"))));
  }
  // A tuple is immutable and holds its items; a list is copied into one (PySequence_Tuple of a
  // tuple returns it unchanged). The normaliser (Python code) may run below, and the GIL is
  // released later, so nothing may point into the caller's list.
  py::object fast = py::reinterpret_steal<py::object>(PySequence_Tuple(obj.ptr()));
  if (!fast) throw py::error_already_set();
  const auto len = static_cast<std::size_t>(PySequence_Fast_GET_SIZE(fast.ptr()));
  if (len != n) {
    raise_python("ValidationError", std::string(name) + " has " + std::to_string(len) +
                                        " items but subjects has " + std::to_string(n));
  }
  PyObject** items = PySequence_Fast_ITEMS(fast.ptr());
  col.keep.push_back(fast);
  col.views.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    col.views.push_back(load_one(items[i], name, i, false, normalizer, col));
  return col;
}

py::tuple claim_tuple(const ClaimData& c) {
  return py::make_tuple(py::str(c.subject), py::str(c.predicate), c.timestamp, py::str(c.value),
                        py::bool_(c.polarity), py::str(c.tenant), py::str(c.session),
                        py::str(c.document), py::str(c.source), py::str(c.claim_id), c.seq);
}

py::list conflicts_list(const std::vector<ContradictionData>& v) {
  py::list out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    out[i] = py::make_tuple(static_cast<int>(v[i].kind), claim_tuple(v[i].earlier),
                            claim_tuple(v[i].later));
  }
  return out;
}

std::optional<std::string> opt_tenant(const py::object& t) {
  if (t.is_none()) return std::nullopt;
  if (!PyUnicode_Check(t.ptr())) raise_python("InputTypeError", "tenant_id must be str or None");
  return std::string(utf8_of(t.ptr()));
}

}  // namespace

void bind_temporal(py::module_& m) {
  m.def(
      "salvage_temporal_log",
      [](const std::string& path, const std::string& out_path, const py::object& case_sensitive,
         const py::object& functional_keys) {
        LogSalvageOptions o;
        if (!case_sensitive.is_none()) {
          o.have_settings = true;
          o.case_sensitive = case_sensitive.cast<bool>();
          o.functional_predicate_keys = functional_keys.cast<std::vector<std::string>>();
        }
        LogSalvageReport r;
        {
          py::gil_scoped_release release;  // reads and writes whole files; owns all its data
          r = salvage_log(path, out_path, o);
        }
        py::list skipped(r.skipped.size());
        for (std::size_t i = 0; i < r.skipped.size(); ++i)
          skipped[i] = py::make_tuple(r.skipped[i].start, r.skipped[i].end, r.skipped[i].reason);
        py::dict d;
        d["header_intact"] = r.header_intact;
        d["records_copied"] = r.records_copied;
        d["source_bytes"] = r.source_bytes;
        d["bytes_written"] = r.bytes_written;
        d["skipped"] = skipped;
        return d;
      },
      py::arg("path"), py::arg("out_path"), py::arg("case_sensitive"),
      py::arg("functional_predicate_keys"),
      "Private: see TemporalConsistencyGraph.salvage. case_sensitive None = take the settings "
      "from the source header.");

  py::class_<ContradictionIndex>(m, "TemporalIndex",
                                 "Private C++ index behind TemporalConsistencyGraph. Thread-safe: "
                                 "an internal mutex serialises every call.")
      .def(py::init([](std::vector<std::string> functional_keys, bool case_sensitive,
                       std::optional<std::string> path, bool fsync) {
             ContradictionIndexOptions o;
             o.functional_predicate_keys = std::move(functional_keys);
             o.case_sensitive = case_sensitive;
             o.path = path.value_or("");
             o.fsync = fsync;
             py::gil_scoped_release release;  // replaying a log can take a while
             return std::make_unique<ContradictionIndex>(std::move(o));
           }),
           py::arg("functional_predicate_keys"), py::arg("case_sensitive"), py::arg("path"),
           py::arg("fsync"))
      .def(
          "record",
          [](ContradictionIndex& self, std::string_view tenant, std::string_view subject,
             std::string_view predicate, std::string_view value, bool polarity, double timestamp,
             std::string_view session, std::string_view document, std::string_view source,
             std::string_view claim_id, std::string_view subject_key,
             std::string_view predicate_key, std::string_view value_key) {
            ClaimInput c{tenant,      subject,       predicate, value,  subject_key,
                         predicate_key, value_key,   session,   document, source,
                         claim_id,    timestamp,     polarity};
            std::vector<ContradictionData> out;
            bool recorded;
            if (self.options().path.empty()) {
              recorded = self.record(c, &out);  // sub-microsecond: keep the GIL
            } else {
              py::gil_scoped_release release;  // a write(2), maybe an fsync
              recorded = self.record(c, &out);
            }
            return py::make_tuple(recorded, conflicts_list(out));
          })
      .def(
          "record_claim",
          [](ContradictionIndex& self, py::handle claim) -> py::object {
            // Fast path of TemporalConsistencyGraph.record (case-sensitive graphs): reads the
            // already-validated fields of a TemporalClaim directly.
            static const char* names[] = {"tenant_id",  "subject",     "predicate",
                                          "value",      "session_id",  "document_id",
                                          "source_text", "claim_id"};
            static PyObject* interned[8] = {};
            static PyObject* ts_name = nullptr;
            static PyObject* pol_name = nullptr;
            if (ts_name == nullptr) {
              for (int i = 0; i < 8; ++i) interned[i] = PyUnicode_InternFromString(names[i]);
              ts_name = PyUnicode_InternFromString("timestamp");
              pol_name = PyUnicode_InternFromString("polarity");
            }
            py::object held[8];
            std::string_view v[8];
            for (int i = 0; i < 8; ++i) {
              held[i] = py::reinterpret_steal<py::object>(PyObject_GetAttr(claim.ptr(), interned[i]));
              if (!held[i]) throw py::error_already_set();
              if (!PyUnicode_Check(held[i].ptr()))
                raise_python("InputTypeError", std::string(names[i]) + " must be str");
              v[i] = utf8_of(held[i].ptr());
            }
            py::object ts = py::reinterpret_steal<py::object>(PyObject_GetAttr(claim.ptr(), ts_name));
            py::object pol = py::reinterpret_steal<py::object>(PyObject_GetAttr(claim.ptr(), pol_name));
            if (!ts || !pol) throw py::error_already_set();
            const double t = PyFloat_AsDouble(ts.ptr());
            if (t == -1.0 && PyErr_Occurred()) throw py::error_already_set();
            ClaimInput c{v[0], v[1], v[2], v[3], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
                         t,    pol.ptr() == Py_True};
            std::vector<ContradictionData> out;
            if (self.options().path.empty()) {
              self.record(c, &out);
            } else {
              py::gil_scoped_release release;
              self.record(c, &out);
            }
            if (out.empty()) return py::none();
            return conflicts_list(out);
          })
      .def(
          "record_batch",
          [](ContradictionIndex& self, const py::object& tenants, const py::object& subjects,
             const py::object& predicates, const py::object& values,
             const py::object& polarities, const py::object& timestamps,
             const py::object& sessions, const py::object& documents, const py::object& sources,
             const py::object& claim_ids, const py::object& subject_keys,
             const py::object& predicate_keys, const py::object& value_keys,
             const py::object& normalizer) {
            if (!PyList_Check(subjects.ptr()) && !PyTuple_Check(subjects.ptr()))
              raise_python("InputTypeError", "subjects must be a list or tuple of str");
            const auto n = static_cast<std::size_t>(PySequence_Size(subjects.ptr()));
            auto ts = require_1d<double>(timestamps, "timestamps");
            if (static_cast<std::size_t>(ts.shape(0)) != n)
              raise_python("ValidationError", "timestamps has " + std::to_string(ts.shape(0)) +
                                                  " items but subjects has " + std::to_string(n));
            std::optional<py::array_t<bool>> pol;
            if (!polarities.is_none()) {
              pol = require_1d<bool>(polarities, "polarities");
              if (static_cast<std::size_t>(pol->shape(0)) != n)
                raise_python("ValidationError", "polarities has " +
                                                    std::to_string(pol->shape(0)) +
                                                    " items but subjects has " + std::to_string(n));
            }
            const py::object none = py::none();
            StrCol tc = load_col(tenants, n, "tenant_ids", none, true);
            StrCol sc = load_col(subjects, n, "subjects", normalizer, false);
            StrCol pc = load_col(predicates, n, "predicates", normalizer, false);
            StrCol vc = load_col(values, n, "values", normalizer, true);
            StrCol sec = load_col(sessions, n, "session_ids", none, true);
            StrCol dc = load_col(documents, n, "document_ids", none, true);
            StrCol src = load_col(sources, n, "source_texts", none, true);
            StrCol cc = load_col(claim_ids, n, "claim_ids", none, true);
            const bool keys = !subject_keys.is_none();
            StrCol skc, pkc, vkc;
            if (keys) {
              skc = load_col(subject_keys, n, "subject_keys", none, false);
              pkc = load_col(predicate_keys, n, "predicate_keys", none, false);
              vkc = load_col(value_keys, n, "value_keys", none, true);
            }
            // Copies of the numeric columns: another thread may write into the caller's arrays
            // while the GIL is released, and a row must not change between its validation and
            // its recording (a NaN timestamp slipped in there would break the index's order).
            const std::vector<double> ts_copy(ts.data(), ts.data() + n);
            std::vector<std::uint8_t> pol_copy;
            if (pol) pol_copy.assign(pol->data(), pol->data() + n);
            struct Ctx {
              const StrCol *tc, *sc, *pc, *vc, *sec, *dc, *src, *cc, *skc, *pkc, *vkc;
              const double* ts;
              const std::uint8_t* pol;
              bool keys;
            } ctx{&tc, &sc, &pc, &vc, &sec, &dc, &src, &cc, &skc, &pkc, &vkc,
                  ts_copy.data(), pol ? pol_copy.data() : nullptr, keys};
            auto row = [](void* p, std::size_t i, ClaimInput& c) {
              const Ctx& x = *static_cast<const Ctx*>(p);
              c.tenant = x.tc->at(i);
              c.subject = x.sc->at(i);
              c.predicate = x.pc->at(i);
              c.value = x.vc->at(i);
              c.subject_key = x.keys ? x.skc->at(i) : c.subject;
              c.predicate_key = x.keys ? x.pkc->at(i) : c.predicate;
              c.value_key = x.keys ? x.vkc->at(i) : c.value;
              c.session = x.sec->at(i);
              c.document = x.dc->at(i);
              c.source = x.src->at(i);
              c.claim_id = x.cc->at(i);
              c.timestamp = x.ts[i];
              c.polarity = x.pol ? x.pol[i] != 0 : true;
            };
            std::vector<ContradictionData> out;
            std::size_t recorded;
            {
              py::gil_scoped_release release;
              recorded = self.record_batch(n, row, &ctx, &out);
            }
            return py::make_tuple(recorded, conflicts_list(out));
          })
      .def("history",
           [](const ContradictionIndex& self, std::string_view tenant, std::string_view subject_key,
              std::string_view predicate_key) {
             std::vector<ClaimData> v;
             {
               py::gil_scoped_release release;
               v = self.history(tenant, subject_key, predicate_key);
             }
             py::list out(v.size());
             for (std::size_t i = 0; i < v.size(); ++i) out[i] = claim_tuple(v[i]);
             return out;
           })
      .def("contradictions",
           [](const ContradictionIndex& self, const py::object& tenant) {
             auto t = opt_tenant(tenant);
             std::vector<ContradictionData> v;
             {
               py::gil_scoped_release release;
               v = self.contradictions(t ? &*t : nullptr);
             }
             return conflicts_list(v);
           })
      .def("subjects", [](const ContradictionIndex& self,
                          std::string_view tenant) { return self.subjects(tenant); })
      .def("claim_count",
           [](const ContradictionIndex& self, const py::object& tenant) {
             auto t = opt_tenant(tenant);
             return self.claim_count(t ? &*t : nullptr);
           })
      .def("contradiction_count",
           [](const ContradictionIndex& self, const py::object& tenant) {
             auto t = opt_tenant(tenant);
             return self.contradiction_count(t ? &*t : nullptr);
           })
      .def("tenants", &ContradictionIndex::tenants)
      .def("delete_tenant",
           [](ContradictionIndex& self, std::string_view tenant) {
             std::string t(tenant);
             py::gil_scoped_release release;
             return self.delete_tenant(t);
           })
      .def("stats",
           [](const ContradictionIndex& self) {
             const ContradictionIndexStats s = self.stats();
             py::dict d;
             d["claims"] = s.claims;
             d["contradictions"] = s.contradictions;
             d["tenants"] = s.tenants;
             d["groups"] = s.groups;
             d["memory_bytes"] = s.memory_bytes;
             d["log_bytes"] = s.log_bytes;
             d["recovered_bytes"] = s.recovered_bytes;
             d["replayed_claims"] = s.replayed_claims;
             return d;
           })
      .def("close", [](ContradictionIndex& self) {
        py::gil_scoped_release release;
        self.close();
      });
}

}  // namespace director_fast::bindings
