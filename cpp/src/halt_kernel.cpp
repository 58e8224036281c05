#include "director_fast/halt_kernel.hpp"

#include <cmath>
#include <string>

#include "director_fast/errors.hpp"

namespace director_fast {

const char* halt_reason_name(HaltReason r) noexcept {
  switch (r) {
    case HaltReason::None: return "";
    case HaltReason::HardLimit: return "hard_limit";
    case HaltReason::WindowAvg: return "window_avg";
    case HaltReason::DownwardTrend: return "downward_trend";
    case HaltReason::CallbackTimeout: return "callback_timeout";
    case HaltReason::KernelInactive: return "kernel_inactive";
    case HaltReason::ScorerError: return "scorer_error";
    case HaltReason::UpstreamError: return "upstream_error";
  }
  return "";
}

namespace {
void check_unit(const char* field, double v) {
  if (!std::isfinite(v) || v < 0.0 || v > 1.0) {
    throw ConfigError(field, "must be a finite number in [0, 1], got " + std::to_string(v));
  }
}
void check_count(const char* field, int v, int lo, int hi) {
  if (v < lo || v > hi) {
    throw ConfigError(field, "must be an integer in [" + std::to_string(lo) + ", " +
                                 std::to_string(hi) + "], got " + std::to_string(v));
  }
}
constexpr int kMaxWindow = 1 << 20;
}  // namespace

void HaltConfig::validate() const {
  check_unit("hard_limit", hard_limit);
  check_count("window_size", window_size, 1, kMaxWindow);
  check_unit("window_threshold", window_threshold);
  check_count("trend_window", trend_window, 2, kMaxWindow);
  // A drop is at most 1 for scores in [0, 1]... in fact up to (n-1)*|slope|; keep it in [0, 1].
  check_unit("trend_threshold", trend_threshold);
  check_unit("soft_limit", soft_limit);
  if (halt_mode != HaltMode::Hard && halt_mode != HaltMode::Soft) {
    throw ConfigError("halt_mode", "must be 'hard' or 'soft'");
  }
  check_count("score_every_n", score_every_n, 1, kMaxWindow);
  check_count("max_cadence", max_cadence, 1, kMaxWindow);
  check_count("soft_halt_cap", soft_halt_cap, 1, kMaxWindow);
}

HaltKernel::HaltKernel(const HaltConfig& config) : config_(config) {
  config_.validate();
  capacity_ = config_.window_size > config_.trend_window ? config_.window_size : config_.trend_window;
  // Mirrored ring: every value is written at head and head + capacity, so the newest n values are
  // always contiguous (no wrap-around branch in the sums).
  ring_.assign(static_cast<std::size_t>(2 * capacity_), 0.0);
  const double xbar = static_cast<double>(config_.trend_window - 1) / 2.0;
  trend_den_ = 0.0;
  for (int i = 0; i < config_.trend_window; ++i) {
    const double dx = static_cast<double>(i) - xbar;
    trend_den_ += dx * dx;
  }
  reset();
}

void HaltKernel::reset() noexcept {
  count_ = 0;
  head_ = 0;
  index_ = 0;
  cadence_ = config_.score_every_n;
  last_score_ = 0.5;
  finished_ = false;
  pending_ = false;
  pending_extra_ = 0;
  d_ = HaltDecision{};
}

double HaltKernel::at(std::int64_t back) const noexcept {
  return ring_[static_cast<std::size_t>(head_ + capacity_ - 1 - back)];
}

// Mean of the last window_size scores, summed oldest to newest (the anchor's order).
double HaltKernel::window_mean_unchecked() const noexcept {
  const std::int64_t n = config_.window_size;
  const double* p = ring_.data() + (head_ + capacity_ - n);  // oldest of the window
  double s = 0.0;
  for (std::int64_t k = 0; k < n; ++k) s += p[k];
  return s / static_cast<double>(n);
}

double HaltKernel::current_window_mean() const noexcept {
  std::int64_t n = count_ < config_.window_size ? count_ : config_.window_size;
  if (n == 0) return kNaN;
  double s = 0.0;
  for (std::int64_t k = n - 1; k >= 0; --k) s += at(k);
  return s / static_cast<double>(n);
}

// Projected drop over the last trend_window scores: -slope * (n - 1), slope from centred
// ordinary least squares: x_i = i - (n-1)/2, slope = sum(x_i * (y_i - ybar)) / sum(x_i^2).
double HaltKernel::trend_drop_unchecked() const noexcept {
  const std::int64_t n = config_.trend_window;
  const double* p = ring_.data() + (head_ + capacity_ - n);  // oldest of the trend window
  double sy = 0.0;
  for (std::int64_t k = 0; k < n; ++k) sy += p[k];
  const double ybar = sy / static_cast<double>(n);
  const double xbar = static_cast<double>(n - 1) / 2.0;
  double num = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double dx = static_cast<double>(i) - xbar;
    num += dx * (p[i] - ybar);
  }
  // trend_den_ = sum(dx^2), accumulated in the same order once at construction.
  return -(num / trend_den_) * static_cast<double>(n - 1);
}

void HaltKernel::finalize_soft(std::int64_t final_index) {
  pending_ = false;
  finished_ = true;
  d_.halted = true;
  d_.soft_halted = true;
  d_.pending_soft = false;
  d_.final_index = final_index;
  d_.output_tokens = final_index + 1;
}

StepResult HaltKernel::step(double score, bool scored, bool sentence_end) {
  if (finished_) {
    throw ValueError("the stream has already halted at token " + std::to_string(d_.halt_index) +
                     "; reset() the kernel to start a new stream");
  }
  StepResult r;
  const std::int64_t i = index_;
  if (scored) {
    if (!std::isfinite(score) || score < 0.0 || score > 1.0) {
      throw ScoreError(i, "score for token " + std::to_string(i) +
                              " must be a finite number in [0, 1], got " + std::to_string(score));
    }
    if (config_.adaptive) {
      const double w = count_ > 0 ? current_window_mean() : score;
      if (w > config_.soft_limit && cadence_ < config_.max_cadence) {
        cadence_ = cadence_ + 1 < config_.max_cadence ? cadence_ + 1 : config_.max_cadence;
      } else if (score < config_.soft_limit) {
        cadence_ = 1;
      }
    }
    last_score_ = score;
    d_.scored_count += 1;
  } else {
    score = last_score_;
  }
  r.scored = scored;
  r.score = score;

  ring_[static_cast<std::size_t>(head_)] = score;
  ring_[static_cast<std::size_t>(head_ + capacity_)] = score;
  head_ = head_ + 1 == capacity_ ? 0 : head_ + 1;
  count_ += 1;
  index_ += 1;
  d_.tokens_seen = index_;

  // 1. hard limit: always immediate, also while a soft halt is pending.
  if (score < config_.hard_limit) {
    r.action = StepAction::Halt;
    r.reason = HaltReason::HardLimit;
    r.statistic = score;
    r.threshold = config_.hard_limit;
    r.margin = config_.hard_limit - score;
    r.trigger_index = i;
    pending_ = false;
    finished_ = true;
    d_.halted = true;
    d_.soft_halted = false;
    d_.pending_soft = false;
    d_.reason = HaltReason::HardLimit;
    d_.halt_index = i;
    d_.final_index = i;
    d_.output_tokens = i;
    d_.statistic = r.statistic;
    d_.threshold = r.threshold;
    d_.margin = r.margin;
    d_.last_score = score;
    return r;
  }

  // 2. a pending soft halt runs to a sentence end or the cap.
  if (pending_) {
    pending_extra_ += 1;
    r.reason = d_.reason;
    r.trigger_index = d_.halt_index;
    r.statistic = d_.statistic;
    r.threshold = d_.threshold;
    r.margin = d_.margin;
    if (sentence_end || pending_extra_ >= config_.soft_halt_cap) {
      r.action = StepAction::Halt;
      r.soft = true;
      finalize_soft(i);
    } else {
      r.action = StepAction::SoftPending;
      d_.output_tokens = index_;
    }
    return r;
  }

  // 3. window mean, then 4. downward trend.
  HaltReason reason = HaltReason::None;
  if (count_ >= config_.window_size) {
    r.window_mean = window_mean_unchecked();
    if (r.window_mean < config_.window_threshold) {
      reason = HaltReason::WindowAvg;
      r.statistic = r.window_mean;
      r.threshold = config_.window_threshold;
      r.margin = config_.window_threshold - r.window_mean;
    }
  }
  if (count_ >= config_.trend_window) {
    r.trend_drop = trend_drop_unchecked();
    if (reason == HaltReason::None && r.trend_drop > config_.trend_threshold) {
      reason = HaltReason::DownwardTrend;
      r.statistic = r.trend_drop;
      r.threshold = config_.trend_threshold;
      r.margin = r.trend_drop - config_.trend_threshold;
    }
  }

  if (reason != HaltReason::None) {
    r.reason = reason;
    r.trigger_index = i;
    d_.reason = reason;
    d_.halt_index = i;
    d_.statistic = r.statistic;
    d_.threshold = r.threshold;
    d_.margin = r.margin;
    d_.last_score = score;
    if (config_.halt_mode == HaltMode::Soft) {
      if (sentence_end) {
        r.action = StepAction::Halt;
        r.soft = true;
        finalize_soft(i);
      } else {
        r.action = StepAction::SoftPending;
        pending_ = true;
        pending_extra_ = 0;
        d_.pending_soft = true;
        d_.output_tokens = index_;
      }
      return r;
    }
    r.action = StepAction::Halt;
    finished_ = true;
    d_.halted = true;
    d_.final_index = i;
    d_.output_tokens = i;
    return r;
  }

  // 5. soft-limit warning.
  if (score < config_.soft_limit) {
    r.action = StepAction::Warn;
    d_.warning_count += 1;
  }
  d_.output_tokens = index_;
  return r;
}

HaltDecision HaltKernel::halt_external(HaltReason reason) {
  if (finished_) {
    throw ValueError("the stream has already halted; reset() the kernel to start a new stream");
  }
  if (reason != HaltReason::CallbackTimeout && reason != HaltReason::KernelInactive &&
      reason != HaltReason::ScorerError && reason != HaltReason::UpstreamError) {
    throw ValueError("halt_external takes callback_timeout, kernel_inactive, scorer_error or upstream_error");
  }
  // An external halt supersedes a pending soft halt: the stream stops before this token.
  pending_ = false;
  finished_ = true;
  d_.halted = true;
  d_.soft_halted = false;
  d_.pending_soft = false;
  d_.reason = reason;
  d_.halt_index = index_;
  d_.final_index = index_;
  d_.output_tokens = index_;
  d_.statistic = kNaN;
  d_.threshold = kNaN;
  d_.margin = kNaN;
  d_.last_score = last_score_;
  return d_;
}

HaltDecision HaltKernel::finish() {
  if (pending_) {
    finalize_soft(index_ - 1);
  }
  finished_ = true;
  return d_;
}

HaltDecision HaltKernel::decision() const { return d_; }

std::int64_t HaltKernel::feed_same(double score, std::int64_t n, const std::uint8_t* sentence_end,
                                   std::uint8_t* actions_out) {
  std::int64_t j = 0;
  for (; j < n && !finished_; ++j) {
    const StepResult r = step(score, true, sentence_end != nullptr && sentence_end[j] != 0);
    actions_out[j] = static_cast<std::uint8_t>(r.action);
  }
  return j;
}

HaltDecision HaltKernel::run(const double* scores, const std::uint8_t* sentence_end,
                             std::int64_t n, std::uint8_t* flags, bool finalize) {
  for (std::int64_t j = 0; j < n && !finished_; ++j) {
    const bool want = wants_score();
    const StepResult r = step(want ? scores[j] : 0.0, want, sentence_end != nullptr && sentence_end[j] != 0);
    if (flags != nullptr) {
      std::uint8_t f = r.scored ? 1u : 0u;
      if (r.action == StepAction::Warn) f |= 2u;
      if (r.action == StepAction::Halt) f |= 4u;
      if (r.action == StepAction::SoftPending && r.trigger_index == index_ - 1) f |= 8u;
      flags[j] = f;
    }
  }
  if (finalize) finish();
  return d_;
}

}  // namespace director_fast
