// Bindings of the streaming halt kernel.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "common.hpp"
#include "director_fast/errors.hpp"
#include "director_fast/halt_kernel.hpp"

namespace py = pybind11;

namespace director_fast::bindings {

namespace {

HaltReason reason_from_string(const std::string& s) {
  if (s == "callback_timeout") return HaltReason::CallbackTimeout;
  if (s == "kernel_inactive") return HaltReason::KernelInactive;
  if (s == "scorer_error") return HaltReason::ScorerError;
  if (s == "upstream_error") return HaltReason::UpstreamError;
  throw ValueError("reason must be 'callback_timeout', 'kernel_inactive', 'scorer_error' or 'upstream_error', got '" + s + "'");
}

const char* action_name(StepAction a) {
  switch (a) {
    case StepAction::Continue: return "continue";
    case StepAction::Warn: return "warn";
    case StepAction::SoftPending: return "soft_pending";
    case StepAction::Halt: return "halt";
  }
  return "continue";
}

py::object opt(double v) {
  if (v != v) return py::none();
  return py::float_(v);
}

}  // namespace

void bind_halt(py::module_& m) {
  py::class_<StepResult>(m, "StepResult", "Outcome of one token (see HaltKernel.step).")
      .def_property_readonly("action", [](const StepResult& r) { return action_name(r.action); },
                             "'continue', 'warn', 'soft_pending' or 'halt'")
      .def_property_readonly("reason", [](const StepResult& r) { return halt_reason_name(r.reason); })
      .def_readonly("soft", &StepResult::soft)
      .def_readonly("scored", &StepResult::scored)
      .def_readonly("score", &StepResult::score)
      .def_property_readonly("window_mean", [](const StepResult& r) { return opt(r.window_mean); })
      .def_property_readonly("trend_drop", [](const StepResult& r) { return opt(r.trend_drop); })
      .def_property_readonly("statistic", [](const StepResult& r) { return opt(r.statistic); })
      .def_property_readonly("threshold", [](const StepResult& r) { return opt(r.threshold); })
      .def_property_readonly("margin", [](const StepResult& r) { return opt(r.margin); })
      .def_readonly("trigger_index", &StepResult::trigger_index)
      .def("__repr__", [](const StepResult& r) {
        return std::string("StepResult(action='") + action_name(r.action) + "', reason='" +
               halt_reason_name(r.reason) + "', score=" + std::to_string(r.score) + ")";
      });

  py::class_<HaltDecision>(m, "HaltDecision", "Decision of a whole stream (see HaltKernel.run).")
      .def_readonly("halted", &HaltDecision::halted)
      .def_readonly("soft_halted", &HaltDecision::soft_halted)
      .def_property_readonly("reason", [](const HaltDecision& d) { return halt_reason_name(d.reason); })
      .def_readonly("halt_index", &HaltDecision::halt_index)
      .def_readonly("final_index", &HaltDecision::final_index)
      .def_readonly("tokens_seen", &HaltDecision::tokens_seen)
      .def_readonly("output_tokens", &HaltDecision::output_tokens)
      .def_readonly("warning_count", &HaltDecision::warning_count)
      .def_readonly("scored_count", &HaltDecision::scored_count)
      .def_readonly("pending_soft", &HaltDecision::pending_soft)
      .def_property_readonly("statistic", [](const HaltDecision& d) { return opt(d.statistic); })
      .def_property_readonly("threshold", [](const HaltDecision& d) { return opt(d.threshold); })
      .def_property_readonly("margin", [](const HaltDecision& d) { return opt(d.margin); })
      .def_property_readonly("last_score", [](const HaltDecision& d) { return opt(d.last_score); })
      .def("__repr__", [](const HaltDecision& d) {
        return std::string("HaltDecision(halted=") + (d.halted ? "True" : "False") +
               ", soft_halted=" + (d.soft_halted ? "True" : "False") + ", reason='" +
               halt_reason_name(d.reason) + "', halt_index=" + std::to_string(d.halt_index) +
               ", output_tokens=" + std::to_string(d.output_tokens) + ")";
      });

  py::class_<HaltKernel>(m, "HaltKernel",
                         "Per-stream halt state machine (not thread-safe; one per stream).")
      .def(py::init([](double hard_limit, int window_size, double window_threshold, int trend_window,
                       double trend_threshold, double soft_limit, const std::string& halt_mode,
                       int score_every_n, bool adaptive, int max_cadence, int soft_halt_cap) {
             HaltConfig c;
             c.hard_limit = hard_limit;
             c.window_size = window_size;
             c.window_threshold = window_threshold;
             c.trend_window = trend_window;
             c.trend_threshold = trend_threshold;
             c.soft_limit = soft_limit;
             if (halt_mode == "hard") {
               c.halt_mode = HaltMode::Hard;
             } else if (halt_mode == "soft") {
               c.halt_mode = HaltMode::Soft;
             } else {
               throw ConfigError("halt_mode", "must be 'hard' or 'soft', got '" + halt_mode + "'");
             }
             c.score_every_n = score_every_n;
             c.adaptive = adaptive;
             c.max_cadence = max_cadence;
             c.soft_halt_cap = soft_halt_cap;
             return HaltKernel(c);
           }),
           py::kw_only(), py::arg("hard_limit") = 0.5, py::arg("window_size") = 10,
           py::arg("window_threshold") = 0.55, py::arg("trend_window") = 5,
           py::arg("trend_threshold") = 0.15, py::arg("soft_limit") = 0.6,
           py::arg("halt_mode") = "hard", py::arg("score_every_n") = 1, py::arg("adaptive") = false,
           py::arg("max_cadence") = 8, py::arg("soft_halt_cap") = 50)
      .def_property_readonly("wants_score", &HaltKernel::wants_score,
                             "Whether the next token must get a fresh score under the cadence.")
      .def("step", &HaltKernel::step, py::arg("score"), py::arg("scored") = true,
           py::arg("sentence_end") = false,
           "Feed one token. Raises ScoreError (ValueError) for a fresh score outside [0, 1] or "
           "non-finite, leaving the state unchanged; ValidationError after the stream ended.")
      .def("feed",
           [](HaltKernel& k, double score, bool scored, bool sentence_end) {
             const int action = static_cast<int>(k.step(score, scored, sentence_end).action);
             return action | (!k.finished() && k.wants_score() ? 4 : 0);
           },
           py::arg("score"), py::arg("scored") = true, py::arg("sentence_end") = false,
           "Fast path of step(): returns the action in bits 0-1 (0 continue, 1 warn, "
           "2 soft_pending, 3 halt) and bit 2 set when the next token wants a fresh score under "
           "the cadence; details are in .decision.")
      .def(
          "feed_same",
          [](HaltKernel& k, double score, py::bytes sentence_end, std::int64_t n) {
            std::string se = sentence_end;
            if (!se.empty() && static_cast<std::int64_t>(se.size()) != n) {
              throw ValueError("sentence_end must be empty or hold one byte per token");
            }
            if (n < 0) throw ValueError("n must be >= 0");
            std::string out(static_cast<std::size_t>(n), '\0');
            const std::int64_t used = k.feed_same(
                score, n, se.empty() ? nullptr : reinterpret_cast<const std::uint8_t*>(se.data()),
                reinterpret_cast<std::uint8_t*>(out.data()));
            out.resize(static_cast<std::size_t>(used));
            return py::bytes(out);
          },
          py::arg("score"), py::arg("sentence_end"), py::arg("n"),
          "Feed n tokens sharing one fresh score (a scored sentence); sentence_end is b'' or one "
          "byte per token. Returns one action byte per consumed token (stops after a halt).")
      .def("halt_external",
           [](HaltKernel& k, const std::string& reason) { return k.halt_external(reason_from_string(reason)); },
           py::arg("reason"))
      .def("finish", &HaltKernel::finish)
      .def_property_readonly("decision", &HaltKernel::decision)
      .def_property_readonly("finished", &HaltKernel::finished)
      .def_property_readonly("tokens_seen", &HaltKernel::tokens_seen)
      .def_property_readonly("cadence", &HaltKernel::cadence)
      .def_property_readonly("last_score", &HaltKernel::last_score)
      .def_property_readonly("current_window_mean",
                             [](const HaltKernel& k) { return opt(k.current_window_mean()); })
      .def("reset", &HaltKernel::reset)
      .def(
          "run",
          [](HaltKernel& k, py::handle scores, py::handle sentence_end, py::handle flags_out,
             bool finalize) {
            auto s = require_1d<double>(scores, "scores");
            const std::int64_t n = s.shape(0);
            const std::uint8_t* se = nullptr;
            py::array_t<std::uint8_t> se_arr;
            if (!sentence_end.is_none()) {
              py::array a = py::reinterpret_borrow<py::array>(sentence_end);
              if (py::isinstance<py::array>(sentence_end) && a.dtype().is(py::dtype::of<bool>())) {
                a = a.view("uint8");
              }
              se_arr = require_1d<std::uint8_t>(a, "sentence_end");
              if (se_arr.shape(0) != n) {
                raise_python("InputTypeError", "sentence_end must have the same length as scores (" +
                                                   std::to_string(n) + "), got " +
                                                   std::to_string(se_arr.shape(0)));
              }
              se = se_arr.data();
            }
            std::uint8_t* fl = nullptr;
            py::array_t<std::uint8_t> fl_arr;
            if (!flags_out.is_none()) {
              fl_arr = require_1d<std::uint8_t>(flags_out, "flags_out");
              if (fl_arr.shape(0) < n) {
                raise_python("InputTypeError", "flags_out must hold at least len(scores) entries");
              }
              if (!fl_arr.writeable()) raise_python("InputTypeError", "flags_out must be writeable");
              fl = fl_arr.mutable_data();
            }
            const double* sp = s.data();
            HaltDecision d;
            {
              py::gil_scoped_release release;
              d = k.run(sp, se, n, fl, finalize);
            }
            return d;
          },
          py::arg("scores"), py::arg("sentence_end") = py::none(), py::arg("flags_out") = py::none(),
          py::arg("finalize") = true,
          "Batch replay over float64 scores (and optional bool/uint8 sentence_end) with the GIL "
          "released; see director_fast.core.streaming.replay for the documented wrapper.");
}

}  // namespace director_fast::bindings
