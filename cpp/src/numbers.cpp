// Number mentions (see numbers.hpp for what is recognised and the unit keys).
//
// One forward scan over the bytes skips what cannot start a number (most words fail a single bit
// test). At a digit, a currency symbol or a word that may start a number, the text is cut into
// lexemes (words, digit runs, space runs, currency symbols, punctuation) lazily, in a window, and
// the number grammars are tried in a fixed order with a bounded look-ahead (about a dozen lexemes;
// only thousands groups and dotted runs repeat, and they are consumed); the scan then jumps past
// the mention. A last pass shares units and multipliers across ranges. Linear in the text length.
#include "director_fast/numbers.hpp"
#include "director_fast/portable.hpp"
#include "director_fast/utf8.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>
#include <utility>

namespace director_fast {

namespace {

// ---- tables -------------------------------------------------------------------------------------

// Hash of a lower-cased ASCII word, as the scan computes it on the fly (h = h * 33 + (c | 0x20)).
std::uint32_t word_hash(std::string_view w) {
  std::uint32_t h = 0;
  for (char c : w) h = h * 33u + (static_cast<unsigned char>(c) | 0x20u);
  return h;
}

std::uint32_t mix32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  return h;
}

// A constant table of lower-cased words, looked up by string_view (no std::string built per
// lookup): open addressing over the owned keys. The first of duplicate keys wins.
template <typename V>
class WordMap {
 public:
  explicit WordMap(std::vector<std::pair<std::string, V>> items) {
    std::size_t cap = 16;
    while (cap < 2 * items.size()) cap <<= 1;
    slots_.assign(cap, -1);
    for (auto& kv : items) {
      if (find(kv.first) != nullptr) continue;
      std::size_t i = slot(kv.first);
      while (slots_[i] >= 0) i = (i + 1) & (cap - 1);
      slots_[i] = static_cast<int>(items_.size());
      items_.push_back(std::move(kv));
    }
  }
  const V* find(std::string_view w) const {
    for (std::size_t i = slot(w);; i = (i + 1) & (slots_.size() - 1)) {
      const int k = slots_[i];
      if (k < 0) return nullptr;
      if (items_[static_cast<std::size_t>(k)].first == w) return &items_[static_cast<std::size_t>(k)].second;
    }
  }
  const std::vector<std::pair<std::string, V>>& items() const { return items_; }

 private:
  std::size_t slot(std::string_view w) const { return mix32(word_hash(w)) & (slots_.size() - 1); }
  std::vector<std::pair<std::string, V>> items_;
  std::vector<int> slots_;
};

// Unit words (lower-cased) -> canonical key. attached_only: only directly after the digits ("5h",
// "2l"), never as a separate word ("5 h" is not a unit). The metric symbols "g", "m", "l" / "L"
// are also units after digits and one space ("1,500 g", "2,000 m", "1.5 L"; see unit()).
struct UnitWord {
  const char* key;
  bool attached_only;
};

const WordMap<UnitWord>& unit_words() {
  static const WordMap<UnitWord> m = [] {
    std::vector<std::pair<std::string, UnitWord>> t;
    auto add = [&](const char* key, std::initializer_list<const char*> words, bool attached_only = false) {
      for (const char* w : words) t.emplace_back(w, UnitWord{key, attached_only});
    };
    add("%", {"percent", "pct", "percentage"});
    add("s", {"second", "seconds", "sec", "secs"});
    add("min", {"minute", "minutes", "min", "mins"});
    add("h", {"hour", "hours", "hr", "hrs"});
    add("h", {"h"}, true);
    add("day", {"day", "days"});
    add("night", {"night", "nights"});
    add("week", {"week", "weeks"});
    add("fortnight", {"fortnight", "fortnights"});
    add("month", {"month", "months"});
    add("year", {"year", "years", "yr", "yrs"});
    add("kg", {"kg", "kgs", "kilogram", "kilograms", "kilogramme", "kilogrammes", "kilo", "kilos"});
    add("g", {"gram", "grams", "gramme", "grammes"});
    add("mg", {"mg", "milligram", "milligrams"});
    add("lb", {"lb", "lbs"});
    add("gbp", {"pound", "pounds", "gbp", "quid"});
    add("usd", {"dollar", "dollars", "usd"});
    add("eur", {"euro", "euros", "eur"});
    add("nok", {"nok", "krone", "kroner"});
    add("sek", {"sek", "krona", "kronor"});
    add("dkk", {"dkk"});
    add("chf", {"chf"});
    add("jpy", {"jpy", "yen"});
    add("cad", {"cad"});
    add("aud", {"aud"});
    add("nzd", {"nzd"});
    add("inr", {"inr", "rupee", "rupees"});
    add("mm", {"mm", "millimetre", "millimetres", "millimeter", "millimeters"});
    add("cm", {"cm", "centimetre", "centimetres", "centimeter", "centimeters"});
    add("m", {"metre", "metres", "meter", "meters"});
    add("km", {"km", "kilometre", "kilometres", "kilometer", "kilometers"});
    add("in", {"inch", "inches"});
    add("ft", {"ft", "foot", "feet"});
    add("mile", {"mile", "miles"});
    add("sqft", {"sqft"});
    add("sqm", {"sqm", "m2"});
    add("ml", {"ml", "millilitre", "millilitres", "milliliter", "milliliters"});
    add("l", {"litre", "litres", "liter", "liters"});
    add("l", {"l"}, true);
    add("kb", {"kb"});
    add("mb", {"mb"});
    add("gb", {"gb"});
    add("tb", {"tb"});
    add("kwh", {"kwh"});
    add("deg", {"degree", "degrees"});
    add("times", {"times"});
    return WordMap<UnitWord>(std::move(t));
  }();
  return m;
}

// The base unit of a unit key and the factor to it (quantity = value * mul / div; a divisor keeps
// "2,000 mm" == 2 m exact): durations in minutes, calendar spans in months (a year is 12 months;
// months are never turned into days), nights their own unit, mass in grams, length in metres, volume in millilitres; any other key is its own base.
struct Base {
  const char* key;
  double mul;
  double div;
};

Base base_of(const char* unit) {
  static const WordMap<Base> m({
      {"s", {"min", 1, 60}},        {"min", {"min", 1, 1}},      {"h", {"min", 60, 1}},
      {"day", {"min", 1440, 1}},    {"week", {"min", 10080, 1}}, {"fortnight", {"min", 20160, 1}},
      {"mg", {"g", 1, 1000}},       {"g", {"g", 1, 1}},          {"kg", {"g", 1000, 1}},
      {"mm", {"m", 1, 1000}},       {"cm", {"m", 1, 100}},       {"m", {"m", 1, 1}},
      {"km", {"m", 1000, 1}},       {"ml", {"ml", 1, 1}},        {"l", {"ml", 1000, 1}},
      {"month", {"month", 1, 1}},   {"year", {"month", 12, 1}}});
  const Base* b = m.find(unit);
  return b ? *b : Base{unit, 1, 1};
}

// The units "a" / "an" may stand for one of ("an hour", "a day", "a week", "a fortnight").
const char* article_unit(std::string_view w) {
  if (w == "hour") return "h";
  if (w == "day") return "day";
  if (w == "week") return "week";
  if (w == "fortnight") return "fortnight";
  return nullptr;
}

// Currency codes that may stand before the number ("EUR 12", "NOK 450").
const char* currency_code(std::string_view w) {
  static const WordMap<const char*> m({
      {"usd", "usd"}, {"eur", "eur"}, {"gbp", "gbp"}, {"nok", "nok"}, {"sek", "sek"},
      {"dkk", "dkk"}, {"chf", "chf"}, {"jpy", "jpy"}, {"cad", "cad"}, {"aud", "aud"},
      {"nzd", "nzd"}, {"inr", "inr"}});
  const auto* v = m.find(w);
  return v ? *v : nullptr;
}

// Letters directly before a '$' ("US$5", "A$5", "C$5", "NZ$5").
const char* dollar_prefix(std::string_view w) {
  if (w == "us") return "usd";
  if (w == "a" || w == "au") return "aud";
  if (w == "c" || w == "ca") return "cad";
  if (w == "nz") return "nzd";
  return nullptr;
}

// Multipliers written directly after the digits ("3bn", "5k", "$10M", "3million").
double attached_multiplier(std::string_view w) {
  static const WordMap<double> m({
      {"k", 1e3}, {"m", 1e6}, {"mn", 1e6}, {"b", 1e9}, {"bn", 1e9}, {"tn", 1e12},
      {"hundred", 1e2}, {"thousand", 1e3}, {"million", 1e6}, {"billion", 1e9},
      {"trillion", 1e12}, {"thousands", 1e3}, {"millions", 1e6}, {"billions", 1e9}});
  const auto* v = m.find(w);
  return v ? *v : 0.0;
}

// Scale words after a space (besides "hundred" and "dozen", which have their own rules). "k" is
// one ("2.5 k", "2.5 K": 2500); "m" after a space stays the metre ("2.5 m"), as "b" stays a word.
double scale_word(std::string_view w) {
  static const WordMap<double> m({
      {"k", 1e3}, {"thousand", 1e3}, {"million", 1e6}, {"billion", 1e9}, {"trillion", 1e12},
      {"thousands", 1e3}, {"millions", 1e6}, {"billions", 1e9}, {"trillions", 1e12},
      {"mn", 1e6}, {"bn", 1e9}, {"tn", 1e12}});
  const auto* v = m.find(w);
  return v ? *v : 0.0;
}

enum class WrittenKind : std::uint8_t { Digit, Teen, Tens, Hundred, Dozen, Fixed };
struct Written {
  double value;
  WrittenKind kind;
};

const WordMap<Written>& written_words() {
  static const WordMap<Written> m({
      {"zero", {0, WrittenKind::Digit}},      {"one", {1, WrittenKind::Digit}},
      {"two", {2, WrittenKind::Digit}},       {"three", {3, WrittenKind::Digit}},
      {"four", {4, WrittenKind::Digit}},      {"five", {5, WrittenKind::Digit}},
      {"six", {6, WrittenKind::Digit}},       {"seven", {7, WrittenKind::Digit}},
      {"eight", {8, WrittenKind::Digit}},     {"nine", {9, WrittenKind::Digit}},
      {"ten", {10, WrittenKind::Teen}},       {"eleven", {11, WrittenKind::Teen}},
      {"twelve", {12, WrittenKind::Teen}},    {"thirteen", {13, WrittenKind::Teen}},
      {"fourteen", {14, WrittenKind::Teen}},  {"fifteen", {15, WrittenKind::Teen}},
      {"sixteen", {16, WrittenKind::Teen}},   {"seventeen", {17, WrittenKind::Teen}},
      {"eighteen", {18, WrittenKind::Teen}},  {"nineteen", {19, WrittenKind::Teen}},
      {"twenty", {20, WrittenKind::Tens}},    {"thirty", {30, WrittenKind::Tens}},
      {"forty", {40, WrittenKind::Tens}},     {"fifty", {50, WrittenKind::Tens}},
      {"sixty", {60, WrittenKind::Tens}},     {"seventy", {70, WrittenKind::Tens}},
      {"eighty", {80, WrittenKind::Tens}},    {"ninety", {90, WrittenKind::Tens}},
      {"hundred", {100, WrittenKind::Hundred}}, {"dozen", {12, WrittenKind::Dozen}},
      {"half", {0.5, WrittenKind::Fixed}},    {"double", {2, WrittenKind::Fixed}},
      {"twice", {2, WrittenKind::Fixed}},     {"triple", {3, WrittenKind::Fixed}}});
  return m;
}

// Can a word start a mention? A 4096-bit Bloom-style set over word_hash of the words that can
// (currency codes, "US" of "US$", "noon" / "midday" / "midnight", "a" / "an", the written
// numbers): one bit test rejects almost every other word before any lookup (about 1% pass by
// collision and are then rejected by the parser).
class StartWords {
 public:
  StartWords() {
    for (const char* w : {"usd", "eur", "gbp", "nok", "sek", "dkk", "chf", "jpy", "cad", "aud", "nzd",
                          "inr", "us", "a", "au", "c", "ca", "nz", "noon", "midday", "midnight", "an", "quarter",
                          "once"})
      add(word_hash(w));
    for (const auto& kv : written_words().items()) add(word_hash(kv.first));
  }
  static constexpr std::size_t kMaxLength = 9;  // the longest such word ("seventeen")
  bool maybe(std::uint32_t h) const {
    const std::uint32_t k = mix32(h);
    return (bits_[(k >> 6) & 63u] >> (k & 63u)) & 1u;
  }

 private:
  void add(std::uint32_t h) {
    const std::uint32_t k = mix32(h);
    bits_[(k >> 6) & 63u] |= std::uint64_t{1} << (k & 63u);
  }
  std::uint64_t bits_[64] = {};
};

const StartWords& start_words() {
  static const StartWords s;
  return s;
}

// ---- lexemes ------------------------------------------------------------------------------------

enum class K : std::uint8_t { Word, Num, Space, Sym, Punct, Break, Other };

struct Lex {
  std::size_t a;  // byte range [a, b)
  std::size_t b;
  K kind;
  char c;  // Punct: the ASCII character ('-' for any dash, '\'' for U+2019); Sym: currency index;
           // Other: 'd' for the degree sign, '2' for the superscript two, 0 otherwise
};

const char* const kSymbolUnits[] = {"usd", "eur", "gbp", "jpy", "inr"};

bool ascii_letter(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
bool ascii_digit(unsigned char c) { return c >= '0' && c <= '9'; }

// Byte classes of the scan.
enum : std::uint8_t { kOther = 0, kLetter = 1, kDigit = 2, kDollar = 3, kHigh = 4 };
struct ByteClasses {
  std::uint8_t c[256];
  constexpr ByteClasses() : c() {
    for (int b = 0; b < 256; ++b) {
      c[b] = b >= 0x80                                       ? kHigh
             : ((b | 0x20) >= 'a' && (b | 0x20) <= 'z')      ? kLetter
             : (b >= '0' && b <= '9')                        ? kDigit
             : b == '$'                                      ? kDollar
                                                             : kOther;
    }
  }
};
constexpr ByteClasses kBytes{};

// Classes of non-ASCII code points. Letters of alphabetic scripts (below U+2E80, outside the
// punctuation and symbol blocks) join words; CJK and everything above is a boundary on its own.
enum class C : std::uint8_t { Letter, Space, Break, Sym, Dash, Apostrophe, Degree, Sup2, Other };

C classify(char32_t cp, char* sym) {
  switch (cp) {
    case 0xA3: *sym = 2; return C::Sym;     // £
    case 0xA5: *sym = 3; return C::Sym;     // ¥
    case 0x20AC: *sym = 1; return C::Sym;   // €
    case 0x20B9: *sym = 4; return C::Sym;   // ₹
    case 0xA0: case 0x1680: case 0x202F: case 0x205F: case 0x3000: return C::Space;
    case 0x85: case 0x2028: case 0x2029: return C::Break;
    case 0x2212: return C::Dash;
    case 0x2019: return C::Apostrophe;
    case 0xB0: return C::Degree;
    case 0xB2: return C::Sup2;
    case 0xD7: case 0xF7: case 0xFFFD: return C::Other;
    default: break;
  }
  if (cp >= 0x2000 && cp <= 0x200A) return C::Space;
  if (cp >= 0x2010 && cp <= 0x2015) return C::Dash;
  if (cp >= 0xA1 && cp <= 0xBF) return C::Other;  // Latin-1 punctuation and symbols
  if (cp >= 0x2000 && cp <= 0x2BFF) return C::Other;  // punctuation, currency, symbols, arrows ...
  if (cp >= 0x2E00) return C::Other;  // supplemental punctuation, CJK and beyond
  return C::Letter;
}

bool word_char_at(std::string_view s, std::size_t k, std::size_t* len) {
  const auto c = static_cast<unsigned char>(s[k]);
  *len = 1;
  if (c < 0x80) return ascii_letter(c) || ascii_digit(c);
  char sym = 0;
  return classify(decode_utf8_lenient(s, k, len), &sym) == C::Letter;
}

// End of the word whose first character (first_len bytes) is at i: letters, then letters and digits.
std::size_t word_end(std::string_view s, std::size_t i, std::size_t first_len) {
  const std::size_t n = s.size();
  std::size_t j = i + first_len, l = 1;
  while (j < n) {
    const auto c = static_cast<unsigned char>(s[j]);
    if (c < 0x80) {
      if (!(ascii_letter(c) || ascii_digit(c))) break;
      ++j;
    } else if (word_char_at(s, j, &l)) {
      j += l;
    } else {
      break;
    }
  }
  return j;
}

// End of the run of horizontal spaces (ASCII and Unicode) from j.
std::size_t space_end(std::string_view s, std::size_t j) {
  std::size_t l = 1;
  char sym = 0;
  while (j < s.size()) {
    const auto d = static_cast<unsigned char>(s[j]);
    if (d == ' ' || d == '\t') {
      ++j;
    } else if (d >= 0x80 && classify(decode_utf8_lenient(s, j, &l), &sym) == C::Space) {
      j += l;
    } else {
      break;
    }
  }
  return j;
}

// The lexeme that starts at byte i (i < s.size()). Lexemes tile the text.
Lex lex_at(std::string_view s, std::size_t i) {
  const std::size_t n = s.size();
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    if (ascii_digit(c)) {
      std::size_t j = i + 1;
      while (j < n && ascii_digit(static_cast<unsigned char>(s[j]))) ++j;
      return {i, j, K::Num, 0};
    }
    if (ascii_letter(c)) return {i, word_end(s, i, 1), K::Word, 0};
    if (c == ' ' || c == '\t') return {i, space_end(s, i + 1), K::Space, 0};
    if (c == '\n' || c == '\r' || c == '\f' || c == '\v') return {i, i + 1, K::Break, 0};
    if (c == '$') return {i, i + 1, K::Sym, 0};
    return {i, i + 1, K::Punct, static_cast<char>(c)};
  }
  std::size_t len = 1;
  char sym = 0;
  switch (classify(decode_utf8_lenient(s, i, &len), &sym)) {
    case C::Letter: return {i, word_end(s, i, len), K::Word, 0};
    case C::Space: return {i, space_end(s, i + len), K::Space, 0};
    case C::Break: return {i, i + len, K::Break, 0};
    case C::Sym: return {i, i + len, K::Sym, sym};
    case C::Dash: return {i, i + len, K::Punct, '-'};
    case C::Apostrophe: return {i, i + len, K::Punct, '\''};
    case C::Degree: return {i, i + len, K::Other, 'd'};
    case C::Sup2: return {i, i + len, K::Other, '2'};
    default: return {i, i + len, K::Other, 0};
  }
}

// ---- parser -------------------------------------------------------------------------------------

struct Raw {
  std::size_t la = 0, lb = 0;  // lexeme range [la, lb) in the parser's window
  std::size_t start = 0, end = 0;  // bytes (set by emit)
  double value = 0.0;
  double mantissa = 0.0;
  double scale = 1.0;          // multiplier applied (1: none)
  const char* unit = "";
  bool written = false;
  bool prefix = false;         // the unit is a currency written before the number
  // Clock readings for time ranges (share_ranges): `marked` for a time with its half-day known
  // (am / pm, noon, midnight); clock_h >= 0 for a reading whose half-day is open: an unmarked
  // "6:30" (hour 1..12 without a leading zero), or, only next to a marked time, a bare "6", a
  // written "six" or a "6.30" (hour clock_h, minutes clock_m).
  bool marked = false;
  int clock_h = -1;
  double clock_m = 0.0;
};

double to_double(std::string_view digits) {
  double v = 0.0;
  if (!portable::decimal_to_double(digits, &v)) return std::numeric_limits<double>::infinity();
  return v;
}

// The parser scans the bytes and skips whatever cannot start a number (most words fail one bit
// test of StartShapes); at a digit, a currency symbol or a word that may start one it lexes a
// small window lazily (the grammars look ahead a bounded number of lexemes, thousands groups and
// dotted runs aside) and parses from there.
// A lower-cased word of at most 15 bytes, by value (no allocation).
struct Low {
  char s[16] = {};
  std::uint8_t n = 0;
  operator std::string_view() const { return {s, n}; }
  bool operator==(std::string_view o) const { return std::string_view(*this) == o; }
  bool operator!=(std::string_view o) const { return !(*this == o); }
  bool empty() const { return n == 0; }
  std::size_t size() const { return n; }
  char operator[](std::size_t k) const { return s[k]; }
};

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) { L_.reserve(32); }

  std::vector<NumberMention> run() {
    const std::size_t n = s_.size();
    const StartWords& starts = start_words();
    const char* p = s_.data();
    std::size_t pos = 0;
    while (pos < n) {
      const auto c = static_cast<unsigned char>(p[pos]);
      switch (kBytes.c[c]) {
        case kOther: ++pos; break;
        case kLetter: {  // a word: hashed while it is skipped
          std::size_t j = pos + 1;
          std::uint32_t h = c | 0x20u;
          bool ascii = true;
          while (j < n) {
            const auto d = static_cast<unsigned char>(p[j]);
            const std::uint8_t k = kBytes.c[d];
            if (k == kLetter || k == kDigit) {
              h = h * 33u + (d | 0x20u);
              ++j;
            } else if (std::size_t l = 1; k == kHigh && word_char_at(s_, j, &l)) {
              ascii = false;
              j += l;
            } else {
              break;
            }
          }
          pos = (ascii && j - pos <= StartWords::kMaxLength && starts.maybe(h)) ? parse_at(pos) : j;
          break;
        }
        case kDigit:
        case kDollar: pos = parse_at(pos); break;
        default: {
          std::size_t len = 1;
          char sym = 0;
          const C cls = classify(decode_utf8_lenient(s_, pos, &len), &sym);
          if (cls == C::Sym) {
            pos = parse_at(pos);
          } else {  // no number starts with a non-ASCII letter
            pos = cls == C::Letter ? word_end(s_, pos, len) : pos + len;
          }
        }
      }
    }
    share_ranges();
    join_durations();
    std::vector<NumberMention> out;
    out.reserve(raw_.size());
    for (const Raw& r : raw_) {
      NumberMention m;
      m.start = r.start;
      m.end = r.end;
      m.value = r.value;
      m.mantissa = r.mantissa;
      m.unit = r.unit;
      const Base b = base_of(r.unit);
      m.quantity = b.mul == 1 && b.div == 1 ? r.value : r.value * b.mul / b.div;
      m.base_unit = b.key;
      m.written = r.written;
      m.half_day_open = std::strcmp(r.unit, "time") == 0 && !r.marked && r.clock_h >= 1;
      m.surface = std::string(s_.substr(m.start, m.end - m.start));
      out.push_back(std::move(m));
    }
    return out;
  }

 private:
  // Parses at byte `pos` and returns the byte to go on from (past the mention, or past the first
  // lexeme when there is none).
  std::size_t parse_at(std::size_t pos) {
    L_.clear();
    next_ = pos;
    const std::size_t j = at(0);
    return L_[j - 1].b;
  }

  // ---- lexeme tests on the window (lexed on demand; past the end of the text: false) ----
  bool ensure(std::size_t j) const {
    while (L_.size() <= j && next_ < s_.size()) {
      L_.push_back(lex_at(s_, next_));
      next_ = L_.back().b;
    }
    return j < L_.size();
  }
  bool is(std::size_t j, K k) const { return ensure(j) && L_[j].kind == k; }
  bool punct(std::size_t j, char c) const { return is(j, K::Punct) && L_[j].c == c; }
  std::size_t len(std::size_t j) const { return L_[j].b - L_[j].a; }
  std::string_view text(std::size_t j) const { return s_.substr(L_[j].a, len(j)); }
  // Lower-cased ASCII word at j; "" when j is not a word, is longer than 15 bytes (no table
  // word is) or holds a non-ASCII letter.
  Low low(std::size_t j) const {
    Low w;
    if (!is(j, K::Word) || len(j) > 15) return w;
    const std::string_view t = text(j);
    for (std::size_t k = 0; k < t.size(); ++k) {
      const auto u = static_cast<unsigned char>(t[k]);
      if (u >= 0x80) return Low{};
      w.s[k] = static_cast<char>(u >= 'A' && u <= 'Z' ? u - 'A' + 'a' : u);
    }
    w.n = static_cast<std::uint8_t>(t.size());
    return w;
  }
  int small_int(std::size_t j) const {  // value of a digit run of at most 2 digits
    int v = 0;
    for (char ch : text(j)) v = v * 10 + (ch - '0');
    return v;
  }

  void emit(Raw r) {
    r.start = L_[r.la].a;
    r.end = L_[r.lb - 1].b;
    if (std::strcmp(r.unit, "time") != 0) negative_sign(r);
    raw_.push_back(r);
  }

  // A sign right before the mention makes it negative and joins the span: "-5 °C", "−200"
  // (U+2212), "-$200", "minus 18". Only after the start of the text, a space or an opening
  // bracket, so ranges ("5-10"), dates ("2023-05-12") and words ("covid-19") keep their numbers.
  void negative_sign(Raw& r) const {
    std::size_t sign = r.start;
    if (sign >= 1 && s_[sign - 1] == '-') {
      sign -= 1;
    } else if (sign >= 3 && static_cast<unsigned char>(s_[sign - 3]) == 0xE2 &&
               static_cast<unsigned char>(s_[sign - 2]) == 0x88 && static_cast<unsigned char>(s_[sign - 1]) == 0x92) {
      sign -= 3;  // U+2212 MINUS SIGN
    } else if (sign >= 6 && (s_[sign - 1] == ' ') && ascii_word_before(sign - 1, "minus")) {
      sign -= 6;
    } else {
      return;
    }
    if (sign > 0) {
      const char before = s_[sign - 1];
      if (!(before == ' ' || before == '\t' || before == '\n' || before == '(' || before == '[' || before == ':'))
        return;
    }
    r.start = sign;
    r.value = -r.value;
    r.mantissa = -r.mantissa;
  }

  // Whether the ASCII word ``w`` (lower case) ends at byte ``end`` (case-insensitive), as a whole word.
  bool ascii_word_before(std::size_t end, std::string_view w) const {
    if (end < w.size()) return false;
    for (std::size_t q = 0; q < w.size(); ++q) {
      const auto c = static_cast<unsigned char>(s_[end - w.size() + q]);
      if ((c | 0x20u) != static_cast<unsigned char>(w[q])) return false;
    }
    const std::size_t b = end - w.size();
    return b == 0 || !ascii_letter(static_cast<unsigned char>(s_[b - 1]));
  }

  // Parses a mention starting at lexeme i; returns the next lexeme to look at.
  std::size_t at(std::size_t i) {
    ensure(i);
    const Lex x = L_[i];  // a copy: the window grows while parsing
    Raw r;
    switch (x.kind) {
      case K::Num: return at_number(i);
      case K::Sym:
        if (prefixed(i, i + 1, kSymbolUnits[static_cast<int>(x.c)], r)) {
          emit(r);
          return r.lb;
        }
        return i + 1;
      case K::Word: {
        const Low w = low(i);
        if (w.empty() || w.size() > StartWords::kMaxLength) return i + 1;
        if (is(i + 1, K::Sym)) {  // "US$5"
          const char* cur = dollar_prefix(w);
          if (cur && L_[i + 1].c == 0 && prefixed(i, i + 2, cur, r)) {
            emit(r);
            return r.lb;
          }
          return i + 1;
        }
        if (w.size() == 3 && is(i + 1, K::Space) && is(i + 2, K::Num)) {  // "EUR 12"
          const char* code = currency_code(w);
          if (code && prefixed(i, i + 2, code, r)) {
            emit(r);
            return r.lb;
          }
        }
        if (w == "noon" || w == "midday" || w == "midnight") {
          r.la = i;
          r.lb = i + 1;
          r.value = w == "midnight" ? 0.0 : 720.0;
          r.mantissa = 12.0;
          r.unit = "time";
          r.written = true;
          r.marked = true;
          emit(r);
          return r.lb;
        }
        if (clock_phrase(i, r) || share(i, r) || written(i, r)) {
          emit(r);
          return r.lb;
        }
        return i + 1;
      }
      default: return i + 1;
    }
  }

  // A currency (symbol or code at `i`) and the number at `j` (after one optional space).
  bool prefixed(std::size_t i, std::size_t j, const char* unit, Raw& r) {
    if (is(j, K::Space)) ++j;
    if (!is(j, K::Num) || dotted_run(j)) return false;
    digits(j, r, /*units=*/false);
    r.la = i;
    r.unit = unit;
    r.prefix = true;
    return true;
  }

  // Three or more dot-separated digit runs ("12.05.2020", "1.2.3"), or a run continuing a dotted
  // token ("v1.2": the "2"): each part is an integer, never a decimal.
  bool dotted_run(std::size_t i) const {
    if (punct(i + 1, '.') && is(i + 2, K::Num) && punct(i + 3, '.') && is(i + 4, K::Num)) return true;
    return after_dotted_token(L_[i].a);
  }

  // Is byte a preceded by "<word character>." ("v1.2", "No.5")?
  bool after_dotted_token(std::size_t a) const {
    if (a < 2 || s_[a - 1] != '.') return false;
    std::size_t k = a - 2;
    if (static_cast<unsigned char>(s_[k]) < 0x80) {
      const auto c = static_cast<unsigned char>(s_[k]);
      return ascii_letter(c) || ascii_digit(c);
    }
    while (k > 0 && a - 2 - k < 3 && (static_cast<unsigned char>(s_[k]) & 0xC0) == 0x80) --k;
    std::size_t l = 1;
    return word_char_at(s_, k, &l) && k + l == a - 1;
  }

  std::size_t at_number(std::size_t i) {
    if (dotted_run(i)) {
      std::size_t k = i;
      for (;;) {
        Raw r;
        r.la = k;
        r.lb = k + 1;
        r.value = r.mantissa = to_double(text(k));
        emit(r);
        if (punct(k + 1, '.') && is(k + 2, K::Num)) {
          k += 2;
        } else {
          return k + 1;
        }
      }
    }
    Raw r;
    if (time_of_day(i, r)) {
      emit(r);
      return r.lb;
    }
    digits(i, r, /*units=*/true);
    emit(r);
    return r.lb;
  }

  // am / pm after lexeme j-1 (attached or after one space): "am", "PM", "a.m.", "p.m".
  bool meridiem(std::size_t j, std::size_t* end, bool* pm) const {
    if (is(j, K::Space)) ++j;
    const Low w = low(j);
    if (w == "am" || w == "pm") {
      *pm = w[0] == 'p';
      *end = j + 1;
      return true;
    }
    if ((w == "a" || w == "p") && punct(j + 1, '.') && low(j + 2) == "m") {
      *pm = w[0] == 'p';
      *end = punct(j + 3, '.') ? j + 4 : j + 3;
      return true;
    }
    return false;
  }

  static int to_24h(int h, bool pm) { return h % 12 + (pm ? 12 : 0); }

  // A part of the day after lexeme j - 1: " in the morning" / " this morning" / " tomorrow
  // morning" (*kind 0), " in the afternoon" / " in the evening" / " this evening" / " tomorrow
  // afternoon" ... (1), " at night" / " tonight" (2). Returns the lexeme after it; 0 when there
  // is none.
  std::size_t day_part(std::size_t j, int* kind) const {
    if (!is(j, K::Space)) return 0;
    const Low w = low(j + 1);
    if (w == "at" && is(j + 2, K::Space) && low(j + 3) == "night") {
      *kind = 2;
      return j + 4;
    }
    if (w == "tonight") {
      *kind = 2;
      return j + 2;
    }
    if ((w == "this" || w == "tomorrow" || w == "yesterday") && is(j + 2, K::Space)) {
      const Low v = low(j + 3);
      if (v == "morning" || v == "afternoon" || v == "evening") {
        *kind = v == "morning" ? 0 : 1;
        return j + 4;
      }
    }
    if (w != "in" || !is(j + 2, K::Space) || low(j + 3) != "the" || !is(j + 4, K::Space)) return 0;
    const Low v = low(j + 5);
    if (v == "morning") {
      *kind = 0;
    } else if (v == "afternoon" || v == "evening") {
      *kind = 1;
    } else {
      return 0;
    }
    return j + 6;
  }

  // The 24-hour hour of a reading's hour h (1..12) in a part of the day: the morning is am, the
  // afternoon and evening pm; at night 5..11 are pm, 1..4 am and 12 is midnight.
  static int day_part_hour(int h, int kind) {
    if (kind == 0) return h % 12;
    if (kind == 1) return h % 12 + 12;
    return h == 12 ? 0 : h <= 4 ? h : h + 12;
  }

  // An hour of a clock phrase at lexeme j: "one".."twelve", or 1..12 in digits without a leading
  // zero and not followed by ":", "." or "," and digits ("3:30", "3.5" are other grammars).
  bool clock_hour(std::size_t j, int* h) const {
    if (is(j, K::Num)) {
      if (len(j) > 2 || text(j)[0] == '0') return false;
      if ((punct(j + 1, ':') || punct(j + 1, '.') || punct(j + 1, ',')) && is(j + 2, K::Num)) return false;
      *h = small_int(j);
    } else {
      const Written* w = written_words().find(low(j));
      if (w == nullptr || !(w->kind == WrittenKind::Digit || w->kind == WrittenKind::Teen)) return false;
      *h = static_cast<int>(w->value);
    }
    return *h >= 1 && *h <= 12;
  }

  // Is the word before byte a (after horizontal spaces) one that introduces a clock time: "at",
  // "by", "around", "about", "before", "after", "until", "till", "til", "since"; with `wide`, also
  // "from", "to", "between", "and" (they also join ranges of counts: "from ten to nine", "five to
  // ten people", so the "ten to nine" form never counts them).
  bool clock_context(std::size_t a, bool wide) const {
    std::size_t k = a;
    while (k > 0 && (s_[k - 1] == ' ' || s_[k - 1] == '\t')) --k;
    if (k == a) return false;
    for (const char* w : {"at", "by", "around", "about", "before", "after", "until", "till", "til", "since"})
      if (ascii_word_before(k, w)) return true;
    if (!wide) return false;
    for (const char* w : {"from", "to", "between", "and"})
      if (ascii_word_before(k, w)) return true;
    return false;
  }

  // Is the word before byte a (after horizontal spaces) "from" or "between"?
  bool range_opener(std::size_t a) const {
    std::size_t k = a;
    while (k > 0 && (s_[k - 1] == ' ' || s_[k - 1] == '\t')) --k;
    return k < a && (ascii_word_before(k, "from") || ascii_word_before(k, "between"));
  }

  // The end of a clock reading h:m (h 1..12 as read: "quarter to eight" is 7:45) from lexeme
  // i whose hour (written_h as written) ends before lexeme j: an optional "o'clock", then an
  // optional meridiem or part of the day ("half past three in the afternoon": 15:30). A reading
  // followed by a hyphen, a letter suffix or a unit or scale word is no time ("three-year", "six
  // months"). `bare_ok`: the reading may stand alone (its half-day then open); `part_ok`: a part
  // of the day may mark it (a meridiem and "o'clock" always may). Sets r; false when no time.
  bool clock_tail(std::size_t i, std::size_t j, int h, int m, int written_h, bool bare_ok, bool part_ok, Raw& r) {
    if (punct(j, '-') || (is(j, K::Word) && !(low(j) == "am" || low(j) == "pm"))) return false;
    std::size_t e = j;
    bool oclock = false;
    if (is(j, K::Space) && low(j + 1) == "o" && punct(j + 2, '\'') && low(j + 3) == "clock") {
      e = j + 4;
      oclock = true;
    } else if (is(j, K::Space) && low(j + 1) == "oclock") {
      e = j + 2;
      oclock = true;
    }
    std::size_t e2 = 0;
    bool pm = false;
    int part = 0;
    int hour24 = -1;
    if (meridiem(e, &e2, &pm)) {
      hour24 = to_24h(h, pm);
    } else if ((e2 = day_part(e, &part)) != 0 && (part_ok || oclock)) {
      hour24 = day_part_hour(h, part);
    } else {
      if (!(bare_ok || oclock)) return false;
      if (is(e, K::Space)) {
        const Low w = low(e + 1);
        if (measure_unit(e + 1) != nullptr || scale_word(w) > 0 || w == "hundred" || w == "dozen") return false;
      }
      e2 = e;
    }
    r.la = i;
    r.lb = e2;
    r.unit = "time";
    r.mantissa = written_h;
    r.written = !is(i, K::Num);
    if (hour24 >= 0) {
      r.value = hour24 * 60.0 + m;
      r.marked = true;
    } else {
      r.value = h * 60.0 + m;  // the reading as written (12:xx for twelve); the half-day is open
      r.clock_h = h;
      r.clock_m = m;
    }
    return true;
  }

  // Clock phrases from the word at i: "half past three", "a quarter past seven", "quarter to
  // eight", "twenty-five past six", "ten to nine", "half seven" (7:30), "seven o'clock", "nine in
  // the evening", "seven pm" (numbers.hpp lists when the ambiguous forms count).
  bool clock_phrase(std::size_t i, Raw& r) {
    std::size_t j = i;
    if (article(i) && is(i + 1, K::Space) && low(i + 2) == "quarter") j = i + 2;  // "a quarter past"
    const Low w = low(j);
    int m = 0;
    std::size_t mend = j + 1;
    if (w == "quarter") {
      m = 15;
    } else if (w == "half") {
      m = 30;
    } else if (w == "five") {
      m = 5;
    } else if (w == "ten") {
      m = 10;
    } else if (w == "twenty") {
      m = 20;
      if ((punct(j + 1, '-') || is(j + 1, K::Space)) && low(j + 2) == "five") {
        m = 25;
        mend = j + 3;
      }
    }
    int h = 0;
    if (m > 0 && is(mend, K::Space) && is(mend + 2, K::Space) && clock_hour(mend + 3, &h)) {
      const Low rel = low(mend + 1);
      if (rel == "past" || rel == "after") {
        return clock_tail(i, mend + 4, h, m, h, /*bare_ok=*/true, /*part_ok=*/true, r);
      }
      if (rel == "to" && m != 30) {  // "quarter to eight": 7:45; "ten to one": 12:50
        // "from ten to nine (pm)", "between five to ten" are ranges
        if (m != 15 && range_opener(L_[i].a)) return false;
        const bool sure = m == 15 || clock_context(L_[i].a, /*wide=*/false);
        return clock_tail(i, mend + 4, h == 1 ? 12 : h - 1, 60 - m, h, sure, /*part_ok=*/true, r);
      }
    }
    if (j != i) return false;
    if (w == "half" && is(i + 1, K::Space) && clock_hour(i + 2, &h)) {  // British "half seven": 7:30
      return clock_tail(i, i + 3, h, 30, h, clock_context(L_[i].a, /*wide=*/true), /*part_ok=*/true, r);
    }
    if (is(i, K::Word) && clock_hour(i, &h)) {  // "seven o'clock", "nine in the evening", "seven pm"
      return clock_tail(i, i + 1, h, 0, h, /*bare_ok=*/false, clock_context(L_[i].a, /*wide=*/true), r);
    }
    return false;
  }

  // A share written as a fraction of a whole, as a percentage (unit "%", span the fraction words):
  // "half of" (50), "a third of", "one-third of" (100/3), "two-thirds of", "a quarter of" (25),
  // "three quarters of", "three-quarters of" (75), "one-fifth of" (20), "three-tenths of", "an
  // eighth of", "half the" / "half your" (a determiner after "half") and "half price" /
  // "half-price" (50). Numerator "a" / "an" / "one".."nine" below
  // the denominator (2, 3, 4, 5, 8, 10), a singular fraction word after "a" / "one", a plural one
  // after a larger numerator. Not when "of" is followed by a unit, a scale word or "dozen" (after
  // an optional article: "three-quarters of an hour" is a duration, the grammar of written()),
  // nor after "first", "last", "next", "past", "previous", "following" ("the last three quarters
  // of the year" are quarters of a year). Before a number ("half of the £9.50", "two-thirds of
  // 300 seats") the fraction is a plain value (0.5, 2/3, no unit): a factor of that number.
  bool share(std::size_t i, Raw& r) {
    const Low w = low(i);
    int num = 0, den = 0;
    std::size_t j = 0;  // the lexeme after the fraction words
    if (w == "half") {
      if ((is(i + 1, K::Space) || punct(i + 1, '-')) && low(i + 2) == "price") {  // "half price"
        num = 1;
        den = 2;
        j = i + 1;
      } else {
        num = 1;
        den = 2;
        j = i + 1;
        if (!(of_share(j) || (is(j, K::Space) && determiner(low(j + 1))))) return false;  // "half the fee"
      }
    } else {
      const bool art = article(i);
      if (art) {
        num = 1;
      } else {
        const Written* x = written_words().find(w);
        if (x == nullptr || x->kind != WrittenKind::Digit || x->value < 1) return false;
        num = static_cast<int>(x->value);
      }
      if (!(is(i + 1, K::Space) || (!art && punct(i + 1, '-')))) return false;
      const Low f = low(i + 2);
      if (f.empty()) return false;
      const bool plural = f[f.size() - 1] == 's';
      const std::string_view stem(f.s, plural ? f.size() - 1 : f.size());
      den = stem == "half" ? 2 : stem == "third" ? 3 : stem == "quarter" ? 4 : stem == "fifth" ? 5
          : stem == "eighth" ? 8 : stem == "tenth" ? 10 : 0;
      if (den == 0 || num >= den || plural != (num > 1) || (den == 2 && art)) return false;
      j = i + 3;
      if (!of_share(j)) return false;
    }
    std::size_t k = L_[i].a;
    while (k > 0 && (s_[k - 1] == ' ' || s_[k - 1] == '\t')) --k;
    if (k < L_[i].a)
      for (const char* x : {"first", "last", "next", "past", "previous", "following"})
        if (ascii_word_before(k, x)) return false;
    r.la = i;
    r.lb = j;
    r.written = true;
    if (of_number(j)) {  // "half of the £9.50", "two-thirds of 300": a fraction of that number
      r.value = r.mantissa = static_cast<double>(num) / den;
      return true;
    }
    r.value = r.mantissa = 100.0 * num / den;
    r.unit = "%";
    return true;
  }

  // " of " after lexeme j - 1 and a number after an optional determiner or article ("of the
  // £9.50", "of 300", "of the twelve seats").
  bool of_number(std::size_t j) const {
    if (!(is(j, K::Space) && low(j + 1) == "of" && is(j + 2, K::Space))) return false;
    std::size_t k = j + 3;
    if ((article(k) || determiner(low(k))) && is(k + 1, K::Space)) k += 2;
    if (is(k, K::Num) || is(k, K::Sym)) return true;
    if (is(k + 1, K::Sym) && dollar_prefix(low(k)) != nullptr) return true;  // "US$5"
    if (currency_code(low(k)) != nullptr && is(k + 1, K::Space) && is(k + 2, K::Num)) return true;  // "EUR 12"
    const Written* w = written_words().find(low(k));
    return w != nullptr && (w->kind == WrittenKind::Digit || w->kind == WrittenKind::Teen || w->kind == WrittenKind::Tens);
  }

  // The words after which "half" is a share ("half the fee", "half your deposit").
  static bool determiner(std::string_view w) {
    return w == "the" || w == "his" || w == "her" || w == "its" || w == "their" || w == "your" || w == "our" ||
           w == "my" || w == "this" || w == "that" || w == "these" || w == "those";
  }

  // " of " after lexeme j - 1, followed by no unit, scale word or "dozen" (after an optional
  // article: "of an hour", "of a million").
  bool of_share(std::size_t j) const {
    if (!(is(j, K::Space) && low(j + 1) == "of" && is(j + 2, K::Space))) return false;
    std::size_t k = j + 3;
    if (article(k) && is(k + 1, K::Space)) k += 2;
    const Low w = low(k);
    return !(measure_unit(k) != nullptr || scale_word(w) > 0 || w == "dozen" || w == "hundred");
  }

  // "08:30", "17:30:15", "5:30 pm", "5.30pm", "9 am", "9am", "12 noon", "12 midnight".
  bool time_of_day(std::size_t i, Raw& r) {
    if (len(i) > 2) return false;
    int h = small_int(i);
    r.mantissa = h;
    std::size_t end = 0;
    bool pm = false;
    double minutes = 0.0;
    if (punct(i + 1, ':') && is(i + 2, K::Num) && len(i + 2) == 2) {
      const int m = small_int(i + 2);
      if (m > 59) return false;
      minutes = m;
      end = i + 3;
      if (punct(end, ':') && is(end + 1, K::Num) && len(end + 1) == 2 && small_int(end + 1) <= 59) {
        minutes += small_int(end + 1) / 60.0;
        end += 2;
      }
      std::size_t e2 = 0;
      int part = 0;
      if (meridiem(end, &e2, &pm)) {
        if (h >= 1 && h <= 12) h = to_24h(h, pm);  // "17:30 pm": the marker is redundant
        end = e2;
        r.marked = true;
      } else if (h <= 24 && (e2 = day_part(end, &part)) != 0) {  // "3:30 in the afternoon"
        if (h >= 1 && h <= 12) h = day_part_hour(h, part);  // "15:30 in the afternoon": redundant
        end = e2;
        r.marked = true;
      } else if (h >= 1 && h <= 12 && text(i)[0] != '0') {  // "6:30": am or pm is open
        r.clock_h = h;
        r.clock_m = minutes;
      }
      if (h > 24 || (h == 24 && minutes > 0)) return false;
      if (h == 24) h = 0;  // "24:00" is midnight, like "midnight" and "12 am"
    } else if (punct(i + 1, '.') && is(i + 2, K::Num) && len(i + 2) == 2) {  // "5.30 pm" only
      const int m = small_int(i + 2);
      if (m > 59 || h < 1 || h > 12) return false;
      int part = 0;
      if (meridiem(i + 3, &end, &pm)) {
        h = to_24h(h, pm);
      } else if ((end = day_part(i + 3, &part)) != 0) {  // "5.30 in the evening"
        h = day_part_hour(h, part);
      } else {
        return false;
      }
      minutes = m;
      r.marked = true;
    } else if (h >= 1 && h <= 12 && meridiem(i + 1, &end, &pm)) {
      h = to_24h(h, pm);
      r.marked = true;
    } else if (h == 12 && is(i + 1, K::Space) && (low(i + 2) == "noon" || low(i + 2) == "midnight")) {
      h = low(i + 2) == "noon" ? 12 : 0;
      end = i + 3;
      r.marked = true;
    } else {
      int hour = 0;  // "7 o'clock", "9 in the evening"
      return clock_hour(i, &hour) && clock_tail(i, i + 1, hour, 0, hour, /*bare_ok=*/false, /*part_ok=*/true, r);
    }
    r.la = i;
    r.lb = end;
    r.value = h * 60.0 + minutes;
    r.unit = "time";
    return true;
  }

  // A number in digits at i: "2,500", "2.5", "3bn", "5km", "1st", then (if `units`) a
  // multiplier word, a percent sign, a currency or a unit.
  void digits(std::size_t i, Raw& r, bool units) {
    std::string d(text(i));
    std::size_t j = i + 1;
    if (len(i) <= 3) {  // thousands groups of exactly three digits
      while (punct(j, ',') && is(j + 1, K::Num) && len(j + 1) == 3) {
        d += text(j + 1);
        j += 2;
      }
    }
    int clock_h = -1;
    double clock_m = 0.0;
    if (len(i) <= 2 && j == i + 1 && text(i)[0] != '0') clock_h = small_int(i);
    if (punct(j, '.') && is(j + 1, K::Num)) {
      if (clock_h >= 0 && len(j + 1) == 2 && small_int(j + 1) <= 59) {  // "6.30"
        clock_m = small_int(j + 1);
      } else {
        clock_h = -1;
      }
      d += '.';
      d += text(j + 1);
      j += 2;
    }
    const std::size_t number_end = j;
    r.la = i;
    r.value = r.mantissa = to_double(d);
    double frac = 0.0;
    if (units) {
      if (const std::size_t e = and_fraction(j, &frac)) {  // "2 and a half hours"
        r.value += frac;
        r.mantissa = r.value;
        j = e;
      }
    }
    if (is(j, K::Word)) {  // an attached suffix, whatever it is, belongs to the number
      const Low w = low(j);
      if (const std::size_t e = square(j, r)) {  // "50m²"
        j = e;
      } else if (const double mult = attached_multiplier(w)) {
        r.value *= mult;
        r.scale = mult;
        ++j;
      } else {
        if (w == "g" && text(j) == "g") {  // "500g" (but "5G" is not grams)
          r.unit = "g";
        } else if (text(j) == "p" && !r.prefix && r.value >= 1 && r.value < 100 && r.value == std::floor(r.value)) {
          // "50p": pence, an amount of pounds (1..99; "720p" and "1080p" are no money)
          r.unit = "gbp";
          r.value /= 100.0;
          r.mantissa = r.value;
        } else if (!w.empty()) {
          if (const UnitWord* u = unit_words().find(w)) r.unit = u->key;
        }
        ++j;
      }
    }
    if (units) {
      if (r.scale == 1.0 && !*r.unit) j = scale(j, r, /*written=*/false);
      if (!*r.unit) j = unit(j, r);
    } else if (r.scale == 1.0) {
      j = scale(j, r, false);
    }
    r.lb = j;
    if (units && j == number_end && clock_h >= 1 && clock_h <= 12) {  // a bare "6" or "6.30"
      r.clock_h = clock_h;
      r.clock_m = clock_m;
    }
  }

  // "m²", "ft²", "km²": the word at j and the superscript two after it. Returns the lexeme after
  // them (and sets the unit), or 0 when they are not there.
  std::size_t square(std::size_t j, Raw& r) const {
    if (!(is(j + 1, K::Other) && L_[j + 1].c == '2')) return 0;
    const Low w = low(j);
    if (w == "m") {
      r.unit = "sqm";
    } else if (w == "ft") {
      r.unit = "sqft";
    } else if (w == "km") {
      r.unit = "sqkm";
    } else {
      return 0;
    }
    return j + 2;
  }

  // Multiplier words after the number ending before lexeme j: "hundred" (after 1..99, and for
  // written numbers an optional "and twenty-five"), then one of thousand / million / billion /
  // trillion / mn / bn / tn, or "dozen".
  std::size_t scale(std::size_t j, Raw& r, bool written_number) {
    if (r.value >= 1 && r.value < 100 && is(j, K::Space) && low(j + 1) == "hundred") {
      r.mantissa = r.value;
      r.value *= 100;
      r.scale = 100;
      j += 2;
      if (written_number) {
        std::size_t q = j;
        if (is(q, K::Space) && low(q + 1) == "and") q += 2;
        Raw add;
        if (is(q, K::Space) && below_hundred(q + 1, add)) {
          r.value += add.value;
          r.mantissa = r.value;
          r.scale = 1.0;
          j = add.lb;
        }
      }
    }
    if (is(j, K::Space)) {
      const Low w = low(j + 1);
      if (const double mult = scale_word(w)) {
        r.mantissa = r.value;
        r.value *= mult;
        r.scale *= mult;
        return j + 2;
      }
      if (w == "dozen" && r.scale == 1.0 && r.value >= 1) {
        r.mantissa = r.value;
        r.value *= 12;
        r.scale = 12;
        return j + 2;
      }
    }
    return j;
  }

  // A unit after the number ending before lexeme j: "%" / a currency symbol / "°" (attached or
  // after one space), or a unit word after one space or a hyphen ("30-day").
  std::size_t unit(std::size_t j, Raw& r) {
    std::size_t q = is(j, K::Space) ? j + 1 : j;
    if (punct(q, '%')) {
      r.unit = "%";
      return q + 1;
    }
    if (is(q, K::Sym)) {
      r.unit = kSymbolUnits[static_cast<int>(L_[q].c)];
      return q + 1;
    }
    if (is(q, K::Other) && L_[q].c == 'd') {  // "30°C", "30 °F", "30°"
      r.unit = "deg";
      const Low w = low(q + 1);
      return (w == "c" || w == "f") ? q + 2 : q + 1;
    }
    if (!(is(j, K::Space) || punct(j, '-')) || !is(j + 1, K::Word)) return j;
    if (const std::size_t e = square(j + 1, r)) return e;  // "50 m²"
    const Low w = low(j + 1);
    if (w.empty()) return j;
    if (w == "per" && is(j + 2, K::Space) && low(j + 3) == "cent") {
      r.unit = "%";
      return j + 4;
    }
    if ((w == "sq" || w == "square") && is(j + 2, K::Space)) {
      const Low v = low(j + 3);
      if (v == "ft" || v == "feet" || v == "foot") {
        r.unit = "sqft";
        return j + 4;
      }
      if (v == "m" || v == "metres" || v == "meters" || v == "metre" || v == "meter") {
        r.unit = "sqm";
        return j + 4;
      }
      return j;
    }
    if (is(j, K::Space) && !r.written) {  // "1,500 g", "2,000 m", "1.5 l", "1.5 L"
      const std::string_view t = text(j + 1);  // lower-case g and m only: "5 G" network, "5 M"
      if (t == "g" || t == "m" || t == "l" || t == "L") {
        r.unit = t == "g" ? "g" : t == "m" ? "m" : "l";
        return j + 2;
      }
    }
    if (w == "us" && is(j + 2, K::Space)) {  // "290 US dollars"
      const Low v = low(j + 3);
      if (v == "dollar" || v == "dollars") {
        r.unit = "usd";
        return j + 4;
      }
    }
    const UnitWord* u = unit_words().find(w);
    if (u == nullptr && is(j + 2, K::Space) && is_period_qualifier(std::string_view(w))) {
      // "5 working days", "two business days", "one calendar month": the period is the unit
      const UnitWord* p = unit_words().find(low(j + 3));
      if (p != nullptr && !p->attached_only && is_period_unit(p->key)) {
        r.unit = p->key;
        return j + 4;
      }
    }
    if (u == nullptr || u->attached_only) return j;
    r.unit = u->key;
    return j + 2;
  }

  static bool is_period_unit(const std::string& key) {
    return key == "day" || key == "week" || key == "month" || key == "year" || key == "night" ||
           key == "h" || key == "fortnight";
  }

  // After a written number ending before lexeme j: "point" and digit words ("ninety-nine point
  // nine": 99.9). Returns the lexeme after the last digit word (j when there is none).
  std::size_t point_decimals(std::size_t j, Raw& r) const {
    if (!(is(j, K::Space) && low(j + 1) == "point")) return j;
    double frac = 0.0, place = 0.1;
    std::size_t k = j + 2;
    while (is(k, K::Space)) {
      const Written* d = written_words().find(low(k + 1));
      if (d == nullptr || d->kind != WrittenKind::Digit) break;
      frac += d->value * place;
      place /= 10.0;
      k += 2;
    }
    if (k == j + 2) return j;
    r.value += frac;
    r.mantissa = r.value;
    if (is(k, K::Space) && scale_word(low(k + 1)) > 0) {  // "seven point two million"
      r.scale = scale_word(low(k + 1));
      r.value *= r.scale;
      k += 2;
    }
    return k;
  }

  // After a written amount of pounds, euros or dollars ending before lexeme j: its pence or cents
  // written as a number below one hundred, optionally with "pence" / "cents" / "p" ("sixteen pounds
  // fifty": 16.50; "three dollars and twenty-five cents": 3.25). Returns the lexeme after them.
  std::size_t subunits(std::size_t j, Raw& r) const {
    const std::string_view u = r.unit;
    if (!(u == "gbp" || u == "eur" || u == "usd") || !is(j, K::Space)) return j;
    std::size_t k = j + 1;
    bool joined = false;
    if (low(k) == "and" && is(k + 1, K::Space)) {
      k += 2;
      joined = true;
    }
    Raw sub;
    if (!below_hundred(k, sub)) return j;
    std::size_t e = sub.lb;
    const bool named = is(e, K::Space) &&
                       (low(e + 1) == "pence" || low(e + 1) == "cents" || low(e + 1) == "cent" || low(e + 1) == "p");
    if (named) e += 2;
    if (joined && !named) return j;  // "five pounds and ten people" is no amount of pence
    r.value += sub.value / 100.0;
    r.mantissa = r.value;
    return e;
  }

  // "seven", "nineteen", "twenty", "twenty-five", "twenty five" at j (values 1..99).
  bool below_hundred(std::size_t j, Raw& r) const {
    const Written* found = written_words().find(low(j));
    if (found == nullptr) return false;
    const Written& w = *found;
    if (w.kind == WrittenKind::Tens) {
      r.value = w.value;
      r.lb = j + 1;
      if (punct(j + 1, '-') || is(j + 1, K::Space)) {
        const Written* u = written_words().find(low(j + 2));
        if (u != nullptr && u->kind == WrittenKind::Digit && u->value >= 1) {
          r.value += u->value;
          r.lb = j + 3;
        }
      }
      return true;
    }
    if ((w.kind == WrittenKind::Digit && w.value >= 1) || w.kind == WrittenKind::Teen) {
      r.value = w.value;
      r.lb = j + 1;
      return true;
    }
    return false;
  }

  bool article(std::size_t j) const {
    const Low w = low(j);
    return w == "a" || w == "an";
  }

  // " and a half", " and a quarter", " and three quarters" / " and three-quarters" from lexeme j
  // (a space), when a unit word or a scale word follows after one space ("two and a half hours",
  // "2 and a quarter miles", "two and a half million"). Returns the lexeme after the fraction
  // (the space before the unit) and sets *frac; 0 when there is none.
  std::size_t and_fraction(std::size_t j, double* frac) const {
    if (!(is(j, K::Space) && low(j + 1) == "and" && is(j + 2, K::Space))) return 0;
    std::size_t e = 0;
    if (low(j + 3) == "a" && is(j + 4, K::Space) && (low(j + 5) == "half" || low(j + 5) == "quarter")) {
      *frac = low(j + 5) == "half" ? 0.5 : 0.25;
      e = j + 6;
    } else if (low(j + 3) == "three" && (is(j + 4, K::Space) || punct(j + 4, '-')) &&
               (low(j + 5) == "quarters" || low(j + 5) == "quarter")) {
      *frac = 0.75;
      e = j + 6;
    } else {
      return 0;
    }
    if (!is(e, K::Space)) return 0;
    return measure_unit(e + 1) != nullptr || scale_word(low(e + 1)) > 0 ? e : 0;
  }

  // "quarters of a(n) <unit>" / "quarter of a(n) <unit>" at lexeme j: the unit, and the lexeme
  // after it in *end; nullptr when the words are not there.
  const UnitWord* quarters_of(std::size_t j, std::size_t* end) const {
    if (!(is(j + 1, K::Space) && low(j + 2) == "of" && is(j + 3, K::Space) && article(j + 4) &&
          is(j + 5, K::Space)))
      return nullptr;
    const UnitWord* u = measure_unit(j + 6);
    if (u != nullptr) *end = j + 7;
    return u;
  }

  // A unit word at j that may follow "half a" / "a quarter of a" ("hour", "kilo", "mile").
  const UnitWord* measure_unit(std::size_t j) const {
    const Low w = low(j);
    if (w.empty()) return nullptr;
    const UnitWord* u = unit_words().find(w);
    return u != nullptr && !u->attached_only ? u : nullptr;
  }

  // Does a rate word end just before byte a, after horizontal spaces only: a number mention ("$20
  // an hour", "twice a day", "3 times a week", "7 days a week"), "once" or "times" ("several
  // times a day")? The spaces walked back over are the ones before the word at a, so the scan
  // stays linear.
  bool after_rate_word(std::size_t a) const {
    std::size_t k = a;
    while (k > 0 && (s_[k - 1] == ' ' || s_[k - 1] == '\t')) --k;
    if (k == a) return false;
    if (!raw_.empty() && raw_.back().end == k) return true;
    auto word_before = [&](std::string_view w) {
      if (k < w.size()) return false;
      for (std::size_t q = 0; q < w.size(); ++q) {
        const auto c = static_cast<unsigned char>(s_[k - w.size() + q]);
        if ((c | 0x20u) != static_cast<unsigned char>(w[q])) return false;
      }
      return k == w.size() || !ascii_letter(static_cast<unsigned char>(s_[k - w.size() - 1]));
    };
    return word_before("once") || word_before("times");
  }

  // A written number at i ("two", "twenty-five thousand", "a hundred", "three hundred and
  // twenty") with its unit.
  bool written(std::size_t i, Raw& r) {
    const Low w = low(i);
    std::size_t j;
    if (w == "a" || w == "an") {
      if (!is(i + 1, K::Space)) return false;
      const Low v = low(i + 2);
      if (v == "hundred" || v == "dozen" || scale_word(v) > 0) {  // "a hundred", "a dozen", "a million"
        r.value = r.mantissa = 1.0;
        j = scale(i + 1, r, true);
        if (j == i + 1) return false;
      } else if (v == "quarter") {  // "a quarter of an hour", "a quarter of a mile"
        if (!(is(i + 3, K::Space) && low(i + 4) == "of" && is(i + 5, K::Space) && article(i + 6) &&
              is(i + 7, K::Space)))
          return false;
        const UnitWord* u = measure_unit(i + 8);
        if (u == nullptr) return false;
        r.value = r.mantissa = 0.25;
        r.unit = u->key;
        j = i + 9;
      } else if ((v == "year" || v == "month" || v == "minute") && is(i + 3, K::Space) &&
                 low(i + 4) == "and" && is(i + 5, K::Space) && low(i + 6) == "a" && is(i + 7, K::Space) &&
                 low(i + 8) == "half" && !after_rate_word(L_[i].a)) {  // "a year and a half"
        r.value = r.mantissa = 1.5;
        r.unit = v == "year" ? "year" : v == "month" ? "month" : "min";
        j = i + 9;
      } else if (const char* key = article_unit(v)) {  // "an hour", "a day", "a week", "a fortnight"
        if (after_rate_word(L_[i].a)) return false;  // "$20 an hour", "twice a day": a rate
        r.value = r.mantissa = 1.0;
        r.unit = key;
        j = i + 3;
        if (is(j, K::Space) && low(j + 1) == "and" && is(j + 2, K::Space) && low(j + 3) == "a" &&
            is(j + 4, K::Space) && low(j + 5) == "half") {  // "an hour and a half"
          r.value = r.mantissa = 1.5;
          j += 6;
        }
      } else {
        return false;
      }
    } else if (w == "once") {  // "once a day", "once per week": a frequency of one ("once you book": none)
      const Low v = low(i + 2);
      if (!(is(i + 1, K::Space) && (v == "a" || v == "an" || v == "per" || v == "every" || v == "each")))
        return false;
      r.value = r.mantissa = 1.0;
      j = i + 1;
    } else if (w == "quarter") {  // "quarter of an hour" (without "a": "every quarter of an hour")
      const UnitWord* u = quarters_of(i, &j);
      if (u == nullptr) return false;
      r.value = r.mantissa = 0.25;
      r.unit = u->key;
    } else if (w == "half" && is(i + 1, K::Space) && article(i + 2) && is(i + 3, K::Space) &&
               (measure_unit(i + 4) || low(i + 4) == "dozen" || scale_word(low(i + 4)) > 0)) {
      // "half an hour", "half a kilo", "half a dozen" (6), "half a million"
      r.value = r.mantissa = 0.5;
      if (const UnitWord* u = measure_unit(i + 4)) {
        r.unit = u->key;
      } else {
        const double mult = low(i + 4) == "dozen" ? 12.0 : scale_word(low(i + 4));
        r.value *= mult;
        r.scale = mult;
      }
      j = i + 5;
    } else {
      const Written* found = written_words().find(w);
      if (found == nullptr) return false;
      const Written& x = *found;
      if (x.kind == WrittenKind::Digit && x.value >= 1 && x.value <= 3 && (is(i + 1, K::Space) || punct(i + 1, '-')) &&
          low(i + 2) == (x.value == 1 ? "quarter" : "quarters")) {  // "three-quarters of an hour"
        std::size_t e = 0;
        if (const UnitWord* u = quarters_of(i + 2, &e)) {
          r.value = r.mantissa = x.value * 0.25;
          r.unit = u->key;
          r.la = i;
          r.lb = e;
          r.written = true;
          return true;
        }
      }
      if (x.kind == WrittenKind::Tens || x.kind == WrittenKind::Teen ||
          (x.kind == WrittenKind::Digit && x.value >= 1)) {
        below_hundred(i, r);
        j = r.lb;
        double frac = 0.0;
        if (const std::size_t e = and_fraction(j, &frac)) {  // "two and a half hours"
          r.value += frac;
          j = e;
        }
      } else {
        r.value = x.value;
        j = i + 1;
      }
      r.mantissa = r.value;
      if (x.kind == WrittenKind::Hundred || x.kind == WrittenKind::Dozen || x.kind == WrittenKind::Fixed ||
          x.value == 0) {
        // no "hundred" / "dozen" after these; a large scale still applies ("hundred thousand")
        if (is(j, K::Space) && scale_word(low(j + 1)) > 0) {
          const double mult = scale_word(low(j + 1));
          r.value *= mult;
          r.scale = mult;
          j += 2;
        }
      } else {
        j = scale(j, r, true);
      }
    }
    r.la = i;
    r.written = true;
    if (r.scale == 1.0) j = point_decimals(j, r);
    if (!*r.unit) j = unit(j, r);
    j = subunits(j, r);
    r.lb = j;
    if (!*r.unit && r.scale == 1.0 && r.value >= 1 && r.value <= 12 && r.value == std::floor(r.value) &&
        (written_words().find(w) != nullptr && (written_words().find(w)->kind == WrittenKind::Digit ||
                                                 written_words().find(w)->kind == WrittenKind::Teen))) {
      // a bare "six": a clock reading next to a marked time
      r.clock_h = static_cast<int>(r.value);
    }
    return true;
  }

  // Ranges "A-B", "A – B", "A to B": a unit or multiplier written once is shared ("5-10
  // minutes", "$10-20", "$3-4 billion", "10-15%"). Times keep their own values.
  void share_ranges() {
    for (std::size_t k = 0; k + 1 < raw_.size(); ++k) {
      Raw& a = raw_[k];
      Raw& b = raw_[k + 1];
      if ((a.marked || b.marked) && time_range_gap(a, b)) share_half_day(a, b);
      if (!range_gap(a.end, b.start)) continue;
      const std::string_view ua = a.unit, ub = b.unit;
      if (ua == "time" || ub == "time") continue;
      if (ua.empty() && !ub.empty()) a.unit = b.unit;
      if (a.prefix && ub.empty()) b.unit = a.unit;
      if (a.scale == 1.0 && b.scale > 1.0 && a.value <= b.mantissa) {
        a.value *= b.scale;
        a.scale = b.scale;
      }
    }
  }

  // A time range with one meridiem: the marked side fixes the half-day of the other side, a
  // clock reading with its half-day open (an unmarked "6:30", a bare "6" or a "6.30"). An
  // unmarked start is the last time with its reading before the end ("6:30 to 9 pm": 18:30; "11
  // to 2 pm": 11:00; "9 to midnight": 21:00); an unmarked end is the first time with its reading
  // after the start ("9 am to 5:30": 17:30; "10 pm to 2": 02:00). A range whose two sides are
  // both unmarked keeps its values ("9 to 5:30": 9 and 05:30).
  static void share_half_day(Raw& a, Raw& b) {
    auto open_reading = [](const Raw& r) {  // an unmarked time, or a bare positive number
      const std::string_view u = r.unit;
      return !r.marked && r.clock_h >= 1 && (u == "time" || (u.empty() && r.value > 0));
    };
    const bool start_open = open_reading(a) && b.marked;
    const bool end_open = a.marked && open_reading(b);
    if (!start_open && !end_open) return;
    Raw& open = start_open ? a : b;
    const double anchor = start_open ? b.value : a.value;
    const double c1 = (open.clock_h % 12) * 60.0 + open.clock_m;  // the am reading
    const double c2 = c1 + 720.0;                                  // the pm reading
    auto gap = [&](double c) {  // minutes from start to end, in (0, 1440]
      double g = start_open ? anchor - c : c - anchor;
      while (g <= 0) g += 1440.0;
      return g;
    };
    open.value = gap(c1) <= gap(c2) ? c1 : c2;
    open.mantissa = open.clock_h;
    open.unit = "time";
    open.scale = 1.0;
    open.marked = true;
  }

  // Is the text between two mentions a connector of a time range: a range connector
  // (range_gap), " until ", " till " or " and " after "between" ("between 6 and 9 pm")?
  bool time_range_gap(const Raw& x, const Raw& y) const {
    const std::size_t a = x.end, b = y.start;
    if (range_gap(a, b)) return true;
    if (b <= a || b - a > 9) return false;
    std::size_t p = a, q = b;
    while (p < q && s_[p] == ' ') ++p;
    while (q > p && s_[q - 1] == ' ') --q;
    if (p == a || q == b) return false;
    std::string w;
    for (std::size_t k = p; k < q; ++k) w += static_cast<char>(s_[k] | 0x20);
    if (w == "until" || w == "till" || w == "til") return true;
    if (w != "and") return false;
    std::size_t k = x.start;
    while (k > 0 && s_[k - 1] == ' ') --k;
    return k < x.start && ascii_word_before(k, "between");
  }

  // Compound durations: a duration followed, after one space or " and ", by a smaller one that is
  // less than one of its unit ("1 hour 30 minutes": 90 min; "an hour and 15 minutes": 75 min; "2
  // weeks and 3 days": 17 days); one mention in the smaller unit (exact for whole and half
  // amounts). Nights, months and years are not joined, nor adjectives ("a 2 hour and 30 minute
  // slot").
  void join_durations() {
    std::size_t w = 0;
    for (std::size_t k = 0; k < raw_.size(); ++k) {
      if (w > 0 && joinable(raw_[w - 1], raw_[k])) {
        Raw& a = raw_[w - 1];
        const Base ba = base_of(a.unit), bb = base_of(raw_[k].unit);
        a.value = a.value * ((ba.mul * bb.div) / (ba.div * bb.mul)) + raw_[k].value;
        a.mantissa = a.value;
        a.unit = raw_[k].unit;
        a.end = raw_[k].end;
        a.written = a.written && raw_[k].written;
        continue;
      }
      raw_[w++] = raw_[k];
    }
    raw_.resize(w);
  }

  bool joinable(const Raw& a, const Raw& b) const {
    const Base ba = base_of(a.unit), bb = base_of(b.unit);
    if (std::strcmp(ba.key, "min") != 0 || std::strcmp(bb.key, "min") != 0) return false;
    if (!(a.value > 0) || !(b.value > 0) || a.scale != 1.0 || b.scale != 1.0) return false;
    const double unit_a = ba.mul / ba.div, unit_b = bb.mul / bb.div;
    if (!(unit_b < unit_a) || !(b.value * unit_b < unit_a)) return false;
    if (b.start <= a.end || b.start - a.end > 7) return false;
    // an amount above one in a singular unit word is an adjective: "the 2 hour and 30 minute slots"
    auto adjective = [&](const Raw& r) { return r.value > 1 && (s_[r.end - 1] | 0x20) != 's'; };
    if (adjective(a) || adjective(b)) return false;
    std::size_t p = a.end, q = b.start;
    while (p < q && s_[p] == ' ') ++p;
    if (p == q) return true;  // one run of spaces
    while (q > p && s_[q - 1] == ' ') --q;
    if (p == a.end || q == b.start) return false;
    return q - p == 3 && (s_[p] | 0x20) == 'a' && (s_[p + 1] | 0x20) == 'n' && (s_[p + 2] | 0x20) == 'd';
  }

  // Is the text between two mentions a range connector: "-", " - ", " to " (any dash, any
  // horizontal space)?
  bool range_gap(std::size_t a, std::size_t b) const {
    if (b <= a || b - a > 32) return false;
    Lex x[3];
    int k = 0;
    for (std::size_t p = a; p < b; p = x[k++].b) {
      if (k == 3) return false;
      x[k] = lex_at(s_, p);
      if (x[k].b > b) return false;
    }
    if (k == 1) return x[0].kind == K::Punct && x[0].c == '-';
    if (k != 3 || x[0].kind != K::Space || x[2].kind != K::Space) return false;
    if (x[1].kind == K::Punct) return x[1].c == '-';
    return x[1].kind == K::Word && x[1].b - x[1].a == 2 && (s_[x[1].a] | 0x20) == 't' &&
           (s_[x[1].a + 1] | 0x20) == 'o';
  }

  std::string_view s_;
  mutable std::vector<Lex> L_;  // the window: lexemes from the parse position on
  mutable std::size_t next_ = 0;  // byte where the window's next lexeme starts
  std::vector<Raw> raw_;
};

}  // namespace

std::vector<NumberMention> find_numbers(std::string_view text) { return Parser(text).run(); }

bool is_period_qualifier(std::string_view w) {
  return w == "working" || w == "business" || w == "calendar" || w == "full" || w == "whole" || w == "clear" ||
         w == "consecutive" || w == "school";
}

bool same_value(double a, double b) {
  return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::max(std::fabs(a), std::fabs(b)));
}

namespace {
bool close(double a, double b) { return same_value(a, b); }

std::string digits_of(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c >= '0' && c <= '9') out.push_back(c);
  return out;
}
}  // namespace

bool long_digits_differ(std::string_view a, std::string_view b) {
  const std::string da = digits_of(a), db = digits_of(b);
  if (da.size() <= 15 && db.size() <= 15) return false;
  return da != db;
}

bool same_time_of_day(double a, bool a_open, double b, bool b_open) {
  if (close(a, b)) return true;
  if (!a_open && !b_open) return false;
  return close(std::fabs(a - b), 720.0);
}

bool same_share(double a, double b) {
  if (close(a, b)) return true;
  // a third or two thirds (the values of "a third of", "two-thirds of") against its rounding
  auto third = [](double v) { return close(v, 100.0 / 3.0) || close(v, 200.0 / 3.0); };
  return (third(a) || third(b)) && std::fabs(a - b) <= 0.5 + 1e-9;
}

}  // namespace director_fast
