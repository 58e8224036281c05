// Bindings of text offsets, the sentence segmenter, token-budget chunking and the hashing embedder.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common.hpp"
#include "director_fast/declarative.hpp"
#include "director_fast/errors.hpp"
#include "director_fast/hashing_embedder.hpp"
#include "director_fast/offsets.hpp"
#include "director_fast/segmenter.hpp"
#include "text_convert.hpp"

namespace py = pybind11;

namespace director_fast::bindings {

std::u32string to_u32(const py::handle& obj, const char* what) {
  if (!PyUnicode_Check(obj.ptr())) {
    raise_python("InputTypeError", std::string(what) + " must be a str, got " +
                                       std::string(py::str(obj.get_type().attr("__name__"))));
  }
  PyObject* s = obj.ptr();
  Py_ssize_t n = PyUnicode_GET_LENGTH(s);
  int kind = PyUnicode_KIND(s);
  const void* data = PyUnicode_DATA(s);
  std::u32string out(static_cast<size_t>(n), U'\0');
  for (Py_ssize_t i = 0; i < n; ++i) {
    Py_UCS4 c = PyUnicode_READ(kind, data, i);
    if (c >= 0xD800 && c <= 0xDFFF) {
      raise_python("ValidationError",
                   std::string(what) + ": lone surrogate U+" + [&] {
                     char b[8];
                     std::snprintf(b, sizeof b, "%04X", static_cast<unsigned>(c));
                     return std::string(b);
                   }() + " at index " + std::to_string(i) +
                       " cannot be encoded as UTF-8/UTF-16 (fix the producer or decode with errors='replace')");
    }
    out[static_cast<size_t>(i)] = static_cast<char32_t>(c);
  }
  return out;
}

py::str from_u32(std::u32string_view s) {
  PyObject* o = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, s.data(), static_cast<Py_ssize_t>(s.size()));
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

namespace {

py::list spans_to_list(const std::vector<Span>& spans) {
  py::list out(spans.size());
  for (size_t i = 0; i < spans.size(); ++i) {
    out[i] = py::make_tuple(spans[i].start, spans[i].end);
  }
  return out;
}

template <typename Fn>
py::array_t<int64_t> map_array(const py::handle& arr_obj, const char* what, Fn fn) {
  auto arr = require_1d<int64_t>(arr_obj, what);
  py::array_t<int64_t> out(arr.size());
  const int64_t* in = arr.data();
  int64_t* o = out.mutable_data();
  const auto n = static_cast<size_t>(arr.size());
  {
    py::gil_scoped_release release;
    for (size_t i = 0; i < n; ++i) o[i] = fn(in[i]);
  }
  return out;
}

}  // namespace

void bind_text(py::module_& m) {
  py::class_<OffsetMap>(m, "OffsetMap",
                        "Exact code point <-> UTF-8 byte <-> UTF-16 unit conversion for one text.\n"
                        "Immutable after construction: safe to share between threads.")
      .def(py::init([](const py::handle& text) {
             std::u32string u = to_u32(text, "text");
             py::gil_scoped_release release;
             return std::make_unique<OffsetMap>(u);
           }),
           py::arg("text"))
      .def_property_readonly("length_cp", &OffsetMap::length_cp)
      .def_property_readonly("length_utf8", &OffsetMap::length_utf8)
      .def_property_readonly("length_utf16", &OffsetMap::length_utf16)
      .def("cp_to_utf8", &OffsetMap::cp_to_utf8, py::arg("offset"))
      .def("utf8_to_cp", &OffsetMap::utf8_to_cp, py::arg("offset"))
      .def("cp_to_utf16", &OffsetMap::cp_to_utf16, py::arg("offset"))
      .def("utf16_to_cp", &OffsetMap::utf16_to_cp, py::arg("offset"))
      .def("cp_to_utf8_array", [](const OffsetMap& om, const py::handle& a) {
             return map_array(a, "offsets", [&](int64_t v) { return om.cp_to_utf8(v); });
           }, py::arg("offsets"))
      .def("utf8_to_cp_array", [](const OffsetMap& om, const py::handle& a) {
             return map_array(a, "offsets", [&](int64_t v) { return om.utf8_to_cp(v); });
           }, py::arg("offsets"))
      .def("cp_to_utf16_array", [](const OffsetMap& om, const py::handle& a) {
             return map_array(a, "offsets", [&](int64_t v) { return om.cp_to_utf16(v); });
           }, py::arg("offsets"))
      .def("utf16_to_cp_array", [](const OffsetMap& om, const py::handle& a) {
             return map_array(a, "offsets", [&](int64_t v) { return om.utf16_to_cp(v); });
           }, py::arg("offsets"));

  py::class_<TokenSpans>(m, "TokenSpans")
      .def(py::init<>())
      .def("append", [](TokenSpans& t, const py::handle& token) {
             if (!PyUnicode_Check(token.ptr())) {
               raise_python("InputTypeError", "token must be a str, got " +
                                                  std::string(py::str(token.get_type().attr("__name__"))));
             }
             Span s = t.append(PyUnicode_GET_LENGTH(token.ptr()));
             return py::make_tuple(s.start, s.end);
           }, py::arg("token"))
      .def("append_length", [](TokenSpans& t, const IntArg& length) {
             Span s = t.append(int64_arg(length, "length", 0, INT64_MAX));
             return py::make_tuple(s.start, s.end);
           }, py::arg("length"))
      .def("extend", [](TokenSpans& t, const py::iterable& tokens) {
             for (auto tok : tokens) {
               if (!PyUnicode_Check(tok.ptr())) raise_python("InputTypeError", "tokens must be str");
               t.append(PyUnicode_GET_LENGTH(tok.ptr()));
             }
           }, py::arg("tokens"))
      .def("span", [](const TokenSpans& t, int64_t i) {
             Span s = t.span(i);
             return py::make_tuple(s.start, s.end);
           }, py::arg("index"))
      .def("token_at", &TokenSpans::token_at, py::arg("offset"))
      .def("tokens_before", &TokenSpans::tokens_before, py::arg("offset"))
      .def("clear", &TokenSpans::clear)
      .def("__len__", &TokenSpans::size)
      .def_property_readonly("text_length", &TokenSpans::text_length)
      .def("ends", [](const TokenSpans& t) {
             const auto& e = t.ends();
             py::array_t<int64_t> out(static_cast<py::ssize_t>(e.size()));
             std::copy(e.begin(), e.end(), out.mutable_data());
             return out;
           });

  py::class_<SentenceSegmenter>(m, "SentenceSegmenter")
      .def(py::init<>())
      .def("feed", [](SentenceSegmenter& s, const py::handle& piece) {
             return spans_to_list(s.feed(to_u32(piece, "token")));
           }, py::arg("token"))
      .def("flush", [](SentenceSegmenter& s) { return spans_to_list(s.flush()); })
      .def("reset", &SentenceSegmenter::reset)
      .def_property_readonly("text", [](const SentenceSegmenter& s) { return from_u32(s.text()); })
      .def_property_readonly("pending_start", &SentenceSegmenter::pending_start)
      .def("__len__", [](const SentenceSegmenter& s) { return s.text().size(); });

  m.def("split_sentences", [](const py::handle& text) {
          std::u32string u = to_u32(text, "text");
          std::vector<Span> spans;
          {
            py::gil_scoped_release release;
            spans = split_sentences(u);
          }
          return spans_to_list(spans);
        }, py::arg("text"));

  m.def("declarative_part", [](const py::handle& text) {
          std::u32string u = to_u32(text, "text");
          std::u32string out;
          {
            py::gil_scoped_release release;
            out = declarative_part(u);
          }
          return from_u32(out);
        }, py::arg("text"),
        "The sentences of `text` that assert something (questions and requests dropped), joined "
        "with one space; see director_fast.core.scorer.declarative_part.");

  m.def("chunk_tokens",
        [](const py::handle& starts_obj, const py::handle& ends_obj, const std::vector<std::pair<int64_t, int64_t>>& sents,
           int64_t text_length, int64_t max_tokens, int64_t overlap, bool one_per_sentence) {
          auto starts = require_1d<int64_t>(starts_obj, "token_starts");
          auto ends = require_1d<int64_t>(ends_obj, "token_ends");
          if (starts.size() != ends.size()) raise_python("ValidationError", "token_starts and token_ends differ in length");
          std::vector<Span> spans;
          spans.reserve(sents.size());
          for (auto& p : sents) spans.push_back(Span{p.first, p.second});
          std::vector<TokenChunk> chunks;
          {
            py::gil_scoped_release release;
            chunks = chunk_tokens(starts.data(), ends.data(), static_cast<size_t>(starts.size()), spans,
                                  text_length, max_tokens, overlap, one_per_sentence);
          }
          py::list out(chunks.size());
          for (size_t i = 0; i < chunks.size(); ++i) {
            const auto& c = chunks[i];
            out[i] = py::make_tuple(c.start, c.end, c.token_start, c.token_end, c.oversized);
          }
          return out;
        },
        py::arg("token_starts"), py::arg("token_ends"), py::arg("sentences"), py::arg("text_length"),
        py::arg("max_tokens"), py::arg("overlap"), py::arg("one_per_sentence"));

  m.def("normalize_terms", [](const py::handle& text) {
          auto terms = normalize_terms(to_u32(text, "text"));
          py::list out(terms.size());
          for (size_t i = 0; i < terms.size(); ++i) out[i] = from_u32(terms[i]);
          return out;
        }, py::arg("text"));

  py::class_<HashingEmbedder>(m, "HashingEmbedder")
      .def(py::init([](size_t dim, int cmin, int cmax, bool bigrams, uint64_t seed) {
             HashingConfig c;
             c.dim = dim;
             c.char_ngram_min = cmin;
             c.char_ngram_max = cmax;
             c.word_bigrams = bigrams;
             c.seed = seed;
             return std::make_unique<HashingEmbedder>(c);
           }),
           py::arg("dim"), py::arg("char_ngram_min"), py::arg("char_ngram_max"), py::arg("word_bigrams"),
           py::arg("seed"))
      .def_property_readonly("dim", &HashingEmbedder::dim)
      .def("embed", [](const HashingEmbedder& e, const py::handle& text) {
             std::u32string u = to_u32(text, "text");
             py::array_t<float> out(static_cast<py::ssize_t>(e.dim()));
             e.embed(u, out.mutable_data());
             return out;
           }, py::arg("text"))
      .def("embed_batch", [](const HashingEmbedder& e, const py::iterable& texts) {
             std::vector<std::u32string> us;
             for (auto t : texts) us.push_back(to_u32(t, "texts[i]"));
             py::array_t<float> out({static_cast<py::ssize_t>(us.size()), static_cast<py::ssize_t>(e.dim())});
             float* o = out.mutable_data();
             {
               py::gil_scoped_release release;
               for (size_t i = 0; i < us.size(); ++i) e.embed(us[i], o + i * e.dim());
             }
             return out;
           }, py::arg("texts"));
}

}  // namespace director_fast::bindings
