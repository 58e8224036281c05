// Token-level streaming halt kernel.
//
// Semantics follow director-ai 3.21.0's StreamingKernel (checked against its recorded reference
// cases, tests/fixtures/halt_cases.json) with every parameter and score validated:
//   * hard limit:   score < hard_limit halts at once (output excludes the token);
//   * window mean:  once window_size scores exist, mean(last window_size) < window_threshold;
//   * trend:        over the last trend_window scores, the least-squares slope times (n - 1),
//                   negated (the projected drop), > trend_threshold;
//   * checks run in that order, the first that fires names the reason;
//   * soft mode:    a window/trend halt becomes pending and is finalised on the next sentence end
//                   (or the trigger token itself), or after soft_halt_cap further tokens;
//   * soft limit:   a score < soft_limit without a halt marks the token as a warning.
// Arithmetic is plain IEEE double with left-to-right sums so that decisions are bit-compatible
// with the reference at exact-threshold cases. Work per token is O(window_size + trend_window),
// independent of the stream length, and no memory is allocated after construction.
//
// Thread-safety: a HaltKernel is a per-stream state machine; it is not safe to use one instance
// from several threads at once. Distinct instances are independent.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace director_fast {

enum class HaltReason : std::uint8_t {
  None = 0,
  HardLimit = 1,
  WindowAvg = 2,
  DownwardTrend = 3,
  CallbackTimeout = 4,
  KernelInactive = 5,
  ScorerError = 6,
  UpstreamError = 7,
};

// Stable machine string ("hard_limit", "window_avg", ...; "" for None).
const char* halt_reason_name(HaltReason r) noexcept;

enum class HaltMode : std::uint8_t { Hard = 0, Soft = 1 };

struct HaltConfig {
  double hard_limit = 0.5;
  int window_size = 10;
  double window_threshold = 0.55;
  int trend_window = 5;
  double trend_threshold = 0.15;
  double soft_limit = 0.6;
  HaltMode halt_mode = HaltMode::Hard;
  int score_every_n = 1;
  bool adaptive = false;
  int max_cadence = 8;
  int soft_halt_cap = 50;

  // Throws ConfigError naming the first invalid field.
  void validate() const;
};

enum class StepAction : std::uint8_t {
  Continue = 0,     // token passes, no warning
  Warn = 1,         // token passes, score below soft_limit
  SoftPending = 2,  // a window/trend condition fired in soft mode; the stream runs on
  Halt = 3,         // the stream stops at this token
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The outcome of one token.
struct StepResult {
  StepAction action = StepAction::Continue;
  HaltReason reason = HaltReason::None;  // reason of a halt or of a pending soft halt
  bool soft = false;                     // Halt: finalised soft halt (output keeps this token)
  bool scored = false;                   // a fresh score was used (not a reused one)
  double score = kNaN;                   // the effective score of this token
  double window_mean = kNaN;             // NaN when not computed (window not full / skipped)
  double trend_drop = kNaN;              // NaN when not computed
  double statistic = kNaN;               // the statistic that crossed (score, mean or drop)
  double threshold = kNaN;               // the limit it crossed
  double margin = kNaN;                  // distance beyond the limit, > 0
  std::int64_t trigger_index = -1;       // token where the halt condition held
};

// Final decision of a stream.
struct HaltDecision {
  bool halted = false;
  bool soft_halted = false;
  HaltReason reason = HaltReason::None;
  std::int64_t halt_index = -1;      // token where the condition held (-1: none)
  std::int64_t final_index = -1;     // token where the halt took effect (soft: finalisation)
  std::int64_t tokens_seen = 0;      // tokens consumed by the kernel
  std::int64_t output_tokens = 0;    // tokens the user receives
  std::int64_t warning_count = 0;
  std::int64_t scored_count = 0;
  bool pending_soft = false;         // a soft halt is pending (stream not finished)
  double statistic = kNaN;
  double threshold = kNaN;
  double margin = kNaN;
  double last_score = kNaN;          // the raw score of the halt token
};

class HaltKernel {
 public:
  explicit HaltKernel(const HaltConfig& config);

  const HaltConfig& config() const noexcept { return config_; }

  // Whether the next token (index tokens_seen()) must receive a fresh score under the cadence.
  bool wants_score() const noexcept {
    return cadence_ <= 1 || (index_ % cadence_) == 0;
  }

  // Feed the next token. `scored` says whether `score` is fresh; when false the last fresh
  // score is reused (0.5 before the first) and `score` is ignored. A fresh score must be finite
  // and in [0, 1]; otherwise ScoreError is thrown and the state is unchanged.
  // Throws ValueError if the stream is already finished (halted).
  StepResult step(double score, bool scored, bool sentence_end);

  // Convenience: apply the cadence itself (score used only when wants_score()).
  StepResult step_auto(double score, bool sentence_end) {
    return step(score, wants_score(), sentence_end);
  }

  // Feed n tokens that share one fresh score (a scored sentence). sentence_end may be null.
  // actions_out (n entries) receives each token's StepAction. Stops after a halt; returns the
  // number of tokens consumed.
  std::int64_t feed_same(double score, std::int64_t n, const std::uint8_t* sentence_end,
                         std::uint8_t* actions_out);

  // Halt at the next token index for an external reason (callback_timeout, scorer_error,
  // kernel_inactive, upstream_error); the token is not consumed and not part of the output.
  HaltDecision halt_external(HaltReason reason);

  // End of stream: a pending soft halt is finalised (fail closed) at the last token.
  HaltDecision finish();

  // Current decision (does not finalise a pending soft halt).
  HaltDecision decision() const;

  bool finished() const noexcept { return finished_; }
  std::int64_t tokens_seen() const noexcept { return index_; }
  int cadence() const noexcept { return cadence_; }
  double last_score() const noexcept { return last_score_; }
  // Mean of the last min(count, window_size) scores (NaN when none).
  double current_window_mean() const noexcept;

  void reset() noexcept;

  // Batch replay. scores[i] is the score the scorer would return when token i is the newest;
  // only the entries the cadence selects are read (others may hold anything). sentence_end may be
  // null (no sentence ends). flags, if non-null, receives per token: bit0 scored, bit1 warning,
  // bit2 halt token, bit3 soft-pending trigger. Runs to the end of the arrays and finalises
  // (finish()) unless `finalize` is false. The kernel must be fresh (reset) or continues its state.
  HaltDecision run(const double* scores, const std::uint8_t* sentence_end, std::int64_t n,
                   std::uint8_t* flags, bool finalize = true);

 private:
  double window_mean_unchecked() const noexcept;
  double trend_drop_unchecked() const noexcept;
  double at(std::int64_t back) const noexcept;  // back=0: newest
  void finalize_soft(std::int64_t final_index);

  HaltConfig config_;
  std::vector<double> ring_;
  std::int64_t capacity_ = 0;
  double trend_den_ = 1.0;
  std::int64_t count_ = 0;   // scores in history (== index_ while running)
  std::int64_t head_ = 0;    // next write position
  std::int64_t index_ = 0;   // tokens consumed
  int cadence_ = 1;
  double last_score_ = 0.5;
  bool finished_ = false;
  bool pending_ = false;
  std::int64_t pending_extra_ = 0;
  HaltDecision d_;
};

}  // namespace director_fast
