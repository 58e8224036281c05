// Bindings of the lexical NLI heuristic.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "common.hpp"
#include "director_fast/errors.hpp"
#include "director_fast/lexical_nli.hpp"

namespace py = pybind11;

namespace director_fast::bindings {

namespace {

LexicalAggregation aggregation_from_string(const std::string& s) {
  if (s == "mean") return LexicalAggregation::Mean;
  if (s == "max") return LexicalAggregation::Max;
  if (s == "mean_max") return LexicalAggregation::MeanMax;
  throw ConfigError("aggregation", "aggregation must be 'mean', 'max' or 'mean_max', got '" + s + "'");
}

const char* aggregation_name(LexicalAggregation a) {
  switch (a) {
    case LexicalAggregation::Mean: return "mean";
    case LexicalAggregation::Max: return "max";
    case LexicalAggregation::MeanMax: return "mean_max";
  }
  return "mean_max";
}

}  // namespace

void bind_lexical(py::module_& m) {
  m.def("lexical_stem", &lexical_stem, py::arg("word"),
        "The lexical NLI's light suffix stem of one word (ASCII letters lower-cased).");
  py::class_<LexicalSignals>(m, "LexicalSignals",
                             "Signals of one hypothesis sentence (read-only; see LexicalNLI).")
      .def_readonly("coverage", &LexicalSignals::coverage)
      .def_readonly("content_words", &LexicalSignals::content_words)
      .def_readonly("covered_words", &LexicalSignals::covered_words)
      .def_readonly("numbers", &LexicalSignals::numbers)
      .def_readonly("numeric_mismatches", &LexicalSignals::numeric_mismatches)
      .def_readonly("entities", &LexicalSignals::entities)
      .def_readonly("entity_mismatches", &LexicalSignals::entity_mismatches)
      .def_readonly("negation_flips", &LexicalSignals::negation_flips)
      .def_readonly("negation_close", &LexicalSignals::negation_close)
      .def_readonly("novel_polarity", &LexicalSignals::novel_polarity)
      .def_readonly("polarity_words", &LexicalSignals::polarity_words)
      .def_readonly("antonym_hits", &LexicalSignals::antonym_hits)
      .def_readonly("bigrams", &LexicalSignals::bigrams)
      .def_readonly("novel_bigrams", &LexicalSignals::novel_bigrams)
      .def_readonly("missing_numbers", &LexicalSignals::missing_numbers)
      .def_readonly("missing_entities", &LexicalSignals::missing_entities)
      .def_readonly("antonym_pairs", &LexicalSignals::antonym_pairs);

  py::class_<LexicalSentence>(m, "LexicalSentence", "One scored hypothesis sentence (read-only).")
      .def_readonly("text", &LexicalSentence::text)
      .def_readonly("divergence", &LexicalSentence::divergence)
      .def_readonly("premise_sentence", &LexicalSentence::premise_sentence)
      .def_readonly("alignment", &LexicalSentence::alignment)
      .def_readonly("signals", &LexicalSentence::signals);

  py::class_<LexicalResult>(m, "LexicalResult", "Result of LexicalNLI.score (read-only).")
      .def_readonly("divergence", &LexicalResult::divergence)
      .def_readonly("sentences", &LexicalResult::sentences)
      .def_readonly("premise_sentences", &LexicalResult::premise_sentences)
      .def_readonly("hypothesis_tokens", &LexicalResult::hypothesis_tokens)
      .def_readonly("premise_tokens", &LexicalResult::premise_tokens);

  py::class_<LexicalPremise>(m, "LexicalPremise",
                             "A premise analysed once for many hypotheses. Immutable; thread-safe.")
      .def(py::init([](const std::string& text) {
             py::gil_scoped_release release;
             return new LexicalPremise(text);
           }),
           py::arg("text"))
      .def_property_readonly("sentence_count", &LexicalPremise::sentence_count)
      .def_property_readonly("token_count", &LexicalPremise::token_count)
      .def("sentence", &LexicalPremise::sentence, py::arg("index"))
      .def("sentences", [](const LexicalPremise& p) {
             py::tuple out(static_cast<std::size_t>(p.sentence_count()));
             for (int i = 0; i < p.sentence_count(); ++i) out[static_cast<std::size_t>(i)] = py::str(p.sentence(i));
             return out;
           },
           "All premise sentences as a tuple of str (one call instead of sentence(i) per index).");

  py::class_<LexicalNLI>(m, "LexicalNLI", "C++ lexical NLI heuristic. Immutable; thread-safe.")
      .def(py::init([](double w_uncovered, double w_numeric, double w_entity, double w_negation,
                       double w_antonym, double w_novel, double q_entity, double w_negation_weak,
                       double negation_alignment, double w_polarity, double q_polarity,
                       const std::string& aggregation) {
             LexicalConfig c;
             c.w_uncovered = w_uncovered;
             c.w_numeric = w_numeric;
             c.w_entity = w_entity;
             c.w_negation = w_negation;
             c.w_antonym = w_antonym;
             c.w_novel = w_novel;
             c.q_entity = q_entity;
             c.w_negation_weak = w_negation_weak;
             c.negation_alignment = negation_alignment;
             c.w_polarity = w_polarity;
             c.q_polarity = q_polarity;
             c.aggregation = aggregation_from_string(aggregation);
             return new LexicalNLI(c);
           }),
           py::kw_only(), py::arg("w_uncovered") = LexicalConfig{}.w_uncovered,
           py::arg("w_numeric") = LexicalConfig{}.w_numeric,
           py::arg("w_entity") = LexicalConfig{}.w_entity,
           py::arg("w_negation") = LexicalConfig{}.w_negation,
           py::arg("w_antonym") = LexicalConfig{}.w_antonym,
           py::arg("w_novel") = LexicalConfig{}.w_novel, py::arg("q_entity") = LexicalConfig{}.q_entity,
           py::arg("w_negation_weak") = LexicalConfig{}.w_negation_weak,
           py::arg("negation_alignment") = LexicalConfig{}.negation_alignment,
           py::arg("w_polarity") = LexicalConfig{}.w_polarity,
           py::arg("q_polarity") = LexicalConfig{}.q_polarity,
           py::arg("aggregation") = "max")
      .def_property_readonly("aggregation",
                             [](const LexicalNLI& n) { return aggregation_name(n.config().aggregation); })
      .def_property_readonly("weights",
                             [](const LexicalNLI& n) {
                               const auto& c = n.config();
                               py::dict d;
                               d["w_uncovered"] = c.w_uncovered;
                               d["w_numeric"] = c.w_numeric;
                               d["w_entity"] = c.w_entity;
                               d["w_negation"] = c.w_negation;
                               d["w_antonym"] = c.w_antonym;
                               d["w_novel"] = c.w_novel;
                               d["q_entity"] = c.q_entity;
                               d["w_negation_weak"] = c.w_negation_weak;
                               d["negation_alignment"] = c.negation_alignment;
                               d["w_polarity"] = c.w_polarity;
                               d["q_polarity"] = c.q_polarity;
                               return d;
                             })
      .def(
          "score",
          [](const LexicalNLI& n, const std::string& premise, const std::string& hypothesis) {
            py::gil_scoped_release release;
            return n.score(premise, hypothesis);
          },
          py::arg("premise"), py::arg("hypothesis"))
      .def(
          "score_prepared",
          [](const LexicalNLI& n, const LexicalPremise& premise, const std::string& hypothesis) {
            py::gil_scoped_release release;
            return n.score(premise, hypothesis);
          },
          py::arg("premise"), py::arg("hypothesis"))
      .def(
          "score_batch",
          [](const LexicalNLI& n, const std::vector<std::string>& premises,
             const std::vector<std::string>& hypotheses) {
            std::vector<double> out;
            {
              py::gil_scoped_release release;
              out = n.score_batch(premises, hypotheses);
            }
            py::array_t<double> arr(static_cast<py::ssize_t>(out.size()));
            std::copy(out.begin(), out.end(), arr.mutable_data());
            return arr;
          },
          py::arg("premises"), py::arg("hypotheses"));
}

}  // namespace director_fast::bindings
