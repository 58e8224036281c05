// Tenant-safety validators and field-format checks for SafetyEvent / DirectorSafetySignal.
//
// The validators are a normaliser plus detectors (documented in
// python/director_fast/core/tenant_safety.py and docs/safety_events.md; the pure-Python reference
// is tests/_safety_oracle.py, compared against this one by Hypothesis differential tests):
//   * fold: each non-ASCII code point becomes the ASCII it shows or stands for (NFKD, casefold,
//     Unicode confusables; format characters and marks dropped) -- for detection only, the checked
//     string itself never changes. Pure-ASCII 1-byte strings skip the fold (no copy).
//     The word for "password" in scripts that do not fold to ASCII folds to "password".
//   * normalise: defanged URLs read as URLs, subresource-integrity digests as hex digests;
//   * value detectors (V1..V7): JWTs, PEM private keys and DER bodies, vendor token formats and
//     Heroku keys, passwords or keys in URLs, data: URIs and long base64, high-entropy runs, chat
//     webhook URLs;
//   * assignments (S1, S2): a secret-like or prompt/message key followed by ':' / '=' and a
//     credential-like value, and "Bearer <credential>";
//   * split secrets: the value detectors and assignments again on the views of the text without
//     one separator kind, then without two kinds mixed;
//   * key role only (K1..K5): attribute / extension keys that name credentials, private content,
//     media, sensor payloads or raw payloads.
// Every function works on the code points of a Python str (1-, 2- or 4-byte units, i.e. the
// PEP 393 kinds) and runs in time linear in the input length (every scan is capped or starts at a
// position no earlier scan of the same kind covered).
//
// Thread-safety: all functions are pure (no shared mutable state); call from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace director_fast::safety {

// Why `s` (n code units of CharT = uint8_t/uint16_t/uint32_t) breaks a tenant-safety rule, or ""
// when it is safe. `key` selects the attribute/extension-key role, otherwise the free-text role.
// The reason text is identical to the Python reference (e.g. "secret assigned to 'password' (S1)").
template <typename CharT>
std::string tenant_safety_violation(const CharT* s, std::size_t n, bool key);

// The folded (detection) copy of `s`: ASCII bytes, 0x80 for a code point that maps to no ASCII.
template <typename CharT>
std::string fold_for_detection(const CharT* s, std::size_t n);

// True when `s` contains U+0000..U+001F, U+007F or a surrogate code point (U+D800..U+DFFF).
template <typename CharT>
bool has_control(const CharT* s, std::size_t n) noexcept {
  std::size_t i = 0;
  if constexpr (sizeof(CharT) == 1) {
    // 8 bytes at a time (SWAR): a byte < 0x20 or == 0x7f anywhere in the word
    constexpr std::uint64_t k01 = 0x0101010101010101ULL, k80 = 0x8080808080808080ULL;
    std::uint64_t acc = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t x;
      std::memcpy(&x, s + i, 8);
      const std::uint64_t d = x ^ (0x7f * k01);
      acc |= ((x - 0x20 * k01) & ~x & k80) | ((d - k01) & ~d & k80);
    }
    if (acc != 0) return true;
  }
  // the rest one by one (branch-free); the surrogate test only matters for 2/4-byte units
  unsigned bad = 0;
  for (; i < n; ++i) {
    const std::uint32_t c = s[i];
    bad |= (c < 0x20) | (c == 0x7f);
    if constexpr (sizeof(CharT) > 1) bad |= (c >= 0xd800) & (c <= 0xdfff);
  }
  return bad != 0;
}

// True when `c` is whitespace in the sense of Python's str.isspace() / re "\s" on str patterns.
inline bool is_py_space(std::uint32_t c) noexcept {
  if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
  if (c < 0x85) return false;
  return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 ||
         c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

// True when `s` has a code point that is not whitespace (Python regex "\S" finds a match).
template <typename CharT>
bool has_nonblank(const CharT* s, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i)
    if (!is_py_space(s[i])) return true;
  return false;
}

// Full matches of the ASCII formats (same grammar as the Python regular expressions):
//   event id   sevt_[A-Za-z0-9_-]{1,123}
//   signal id  dsp_[A-Za-z0-9_-]{1,124}
//   hook id    [A-Za-z0-9_][A-Za-z0-9_.:/-]{0,127}
//   attr key   [A-Za-z0-9_][A-Za-z0-9_.:/-]{0,63}
//   timestamp  YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z  (month 01-12, day 01-31, hour 00-23, minute 00-59,
//              second 00-60)
template <typename CharT>
bool is_event_id(const CharT* s, std::size_t n) noexcept;
template <typename CharT>
bool is_signal_id(const CharT* s, std::size_t n) noexcept;
template <typename CharT>
bool is_hook_id(const CharT* s, std::size_t n) noexcept;
template <typename CharT>
bool is_attr_key(const CharT* s, std::size_t n) noexcept;
template <typename CharT>
bool is_timestamp(const CharT* s, std::size_t n) noexcept;

// Writes the 27-character RFC-3339 UTC timestamp "YYYY-MM-DDTHH:MM:SS.ffffffZ" for `unix_ns`
// nanoseconds since the epoch (proleptic Gregorian, no leap seconds) into out[0..27).
void format_utc_timestamp(std::int64_t unix_ns, char* out) noexcept;

}  // namespace director_fast::safety
