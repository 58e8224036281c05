// Tenant-safety rules R1..R8 and SafetyEvent field formats (see safety_rules.hpp).
#include "director_fast/safety_rules.hpp"

#include <array>
#include <cstring>
#include <string_view>
#include <vector>

namespace director_fast::safety {
namespace {

// ---- word sets ------------------------------------------------------------------------------
enum : std::uint32_t {
  kRef = 1u << 0,           // reference words after a credential / key word
  kCredential = 1u << 1,    // R1
  kKeyQual = 1u << 2,       // R2 qualifiers before key(s)
  kTokenQual = 1u << 3,     // R3 qualifiers before token(s)
  kTokenPosAfter = 1u << 4, // R3 position words after token
  kTokenPosBefore = 1u << 5,
  kPromptWord = 1u << 6,    // R4
  kPromptQual = 1u << 7,
  kContentAfter = 1u << 8,
  kPromptMeta = 1u << 9,
  kRawContent = 1u << 10,   // R5
  kMedia = 1u << 11,        // R6
  kMediaMeta = 1u << 12,
  kMediaQual = 1u << 13,
  kMediaPayload = 1u << 14,
  kSensor = 1u << 15,       // R7
  kSensorMeta = 1u << 16,
  kSensorPayload = 1u << 17,
  kKeyWord = 1u << 18,      // key, keys
  kTokenWord = 1u << 19,    // token, tokens
  kRaw = 1u << 20,          // raw
  kTokenCompound = 1u << 21,   // R3 run-together credential tokens (accesstoken)
  kKeyCompound = 1u << 22,     // R2 run-together credential keys (secretkey)
  kPromptCompound = 1u << 23,  // R4 run-together private prompts (systemprompt)
  kTrigger = kCredential | kPromptWord | kMedia | kSensor | kKeyWord | kTokenWord | kRaw |
             kTokenCompound | kKeyCompound | kPromptCompound,
};

struct SetDef {
  std::uint32_t flag;
  const char* words;  // space-separated
};

constexpr SetDef kSets[] = {
    {kRef, "id ids ref refs reference name arn"},
    {kCredential,
     "password passwords passwd passphrase secret secrets credential credentials apikey apikeys "
     "privatekey bearer jwt jwts cookie cookies clientsecret clientsecrets"},
    {kKeyQual, "private api secret access ssh signing encryption client master"},
    {kTokenQual,
     "access auth api bearer refresh id session oauth csrf xsrf personal security service github "
     "slack jwt identity"},
    {kTokenPosAfter,
     "offset offsets index indices idx count counts position positions pos id ids budget limit "
     "limits usage length len number num rate latency logprob logprobs probability prob level "
     "window span"},
    {kTokenPosBefore, "per each every first last next max min nth"},
    {kPromptWord, "prompt prompts completion completions transcript transcripts"},
    {kPromptQual,
     "raw private system user full original hidden secret input customer verbatim confidential "
     "unredacted"},
    {kContentAfter, "text content contents body payload value data string dump"},
    {kPromptMeta,
     "id ids ref refs hash digest version count tokens length len template policy type kind"},
    {kRawContent,
     "prompt prompts completion completions payload payloads text content contents response "
     "responses output outputs input inputs data body message messages bytes audio image images "
     "video videos frame frames reading readings media query queries transcript transcripts "
     "request requests document documents sensor html json log logs string user photo photos"},
    {kMedia,
     "image images photo photos picture pictures video videos audio screenshot screenshots "
     "recording recordings selfie selfies biometric biometrics media"},
    {kMediaMeta,
     "id ids ref refs hash digest count type format mime size width height duration kind"},
    {kMediaQual, "private personal user customer unredacted raw"},
    {kMediaPayload, "data bytes payload blob base64 dump file files"},
    {kSensor, "sensor sensors lidar telemetry"},
    {kSensorMeta, "id ids ref refs type kind name count status"},
    {kSensorPayload,
     "reading readings data payload dump frame frames sample samples value values stream feed "
     "capture raw"},
    {kKeyWord, "key keys"},
    {kTokenWord, "token tokens"},
    {kRaw, "raw"},
    // qualifier + token / key / prompt written as one word (the tokenizer splits only at
    // non-letters and case changes, so "accesstoken" is one word, unlike access_token)
    {kTokenCompound,
     "accesstoken accesstokens authtoken authtokens apitoken apitokens bearertoken refreshtoken "
     "refreshtokens idtoken sessiontoken oauthtoken csrftoken xsrftoken githubtoken slacktoken"},
    {kKeyCompound,
     "secretkey secretkeys accesskey accesskeys privatekeys sshkey sshkeys signingkey "
     "encryptionkey masterkey clientkey"},
    {kPromptCompound,
     "rawprompt systemprompt systemprompts userprompt userprompts privateprompt fullprompt "
     "hiddenprompt originalprompt inputprompt secretprompt"},
};

constexpr std::size_t kMaxWordLen = 16;  // longer words are in no set
constexpr std::size_t kTableSize = 1024;  // power of two, > 4x the number of distinct words

inline std::uint32_t hash_word(const char* w, std::size_t n) noexcept {
  std::uint32_t h = 2166136261u;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(w[i])) * 16777619u;
  return h;
}

// Open-addressing table word -> flags, built once (function-local static: thread-safe init).
class WordTable {
 public:
  WordTable() {
    for (const SetDef& def : kSets) {
      std::string_view all(def.words);
      std::size_t pos = 0;
      while (pos < all.size()) {
        std::size_t end = all.find(' ', pos);
        if (end == std::string_view::npos) end = all.size();
        insert(all.substr(pos, end - pos), def.flag);
        pos = end + 1;
      }
    }
  }
  // Cheap pre-test: can a word of this length starting with lower-case letter `first` be a
  // trigger word (credential, key(s), token(s), prompt, raw, media or sensor word)?
  // (`first`, `second`: the word's first two letters, lower case; n >= 2.)
  bool maybe_trigger(std::uint32_t first, std::uint32_t second, std::size_t n) const noexcept {
    return first - 'a' < 26 && second - 'a' < 26 && n <= kMaxWordLen &&
           ((trigger_len_bits_[first - 'a'][second - 'a'] >> n) & 1u) != 0;
  }
  std::uint32_t lookup(const char* w, std::size_t n) const noexcept {
    if (n == 0 || n > kMaxWordLen) return 0;
    for (std::uint32_t i = hash_word(w, n) & (kTableSize - 1);; i = (i + 1) & (kTableSize - 1)) {
      const Slot& s = slots_[i];
      if (s.len == 0) return 0;
      if (s.len == n && std::memcmp(s.word, w, n) == 0) return s.flags;
    }
  }

 private:
  struct Slot {
    char word[kMaxWordLen];
    std::uint8_t len = 0;
    std::uint32_t flags = 0;
  };
  void insert(std::string_view w, std::uint32_t flag) {
    if (flag & kTrigger) trigger_len_bits_[w[0] - 'a'][w[1] - 'a'] |= 1u << w.size();
    for (std::uint32_t i = hash_word(w.data(), w.size()) & (kTableSize - 1);;
         i = (i + 1) & (kTableSize - 1)) {
      Slot& s = slots_[i];
      if (s.len == 0) {
        std::memcpy(s.word, w.data(), w.size());
        s.len = static_cast<std::uint8_t>(w.size());
        s.flags = flag;
        return;
      }
      if (s.len == w.size() && std::memcmp(s.word, w.data(), w.size()) == 0) {
        s.flags |= flag;
        return;
      }
    }
  }
  std::array<Slot, kTableSize> slots_{};
  std::uint32_t trigger_len_bits_[26][26] = {};
};

// Built when the library is loaded (before any call), so lookups need no initialization guard.
const WordTable kTable;
inline const WordTable& table() { return kTable; }

// ---- ASCII character classes on code points -------------------------------------------------
constexpr bool is_upper(std::uint32_t c) noexcept { return c >= 'A' && c <= 'Z'; }
constexpr bool is_lower(std::uint32_t c) noexcept { return c >= 'a' && c <= 'z'; }
constexpr bool is_digit(std::uint32_t c) noexcept { return c >= '0' && c <= '9'; }
constexpr bool is_alpha(std::uint32_t c) noexcept { return is_upper(c) || is_lower(c); }
constexpr bool is_alnum(std::uint32_t c) noexcept { return is_alpha(c) || is_digit(c); }
inline bool is_b64url(std::uint32_t c) noexcept { return is_alnum(c) || c == '_' || c == '-'; }
inline bool is_b64std(std::uint32_t c) noexcept { return is_alnum(c) || c == '+' || c == '/'; }
inline bool is_ascii_space(std::uint32_t c) noexcept { return c == ' ' || (c >= 0x09 && c <= 0x0d); }
inline std::uint32_t lower(std::uint32_t c) noexcept { return is_upper(c) ? c + 32 : c; }

// Case-insensitive (ASCII) match of the lower-case literal `lit` at s[i..].
template <typename CharT>
inline bool ieq(const CharT* s, std::size_t n, std::size_t i, std::string_view lit) noexcept {
  if (i > n || n - i < lit.size()) return false;
  for (std::size_t k = 0; k < lit.size(); ++k)
    if (lower(s[i + k]) != static_cast<unsigned char>(lit[k])) return false;
  return true;
}

// Length of the run of code points satisfying `pred` from s[i], counted up to `limit`.
template <typename CharT, typename Pred>
inline std::size_t run(const CharT* s, std::size_t n, std::size_t i, Pred pred,
                       std::size_t limit = static_cast<std::size_t>(-1)) noexcept {
  std::size_t j = i;
  while (j < n && j - i < limit && pred(static_cast<std::uint32_t>(s[j]))) ++j;
  return j - i;
}

constexpr std::string_view kKeyPrefixes[] = {
    "sk-",  "sk_live_", "sk_test_", "rk_live_", "ghp_", "gho_", "ghu_", "ghs_",
    "ghr_", "github_pat_", "glpat-", "akia", "asia", "aiza",
};

// R8: credential- or payload-shaped substrings (JWT, PEM private key, API-key prefixes, data:
// base64 URIs, standard base64 runs of >= 200 characters). Case-insensitive, ASCII only.
// Every shape except the PEM header and the base64 run starts with a letter that is not preceded
// by a letter, i.e. at the start of a word of the tokenizer below, so shape_at() is only tried
// there; pem_at() is tried at every '-'.

// A standard base64 run of >= 200 characters anywhere.
template <typename CharT>
bool b64_run_200(const CharT* s, std::size_t n) noexcept {
  std::size_t r = 0;
  for (std::size_t i = 0; i < n; ++i) {
    r = is_b64std(s[i]) ? r + 1 : 0;
    if (r >= 200) return true;
  }
  return false;
}

// -----BEGIN [A-Z ]{0,40}PRIVATE KEY at s[i].
template <typename CharT>
bool pem_at(const CharT* s, std::size_t n, std::size_t i) noexcept {
  if (!ieq(s, n, i, "-----begin ")) return false;
  const std::size_t q = i + 11;
  for (std::size_t k = 0; k <= 40; ++k) {
    if (ieq(s, n, q + k, "private key")) return true;
    if (q + k >= n || !(is_alpha(s[q + k]) || s[q + k] == ' ')) break;
  }
  return false;
}

constexpr std::size_t kNoMatch = static_cast<std::size_t>(-1);

// The assignment operator after a word ending at j: \s{0,8} then ':' or '=' (ASCII \s), then,
// when `spaces_after`, \s{0,8} more. Returns the index after it, or kNoMatch.
template <typename CharT>
std::size_t after_assignment(const CharT* s, std::size_t n, std::size_t j, bool spaces_after) noexcept {
  const std::size_t ws = run(s, n, j, is_ascii_space, 9);
  if (ws > 8 || j + ws >= n || (s[j + ws] != ':' && s[j + ws] != '=')) return kNoMatch;
  j += ws + 1;
  if (!spaces_after) return j;
  const std::size_t ws2 = run(s, n, j, is_ascii_space, 9);
  return ws2 > 8 ? kNoMatch : j + ws2;
}

// HTTP Basic credentials: authorization\s{0,8}[:=]\s{0,8}basic\s{1,8} then a run of >= 8
// characters of [A-Za-z0-9+/] holding at least one that is not a lower-case letter (base64 of
// "user:password"; "Authorization: basic understanding" is prose). ASCII case-insensitive.
template <typename CharT>
bool basic_auth_at(const CharT* s, std::size_t n, std::size_t i) noexcept {
  if (!ieq(s, n, i, "authorization")) return false;
  std::size_t j = after_assignment(s, n, i + 13, true);
  if (j == kNoMatch || !ieq(s, n, j, "basic")) return false;
  j += 5;
  const std::size_t ws3 = run(s, n, j, is_ascii_space, 9);
  if (ws3 < 1 || ws3 > 8) return false;
  j += ws3;
  // a credential is short; only its first 200 characters are looked at (linear time)
  const std::size_t r = run(s, n, j, is_b64std, 200);
  if (r < 8) return false;
  for (std::size_t k = 0; k < r; ++k)
    if (!is_lower(s[j + k])) return true;
  return false;
}

// A letter-initial shape (JWT, data: URI, key prefix, Basic credentials) matching at s[i].
template <typename CharT>
bool shape_at(const CharT* s, std::size_t n, std::size_t i) noexcept {
  const std::uint32_t lc = lower(s[i]);
  const bool url_start = i == 0 || !is_b64url(s[i - 1]);
  switch (lc) {
    case 'e':  // JWT header.payload.
      if (url_start && ieq(s, n, i, "eyj")) {
        std::size_t j = i + 3;
        const std::size_t r1 = run(s, n, j, is_b64url);
        if (r1 >= 6 && j + r1 < n && s[j + r1] == '.') {
          j += r1 + 1;
          const std::size_t r2 = run(s, n, j, is_b64url);
          if (r2 >= 6 && j + r2 < n && s[j + r2] == '.') return true;
        }
      }
      return false;
    case 'd':  // data:[^,;\s]{0,100};base64,
      if ((i == 0 || !is_alpha(s[i - 1])) && ieq(s, n, i, "data:")) {
        const std::size_t j = i + 5;
        // capped at 101: a longer run cannot match, and the cap keeps the scan linear
        const std::size_t r = run(
            s, n, j, [](std::uint32_t x) { return x != ',' && x != ';' && !is_ascii_space(x); },
            101);
        if (r <= 100 && j + r < n && s[j + r] == ';' && ieq(s, n, j + r + 1, "base64,"))
          return true;
      }
      return false;
    case 'x':  // xox[abpsr]-
      if (url_start && ieq(s, n, i, "xox") && i + 4 < n) {
        const std::uint32_t v = lower(s[i + 3]);
        return (v == 'a' || v == 'b' || v == 'p' || v == 's' || v == 'r') && s[i + 4] == '-' &&
               run(s, n, i + 5, is_b64url, 12) >= 12;
      }
      return false;
    case 'a':
      if ((i == 0 || !is_alnum(s[i - 1])) && basic_auth_at(s, n, i)) return true;
      [[fallthrough]];
    case 's':
    case 'r':
    case 'g':
      if (!url_start) return false;
      for (std::string_view p : kKeyPrefixes) {
        if (static_cast<unsigned char>(p[0]) == lc && ieq(s, n, i, p) &&
            run(s, n, i + p.size(), is_b64url, 12) >= 12)
          return true;
      }
      return false;
    default:
      return false;
  }
}

// First two letters (lower case) of the letter-initial shapes (bit 1: eyJ, data:, xox, sk-,
// sk_, rk_, gh?_, github_, glpat-, AKIA, ASIA, AIza) and of the assignment words (bit 2: prompt,
// completion, transcript).
struct StartPairs {
  std::uint8_t bits[26][26];
};
constexpr StartPairs make_start_pairs() {
  StartPairs p{};
  constexpr std::string_view shape = "ey da xo sk rk gh gl gi ak as ai au";
  constexpr std::string_view assign = "pr co tr";
  constexpr std::string_view token = "to";
  for (std::size_t i = 0; i + 1 < shape.size(); i += 3) p.bits[shape[i] - 'a'][shape[i + 1] - 'a'] |= 1;
  for (std::size_t i = 0; i + 1 < assign.size(); i += 3) p.bits[assign[i] - 'a'][assign[i + 1] - 'a'] |= 2;
  p.bits[token[0] - 'a'][token[1] - 'a'] |= 4;
  return p;
}
constexpr StartPairs kStartPairs = make_start_pairs();

constexpr std::string_view kAssignWords[] = {"prompt", "prompts", "completion", "completions",
                                             "transcript"};

// R4 (text role) at s[i], i not preceded by a letter or digit:
// (prompt|prompts|completion|completions|transcript)\s{0,8}[:=]  (ASCII \s).
template <typename CharT>
bool assign_at(const CharT* s, std::size_t n, std::size_t i) noexcept {
  const std::uint32_t lc = lower(s[i]);
  if (lc != 'p' && lc != 'c' && lc != 't') return false;
  for (std::string_view w : kAssignWords) {
    if (!ieq(s, n, i, w)) continue;
    if (after_assignment(s, n, i + w.size(), false) != kNoMatch) return true;
  }
  return false;
}

// R3 (any role) at s[i], i not preceded by a letter or digit: a credential assignment
// token\s{0,8}[:=]\s{0,8} followed by a value whose first 64 characters of [^\s,;] hold a
// non-digit ("token=hunter2" is a credential; "token: 5" is a position). ASCII \s.
template <typename CharT>
bool token_assign_at(const CharT* s, std::size_t n, std::size_t i) noexcept {
  if (!ieq(s, n, i, "token")) return false;
  const std::size_t j = after_assignment(s, n, i + 5, true);
  if (j == kNoMatch) return false;
  for (std::size_t k = 0; k < 64 && j + k < n; ++k) {
    const std::uint32_t c = s[j + k];
    if (is_ascii_space(c) || c == ',' || c == ';') return false;
    if (!is_digit(c)) return true;
  }
  return false;
}

// One word of the text: position, length, whether it is a number, and -- once resolve()d -- its
// lower-case spelling (first kMaxWordLen characters; longer words are in no set and are never
// quoted in a reason) and set flags.
struct Word {
  std::uint32_t start = 0;
  std::uint32_t len = 0;
  std::uint32_t flags = 0;
  bool digits = false;
  bool resolved = true;  // the empty word (before the first / after the last) needs nothing
  char text[kMaxWordLen];
  std::string_view view() const { return {text, len < kMaxWordLen ? len : kMaxWordLen}; }
};

// Streaming tokenizer: [A-Z]+(?![a-z]) | [A-Z]?[a-z]+ | [0-9]+ (leftmost, as re.findall); every
// other code point separates words. Words are only spelled out and looked up on demand.
// While tokenizing it runs the position checks of R8 (shapes) and, for the text role, of the R4
// assignment form, and records whether one matched.
template <typename CharT>
class Words {
 public:
  Words(const CharT* s, std::size_t n, bool key) : s_(s), n_(n), key_(key) {}
  bool shape = false;   // an R8 shape was found
  bool assign = false;  // an R4 assignment was found (text role)
  bool token_assign = false;  // an R3 token assignment was found (any role)
  bool next(Word& w) {
    while (i_ < n_) {
      const std::uint32_t c = s_[i_];
      std::size_t end;
      if (is_alpha(c) && (i_ == 0 || !is_alpha(s_[i_ - 1]))) {
        // shapes need a non-letter before them (data:) or no letter, digit, '_' or '-' (the
        // rest); the assignment form needs no letter or digit before it
        // every shape / assignment word starts with one of a few letter pairs
        const std::uint32_t c2 = i_ + 1 < n_ ? (s_[i_ + 1] | 32u) - 'a' : 26u;
        const std::uint8_t pair = c2 < 26 ? kStartPairs.bits[(c | 32) - 'a'][c2] : 0;
        if ((pair & 1) && !shape) shape = shape_at(s_, n_, i_);
        if ((pair & 2) && !key_ && !assign && (i_ == 0 || !is_digit(s_[i_ - 1])))
          assign = assign_at(s_, n_, i_);
        if ((pair & 4) && !token_assign && (i_ == 0 || !is_digit(s_[i_ - 1])))
          token_assign = token_assign_at(s_, n_, i_);
      }
      if (is_lower(c)) {
        end = i_ + run(s_, n_, i_, is_lower);
      } else if (is_upper(c)) {
        const std::size_t j = i_ + run(s_, n_, i_, is_upper);
        if (j < n_ && is_lower(s_[j])) {
          end = (j - i_ >= 2) ? j - 1 : j + run(s_, n_, j, is_lower);
        } else {
          end = j;
        }
      } else if (is_digit(c)) {
        end = i_ + run(s_, n_, i_, is_digit);
      } else {
        if (c == '-' && !shape) shape = pem_at(s_, n_, i_);
        ++i_;
        continue;
      }
      w.start = static_cast<std::uint32_t>(i_);
      w.len = static_cast<std::uint32_t>(end - i_);
      w.digits = is_digit(c);
      w.flags = 0;
      w.resolved = false;
      i_ = end;
      return true;
    }
    return false;
  }
  bool maybe_trigger(const Word& w) const noexcept {
    return !w.digits && w.len >= 2 &&
           table().maybe_trigger(lower(s_[w.start]), lower(s_[w.start + 1]), w.len);
  }
  void resolve(Word& w) const noexcept {
    if (w.resolved) return;
    w.resolved = true;
    if (w.len > kMaxWordLen) return;
    for (std::size_t k = 0; k < w.len; ++k) w.text[k] = static_cast<char>(lower(s_[w.start + k]));
    w.flags = table().lookup(w.text, w.len);
  }

 private:
  const CharT* s_;
  std::size_t n_;
  bool key_;
  std::size_t i_ = 0;
};

std::string quoted(std::string_view w) {
  std::string out;
  out.reserve(w.size() + 2);
  out += '\'';
  out += w;
  out += '\'';
  return out;
}

// The rules of one word given its neighbours ("" at the ends); "" when none fires.
std::string word_rule(const Word& prev, const Word& w, const Word& nxt, bool key, bool only_word) {
  const std::string_view wt = w.view();
  if (w.flags & kCredential) {
    if (!(nxt.flags & kRef)) return "credential word " + quoted(wt) + " (R1)";
  } else if (w.flags & kKeyWord) {
    if ((prev.flags & kKeyQual) && !(nxt.flags & kRef))
      return "credential key " + quoted(prev.view()) + " " + quoted(wt) + " (R2)";
  } else if (w.flags & kTokenCompound) {
    return "credential token " + quoted(wt) + " (R3)";
  } else if (w.flags & kKeyCompound) {
    if (!(nxt.flags & kRef)) return "credential key " + quoted(wt) + " (R2)";
  } else if (w.flags & kTokenWord) {
    if (prev.flags & kTokenQual)
      return "credential token " + quoted(prev.view()) + " " + quoted(wt) + " (R3)";
    if (wt == "token" && !((nxt.flags & kTokenPosAfter) || nxt.digits ||
                           (prev.flags & kTokenPosBefore) || prev.digits))
      return "bare 'token' that is not a text position (R3)";
  }
  if (w.flags & kPromptCompound) {
    if (!key || !(nxt.flags & kPromptMeta)) {
      return std::string(key ? "key naming prompt content " : "private prompt content ") + quoted(wt) +
             " (R4)";
    }
  } else if (w.flags & kPromptWord) {
    if (key) {
      if (!(nxt.flags & kPromptMeta)) return "key naming prompt content " + quoted(wt) + " (R4)";
    } else if ((prev.flags & kPromptQual) || (nxt.flags & kContentAfter)) {
      return "private prompt content " + quoted(wt) + " (R4)";
    }
  } else if (w.flags & kRaw) {
    if ((nxt.flags & kRawContent) || (key && only_word)) {
      std::string what = nxt.len ? "raw " + std::string(nxt.view()) : std::string("raw");
      return "raw payload " + quoted(what) + " (R5)";
    }
  } else if (w.flags & kMedia) {
    if (key) {
      if (!(nxt.flags & kMediaMeta)) return "key naming private media " + quoted(wt) + " (R6)";
    } else if ((prev.flags & kMediaQual) || (nxt.flags & kMediaPayload)) {
      return "private media " + quoted(wt) + " (R6)";
    }
  } else if (w.flags & kSensor) {
    if (key) {
      if (!(nxt.flags & kSensorMeta)) return "key naming a sensor payload " + quoted(wt) + " (R7)";
    } else if (nxt.flags & kSensorPayload) {
      return "sensor payload " + quoted(wt) + " " + quoted(nxt.view()) + " (R7)";
    }
  }
  return {};
}

}  // namespace

template <typename CharT>
std::string tenant_safety_violation(const CharT* s, std::size_t n, bool key) {
  static const std::string kShape = "credential-shaped or payload-shaped value (R8)";
  static const std::string kAssign = "prompt assignment (R4)";
  static const std::string kTokenAssign = "credential token assignment (R3)";
  if (n >= 200 && b64_run_200(s, n)) return kShape;
  // One pass: words in a window prev / cur / nxt (only trigger words fire a rule, and only then
  // are the neighbours looked up) while the tokenizer runs the shape / assignment checks.
  // Priority as in the reference: any shape, then any assignment, then the first word rule.
  Words<CharT> words(s, n, key);
  static const Word kNone{};  // the neighbour before the first / after the last word
  std::string why;
  Word ring[3];
  Word* pv = nullptr;  // previous word (none before the first)
  Word* cur = &ring[0];
  Word* nx = &ring[1];
  Word* spare = &ring[2];
  if (words.next(*cur)) {
    bool has_next = words.next(*nx);
    for (;;) {
      if (why.empty() && !words.assign && !words.token_assign && words.maybe_trigger(*cur)) {
        words.resolve(*cur);
        if (cur->flags & kTrigger) {
          if (has_next) words.resolve(*nx);
          if (pv != nullptr) words.resolve(*pv);
          why = word_rule(pv != nullptr ? *pv : kNone, *cur, has_next ? *nx : kNone, key,
                          pv == nullptr && !has_next);
        }
      }
      if (words.shape) return kShape;
      if (!has_next) break;
      Word* recycled = pv != nullptr ? pv : spare;
      pv = cur;
      cur = nx;
      nx = recycled;
      has_next = words.next(*nx);
    }
  }
  // the tail after the last word (separators only) may still hold a PEM header
  Word rest;
  while (words.next(rest)) {
  }
  if (words.shape) return kShape;
  if (words.assign) return kAssign;
  if (words.token_assign) return kTokenAssign;
  return why;
}

// ---- formats ---------------------------------------------------------------------------------
namespace {

constexpr bool is_id_char(std::uint32_t c) noexcept { return is_alnum(c) || c == '_' || c == '-'; }
constexpr bool is_hook_char(std::uint32_t c) noexcept {
  return is_alnum(c) || c == '_' || c == '.' || c == ':' || c == '/' || c == '-';
}

// ASCII class tables (bit 0: id character [A-Za-z0-9_-], bit 1: hook character [A-Za-z0-9_.:/-]):
// ids are random hex, so a per-character branch on letter / digit mispredicts about half the
// time; the tables make the scan branch-free.
struct IdClasses {
  std::uint8_t bits[128];
};
constexpr IdClasses make_id_classes() {
  IdClasses t{};
  for (std::uint32_t c = 0; c < 128; ++c)
    t.bits[c] = static_cast<std::uint8_t>((is_id_char(c) ? 1 : 0) | (is_hook_char(c) ? 2 : 0));
  return t;
}
constexpr IdClasses kIdClasses = make_id_classes();

// Every code point of s[from, n) has class bit `bit`.
template <typename CharT>
inline bool all_in_class(const CharT* s, std::size_t from, std::size_t n, std::uint8_t bit) noexcept {
  unsigned ok = bit;
  for (std::size_t i = from; i < n; ++i) {
    const std::uint32_t c = s[i];
    ok &= c < 128 ? kIdClasses.bits[c & 127] : 0u;
  }
  return ok != 0;
}

template <typename CharT>
bool prefixed_id(const CharT* s, std::size_t n, std::string_view prefix, std::size_t max_tail) {
  if (n <= prefix.size() || n - prefix.size() > max_tail) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (s[i] != static_cast<unsigned char>(prefix[i])) return false;
  return all_in_class(s, prefix.size(), n, 1);
}

template <typename CharT>
bool dotted_id(const CharT* s, std::size_t n, std::size_t max_len) {
  if (n == 0 || n > max_len) return false;
  const std::uint32_t c0 = s[0];
  if (!(is_alnum(c0) || c0 == '_')) return false;
  return all_in_class(s, 1, n, 2);
}

template <typename CharT>
inline int two(const CharT* s, std::size_t i) noexcept {
  if (!is_digit(s[i]) || !is_digit(s[i + 1])) return -1;
  return static_cast<int>(s[i] - '0') * 10 + static_cast<int>(s[i + 1] - '0');
}

}  // namespace

template <typename CharT>
bool is_event_id(const CharT* s, std::size_t n) noexcept {
  return prefixed_id(s, n, "sevt_", 123);
}
template <typename CharT>
bool is_signal_id(const CharT* s, std::size_t n) noexcept {
  return prefixed_id(s, n, "dsp_", 124);
}
template <typename CharT>
bool is_hook_id(const CharT* s, std::size_t n) noexcept {
  return dotted_id(s, n, 128);
}
template <typename CharT>
bool is_attr_key(const CharT* s, std::size_t n) noexcept {
  return dotted_id(s, n, 64);
}

template <typename CharT>
bool is_timestamp(const CharT* s, std::size_t n) noexcept {
  // YYYY-MM-DDTHH:MM:SS  (19) [.f{1,9}] Z
  if (n < 20 || n > 30) return false;
  for (int i = 0; i < 4; ++i)
    if (!is_digit(s[i])) return false;
  if (s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':') return false;
  const int mo = two(s, 5), d = two(s, 8), h = two(s, 11), mi = two(s, 14), se = two(s, 17);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 ||
      se > 60)
    return false;
  if (s[n - 1] != 'Z') return false;
  if (n == 20) return true;
  if (s[19] != '.' || n < 22) return false;  // '.', 1..9 digits, 'Z'
  for (std::size_t i = 20; i + 1 < n; ++i)
    if (!is_digit(s[i])) return false;
  return true;
}

void format_utc_timestamp(std::int64_t unix_ns, char* out) noexcept {
  std::int64_t secs = unix_ns / 1000000000;
  std::int64_t rem = unix_ns % 1000000000;
  if (rem < 0) {
    rem += 1000000000;
    --secs;
  }
  std::int64_t days = secs / 86400;
  std::int64_t sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    --days;
  }
  // civil_from_days (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  std::int64_t y = yoe + era * 400;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
  auto put = [](char* p, std::int64_t v, int width) {
    for (int i = width - 1; i >= 0; --i) {
      p[i] = static_cast<char>('0' + v % 10);
      v /= 10;
    }
  };
  put(out, y, 4);
  out[4] = '-';
  put(out + 5, m, 2);
  out[7] = '-';
  put(out + 8, d, 2);
  out[10] = 'T';
  put(out + 11, sod / 3600, 2);
  out[13] = ':';
  put(out + 14, (sod / 60) % 60, 2);
  out[16] = ':';
  put(out + 17, sod % 60, 2);
  out[19] = '.';
  put(out + 20, rem / 1000, 6);
  out[26] = 'Z';
}

#define DF_INSTANTIATE(T)                                                                 \
  template std::string tenant_safety_violation<T>(const T*, std::size_t, bool);           \
  template bool is_event_id<T>(const T*, std::size_t) noexcept;                           \
  template bool is_signal_id<T>(const T*, std::size_t) noexcept;                          \
  template bool is_hook_id<T>(const T*, std::size_t) noexcept;                            \
  template bool is_attr_key<T>(const T*, std::size_t) noexcept;                           \
  template bool is_timestamp<T>(const T*, std::size_t) noexcept;
DF_INSTANTIATE(std::uint8_t)
DF_INSTANTIATE(std::uint16_t)
DF_INSTANTIATE(std::uint32_t)
#undef DF_INSTANTIATE

}  // namespace director_fast::safety
