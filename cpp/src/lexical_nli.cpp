// Lexical NLI heuristic (see lexical_nli.hpp for the signals and the thread-safety contract).
#include "director_fast/lexical_nli.hpp"

#include <algorithm>
#include <cmath>
#include <charconv>
#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "director_fast/errors.hpp"
#include "director_fast/utf8.hpp"
#include "director_fast/numbers.hpp"
#include "director_fast/segmenter.hpp"

namespace director_fast {

namespace {

// ---- word lists ---------------------------------------------------------------------------------

const std::unordered_set<std::string>& stopwords() {
  static const std::unordered_set<std::string> s = {
      "a", "an", "the", "and", "or", "but", "if", "then", "than", "so", "as", "of", "at", "by",
      "for", "with", "about", "against", "between", "into", "through", "during", "to", "from",
      "in", "on", "off", "out", "over", "under", "again", "further", "once", "here", "there",
      "when", "where", "why", "how", "all", "any", "both", "each", "few", "more", "most", "other",
      "some", "such", "only", "own", "same", "too", "very", "can", "will", "just", "should", "now",
      "is", "am", "are", "was", "were", "be", "been", "being", "have", "has", "had", "having",
      "do", "does", "did", "doing", "would", "could", "might", "must", "shall", "may", "i", "me",
      "my", "we", "our", "ours", "you", "your", "he", "him", "his", "she", "her", "hers", "it",
      "its", "they", "them", "their", "theirs", "what", "which", "who", "whom", "whose", "this",
      "that", "these", "those", "also", "up", "down", "not", "no", "nor", "never", "none",
      "nobody", "nothing", "neither", "without", "cannot", "t", "s", "d", "ll", "m", "re", "ve",
      "one", "said", "says", "say", "according", "while", "after", "before", "because", "since",
      "until", "upon", "within", "per", "via", "yet", "still", "even", "well", "much", "many",
      "another", "every", "whether", "though", "although", "however", "therefore", "thus",
      "there's", "it's", "mr", "mrs", "ms", "dr", "new", "year", "years"};
  return s;
}

// "once" (any case): the one written 1 that is always a quantity ("once a day", parsed only so)
bool is_once(const std::string& w) {
  return w.size() == 4 && (w[0] | 0x20) == 'o' && (w[1] | 0x20) == 'n' && (w[2] | 0x20) == 'c' && (w[3] | 0x20) == 'e';
}

const std::unordered_set<std::string>& negations() {
  static const std::unordered_set<std::string> s = {
      "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "cannot",
      "nowhere", "n't"};
  return s;
}

// Polarity cues: negations and failure / error / exclusion words, mapped to a canonical key
// (inflections and "n't" / "cannot" / "not" share one; distinct negation words keep their own:
// merging them all into one key lowered SummEdits-evaluation AUC 0.644 -> 0.632, since an edit
// inserting "no" into a summary of a document that says "not" elsewhere is still an edit;
// the parity check against the aligned sentence covers the close cases). A cue of the hypothesis whose key
// occurs nowhere in the premise is a "novel polarity" signal: edits that make a summary or claim
// inconsistent often insert exactly these words ("fails to mention", "does not", "incorrectly",
// "only", "except"); chosen from the SummEdits 'evaluation' split and SICK trial only.
const std::unordered_map<std::string, std::string>& polarity_cues() {
  static const std::unordered_map<std::string, std::string> m = {
      {"not", "not"}, {"n't", "not"}, {"cannot", "not"}, {"no", "no"}, {"never", "never"},
      {"none", "none"}, {"nobody", "nobody"}, {"nothing", "nothing"}, {"neither", "neither"}, {"nor", "nor"},
      {"nowhere", "nowhere"}, {"without", "without"}, {"fail", "fail"}, {"fails", "fail"},
      {"failed", "fail"}, {"failing", "fail"}, {"incorrect", "incorrect"},
      {"incorrectly", "incorrect"}, {"wrong", "wrong"}, {"wrongly", "wrong"},
      {"misinform", "misinform"}, {"misinforms", "misinform"}, {"misinformed", "misinform"},
      {"misinforming", "misinform"}, {"refuse", "refuse"}, {"refuses", "refuse"},
      {"refused", "refuse"}, {"refusing", "refuse"}, {"deny", "deny"}, {"denies", "deny"},
      {"denied", "deny"}, {"denying", "deny"}, {"unable", "unable"}, {"except", "except"},
      {"instead", "instead"}, {"only", "only"}};
  return m;
}

// Cheap pre-test before the hash lookups of the short word lists (negations, polarity cues): can a word of this first byte and length be in one of them? Most content
// words fail it. (first byte, length capped at 31) -> bit.
class ListedShapes {
 public:
  ListedShapes();
  bool maybe(const std::string& low) const {
    if (low.empty()) return false;
    const std::size_t n = low.size() < 31 ? low.size() : 31;
    return (bits_[static_cast<unsigned char>(low[0])] >> n) & 1u;
  }
  void add(const std::string& w) {
    const std::size_t n = w.size() < 31 ? w.size() : 31;
    bits_[static_cast<unsigned char>(w[0])] |= 1u << n;
  }

 private:
  std::uint32_t bits_[256] = {};
};
const ListedShapes& listed_shapes();

const std::string* polarity_key(const std::string& low) {
  if (!listed_shapes().maybe(low)) return nullptr;
  auto it = polarity_cues().find(low);
  return it == polarity_cues().end() ? nullptr : &it->second;
}

bool is_ascii_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_ascii_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha_or_high(char c) {
  return is_ascii_upper(c) || is_ascii_lower(c) || (static_cast<unsigned char>(c) >= 0x80);
}

// Whether the UTF-8 text at s[j] is a dash or minus sign that separates words (figure dash, en
// dash, em dash, horizontal bar U+2012..U+2015, minus sign U+2212): "Monday–Friday" is two words.
bool is_dash_at(std::string_view s, std::size_t j) {
  if (j + 2 >= s.size() || static_cast<unsigned char>(s[j]) != 0xE2) return false;
  const auto b1 = static_cast<unsigned char>(s[j + 1]), b2 = static_cast<unsigned char>(s[j + 2]);
  return (b1 == 0x80 && b2 >= 0x92 && b2 <= 0x95) || (b1 == 0x88 && b2 == 0x92);
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (is_ascii_upper(c)) c = static_cast<char>(c - 'A' + 'a');
  return out;
}

template <std::size_t N>
bool ends_with(const std::string& s, const char (&suf)[N]) {
  constexpr std::size_t n = N - 1;  // a string literal's length
  if (s.size() < n) return false;
  const char* tail = s.data() + (s.size() - n);
  for (std::size_t i = 0; i < n; ++i)
    if (tail[i] != suf[i]) return false;
  return true;
}

// The last steps of the stemmer: a final "e" dropped ("decline" -> "declin"), a doubled final
// ASCII letter undoubled ("cancell" -> "cancel"). Only ASCII bytes are undoubled: the last two
// bytes of a multi-byte UTF-8 sequence may be equal (U+5C71 "山" is E5 B1 B1), and dropping one
// would cut the code point, so a stem is always valid UTF-8 cut at a code-point boundary.
void tidy_stem(std::string& s) {
  if (s.size() > 4 && s.back() == 'e') s.pop_back();
  if (s.size() > 3 && s[s.size() - 1] == s[s.size() - 2] && static_cast<unsigned char>(s.back()) < 0x80 && !is_digit(s.back())) s.pop_back();
}

// A light suffix stripper (not Porter): applied identically to both sides, so only its
// consistency matters. "increase", "increased", "increases", "increasing" -> "increas".
std::string stem(const std::string& w) {
  std::string s = w;
  if (s.size() > 4 && ends_with(s, "ies")) {
    s.resize(s.size() - 3);
    s += 'y';
  } else if (s.size() > 5 && ends_with(s, "ing")) {
    s.resize(s.size() - 3);
  } else if (s.size() > 4 && ends_with(s, "ed")) {
    s.resize(s.size() - 2);
  } else if (s.size() > 4 && ends_with(s, "es")) {
    s.resize(s.size() - 2);
  } else if (s.size() > 3 && ends_with(s, "s") && !ends_with(s, "ss") && !ends_with(s, "us")) {
    s.resize(s.size() - 1);
  }
  if (s.size() > 5 && ends_with(s, "ly")) s.resize(s.size() - 2);
  tidy_stem(s);
  return s;
}

// The index key of a root: a leading '\x1e' keeps it apart from the stems and numbers.
std::string root_key(const std::string& root) { return std::string(1, '\x1e') + root; }

// The roots a stem may share with words derived from the same verb or noun, for coverage only:
// one derivational suffix stripped ("attendanc" -> "attend", "cancellation" -> "cancel",
// "donation" -> "donat", "departur" -> "depart", "renewal" -> "renew", "membership" -> "member",
// "refundabl" -> "refund", "requirement" -> "requir"), in the manner of the suffix steps of
// Porter's stemmer (M. F. Porter, "An algorithm for suffix stripping", Program 14(3), 1980), with
// a minimum remainder instead of Porter's measure, and a few irregular verb forms mapped to their
// base ("bought" -> "buy"). A stem with no such suffix has no root. Applied to both sides; a
// claim word is covered when it and some premise word share a stem or a root.
std::vector<std::string> stem_roots(const std::string& s) {
  static const std::unordered_map<std::string, std::string> irregular = {
      {"bought", "buy"}, {"took", "tak"}, {"taken", "tak"}, {"paid", "pay"},
      {"gave", "giv"}, {"given", "giv"}, {"made", "mak"}, {"held", "hold"}, {"kept", "keep"},
      {"sent", "send"}, {"spent", "spend"}, {"brought", "bring"},
      {"chose", "choos"}, {"chosen", "choos"}, {"began", "begin"}, {"begun", "begin"},
      {"ran", "run"}, {"won", "win"}, {"met", "meet"}, {"told", "tell"},
      {"said", "say"}, {"built", "build"}, {"wrote", "writ"},
      {"written", "writ"}, {"went", "go"}, {"gone", "go"}, {"came", "com"}, {"led", "lead"},
      {"grew", "grow"}, {"grown", "grow"}, {"knew", "know"}, {"known", "know"},
      {"drove", "driv"}, {"driven", "driv"}, {"flew", "fly"}, {"flown", "fly"},
      {"children", "child"}, {"people", "person"}, {"men", "man"}, {"women", "woman"}};
  // left alone: "found" ("founded" stems to it), "left" (the side), "sold" ("sold out"), "lost"
  // ("lost property")
  // (suffix, shortest remainder kept); longer suffixes first where both could apply
  static const std::pair<const char*, std::size_t> rules[] = {
      {"ation", 5}, {"ion", 5}, {"ment", 5}, {"anc", 5}, {"enc", 5}, {"ship", 4},
      {"abl", 4},   {"ibl", 4}, {"al", 5},   {"ur", 4},  {"ery", 5}, {"er", 5}, {"or", 5}};
  // "department" is no "departure", "apartment" no "apart"
  static const std::unordered_set<std::string> opaque = {"department", "apartment"};
  std::vector<std::string> out;
  if (auto it = irregular.find(s); it != irregular.end()) out.push_back(it->second);
  if (opaque.count(s)) return out;
  for (const auto& [suf, keep] : rules) {
    const std::size_t n = std::char_traits<char>::length(suf);
    if (s.size() < n + keep || s.compare(s.size() - n, n, suf) != 0) continue;
    std::string r = s.substr(0, s.size() - n);
    // "-al" only after v / w / s / rr, where it makes nouns of verbs ("renewal", "arrival",
    // "refusal", "referral"); "personal", "general", "digital" are adjectives of other words
    if (suf[0] == 'a' && suf[1] == 'l' && suf[2] == '\0' && !(ends_with(r, "v") || ends_with(r, "w") ||
                                                             ends_with(r, "s") || ends_with(r, "rr")))
      continue;
    if (suf[0] == 'e' && suf[1] == 'r') r += "er";  // "delivery" -> "deliver"
    tidy_stem(r);
    if (r.size() >= 4 && r != s && std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  }
  return out;
}

const std::unordered_map<std::string, std::vector<std::string>>& antonyms() {
  static const std::unordered_map<std::string, std::vector<std::string>> m = [] {
    static const char* pairs[][2] = {
        {"increase", "decrease"}, {"increase", "cut"}, {"increase", "reduce"}, {"rise", "fall"},
        {"rise", "drop"}, {"rose", "fell"}, {"raise", "lower"}, {"gain", "loss"}, {"gain", "lose"},
        {"win", "lose"}, {"won", "lost"}, {"winner", "loser"}, {"less", "more"}, {"fewer", "more"},
        {"higher", "lower"}, {"high", "low"}, {"larger", "smaller"}, {"large", "small"},
        {"big", "small"}, {"bigger", "smaller"}, {"first", "last"}, {"early", "late"},
        {"earlier", "later"}, {"open", "close"}, {"opened", "closed"}, {"accept", "reject"},
        {"approve", "reject"}, {"allow", "ban"}, {"allow", "prohibit"}, {"buy", "sell"},
        {"bought", "sold"}, {"start", "end"}, {"begin", "end"}, {"start", "finish"},
        {"profit", "loss"}, {"strong", "weak"}, {"strengthen", "weaken"}, {"positive", "negative"},
        {"success", "failure"}, {"succeed", "fail"}, {"true", "false"}, {"alive", "dead"},
        {"male", "female"}, {"man", "woman"}, {"men", "women"}, {"boy", "girl"},
        {"husband", "wife"}, {"son", "daughter"}, {"father", "mother"}, {"brother", "sister"},
        {"king", "queen"}, {"north", "south"}, {"east", "west"}, {"left", "right"},
        {"inside", "outside"}, {"above", "below"}, {"maximum", "minimum"}, {"most", "least"},
        {"best", "worst"}, {"better", "worse"}, {"good", "bad"}, {"happy", "sad"}, {"rich", "poor"},
        {"old", "young"}, {"older", "younger"}, {"hot", "cold"}, {"wet", "dry"}, {"full", "empty"},
        {"long", "short"}, {"fast", "slow"}, {"push", "pull"}, {"import", "export"},
        {"include", "exclude"}, {"arrive", "depart"}, {"enter", "exit"}, {"expand", "shrink"},
        {"agree", "disagree"}, {"support", "oppose"}, {"majority", "minority"},
        {"public", "private"}, {"legal", "illegal"}, {"domestic", "foreign"},
        {"guilty", "innocent"}, {"acquitted", "convicted"}, {"sit", "stand"}, {"sitting", "standing"},
        {"asleep", "awake"}, {"day", "night"}, {"everyone", "nobody"}, {"permanent", "temporary"},
        {"internal", "external"}, {"upper", "lower"}, {"add", "remove"}, {"attack", "defend"},
        {"hire", "fire"}, {"join", "leave"}, {"black", "white"}, {"cheap", "expensive"},
        {"love", "hate"}, {"present", "absent"}, {"pass", "fail"}, {"before", "after"},
        {"up", "down"}, {"over", "under"}, {"always", "never"}, {"all", "none"},
        {"possible", "impossible"}, {"likely", "unlikely"}, {"able", "unable"},
        {"known", "unknown"}, {"lead", "trail"}, {"victory", "defeat"}, {"wins", "loses"},
        {"peace", "war"}, {"urban", "rural"}, {"ascend", "descend"}, {"export", "import"}};
    std::unordered_map<std::string, std::vector<std::string>> out;
    for (const auto& p : pairs) {
      const std::string a = stem(p[0]), b = stem(p[1]);
      out[a].push_back(b);
      out[b].push_back(a);
    }
    return out;
  }();
  return m;
}

ListedShapes::ListedShapes() {
  for (const auto& w : negations()) add(w);
  for (const auto& kv : polarity_cues()) add(kv.first);
}
const ListedShapes& listed_shapes() {
  static const ListedShapes s;
  return s;
}

// ---- tokens -------------------------------------------------------------------------------------

struct Token {
  std::string low;      // lower-cased surface (words) or the canonical number text
  std::string surface;  // original text (numbers only)
  std::string stem;
  int sentence = 0;
  bool cap = false;           // first letter upper-case ASCII
  bool all_caps = false;      // acronym-like (>= 2 letters, all upper-case)
  bool sentence_initial = false;
  bool number = false;
  bool written = false;       // a written number word ("two")
  bool consumed = false;      // merged into a neighbouring number (multiplier / unit)
  bool negation = false;
  double value = 0.0;
  double mantissa = 0.0;
  std::string unit;
  double quantity = 0.0;  // value in the base unit of its dimension (NumberMention::quantity)
  std::string base_unit;
  bool half_day_open = false;  // NumberMention::half_day_open
};

// "one week", "one working day", "one pound": a written "one" with a unit word of its own (not a
// compound such as "one-day", which "a day pass" states without a number, nor "a fortnight")
bool written_one_with_unit(const Token& t) {
  const std::string& w = t.surface;
  return !t.unit.empty() && w.size() > 4 && (w[0] == 'o' || w[0] == 'O') && (w[1] == 'n' || w[1] == 'N') &&
         (w[2] == 'e' || w[2] == 'E') && w[3] == ' ';
}

// Sentence spans [start, end) in UTF-8 bytes, by the package's one segmenter (split_sentences of
// segmenter.hpp, the rules of director_fast.text.split_sentences).
std::vector<std::pair<std::size_t, std::size_t>> sentence_byte_spans(std::string_view text) {
  std::u32string u;
  u.reserve(text.size());
  bool ascii = true;
  for (std::size_t i = 0, len = 1; i < text.size(); i += len) {
    const char32_t cp = decode_utf8_lenient(text, i, &len);
    ascii = ascii && cp < 0x80;
    u.push_back(cp);
  }
  const std::vector<Span> spans = split_sentences(u);
  std::vector<std::pair<std::size_t, std::size_t>> out;
  out.reserve(spans.size());
  if (ascii) {
    for (const Span& sp : spans) out.emplace_back(static_cast<std::size_t>(sp.start), static_cast<std::size_t>(sp.end));
    return out;
  }
  // code points -> bytes: one forward walk (the spans are sorted and disjoint)
  std::size_t cp = 0, byte = 0;
  auto walk_to = [&](int64_t target) {
    for (std::size_t len = 1; cp < static_cast<std::size_t>(target); ++cp) {
      decode_utf8_lenient(text, byte, &len);
      byte += len;
    }
  };
  for (const Span& sp : spans) {
    walk_to(sp.start);
    const std::size_t a = byte;
    walk_to(sp.end);
    out.emplace_back(a, byte);
  }
  return out;
}

// A number mention as one token; the words after its first inside it ("billion" of "3 billion",
// "kg" of "8 kg", "pm" of "5:30 pm") follow as consumed tokens (counted, never matched).
void push_number(const NumberMention& m, std::string_view s, int sid, std::vector<Token>& toks) {
  Token t;
  t.number = true;
  t.written = m.written;
  t.surface = m.surface;
  t.low = lower(m.surface);
  t.value = m.value;
  t.mantissa = m.mantissa;
  t.unit = m.unit;
  t.quantity = m.quantity;
  t.base_unit = m.base_unit;
  t.half_day_open = m.half_day_open;
  t.sentence = sid;
  std::size_t k = m.start;
  while (k < m.end && !is_ascii_lower(static_cast<char>(s[k] | 0x20))) ++k;
  if (m.written && k == m.start) {  // the index key of a written number: its first word's stem
    std::size_t e = k;
    while (e < m.end && is_ascii_lower(static_cast<char>(s[e] | 0x20))) ++e;
    t.stem = stem(lower(s.substr(k, e - k)));
  }
  toks.push_back(std::move(t));
  for (k = m.start; k < m.end;) {
    if (!is_ascii_lower(static_cast<char>(s[k] | 0x20))) {
      ++k;
      continue;
    }
    std::size_t e = k;
    while (e < m.end && is_ascii_lower(static_cast<char>(s[e] | 0x20))) ++e;
    if (k != m.start && !is_digit(s[k - 1])) {  // not the first word, not a suffix ("3bn", "9am")
      Token c;
      c.low = lower(s.substr(k, e - k));
      c.sentence = sid;
      c.consumed = true;
      toks.push_back(std::move(c));
    }
    k = e;
  }
}

// Where the words after a number mention start: its end, or, for a qualified period ("5 working
// days"), the space before the qualifier, so that "working days" also stand as words (the number
// carries the period as its unit; the words keep the coverage they had as plain words).
std::size_t after_number(const NumberMention& m, std::string_view s) {
  if (m.unit.empty()) return m.end;
  const std::string_view surface = s.substr(m.start, m.end - m.start);
  // the first word of the surface after its number (any spacing, a no-break space included)
  std::size_t a = 0;
  while (a < surface.size() && !is_ascii_upper(surface[a]) && !is_ascii_lower(surface[a])) ++a;
  std::size_t b = a;
  while (b < surface.size() && (is_ascii_upper(surface[b]) || is_ascii_lower(surface[b]))) ++b;
  if (a == b || b == surface.size()) return m.end;  // no word, or the unit word itself ends it
  std::string q(surface.substr(a, b - a));
  for (char& c : q) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return is_period_qualifier(q) ? m.start + a : m.end;
}

// Tokenise one text into words and numbers (find_numbers of numbers.hpp: one token per number
// mention, its multiplier and unit included) with sentence ids.
std::vector<Token> tokenize(std::string_view text, std::vector<std::string>* sentences_out) {
  std::vector<Token> toks;
  // ~one token per 5-6 bytes of English text; capped (a token record is ~160 bytes, so an
  // uncapped guess for a huge or blank text would reserve ~32 bytes per input byte)
  toks.reserve(std::min<std::size_t>(text.size() / 5 + 4, 1u << 16));
  const auto spans = sentence_byte_spans(text);
  // Numbers are parsed once for the whole text and shifted into each sentence; a mention that
  // would cross a sentence end (none can with the segmenter's rules: a number never holds a
  // terminal followed by a space, nor a newline) is parsed again within the sentence.
  const std::vector<NumberMention> all_nums = find_numbers(text);
  std::size_t next_all = 0;
  std::vector<NumberMention> nums;
  int sid = 0;
  for (const auto& [a, b] : spans) {
    if (sentences_out) sentences_out->emplace_back(text.substr(a, b - a));
    std::string_view s = text.substr(a, b - a);
    const std::size_t n = s.size();
    nums.clear();
    while (next_all < all_nums.size() && all_nums[next_all].start < a) ++next_all;
    for (; next_all < all_nums.size() && all_nums[next_all].start < b; ++next_all) {
      if (all_nums[next_all].end > b) {
        nums = find_numbers(s);
        break;
      }
      nums.push_back(all_nums[next_all]);
      nums.back().start -= a;
      nums.back().end -= a;
    }
    std::size_t next = 0;  // the next number mention
    bool first_word = true;
    std::size_t i = 0;
    while (i < n) {
      while (next < nums.size() && nums[next].start < i) ++next;  // (never: words stop at mentions)
      const std::size_t num_at = next < nums.size() ? nums[next].start : n;
      if (i == num_at) {
        push_number(nums[next], s, sid, toks);
        first_word = false;
        i = after_number(nums[next++], s);
        continue;
      }
      const char c = s[i];
      if (is_alpha_or_high(c)) {
        std::size_t j = i;
        std::string w;
        while (j < num_at) {  // a number mention ends the word ("中300")
          const char d = s[j];
          if (is_dash_at(s, j)) break;  // "Monday–Friday": two words
          if (is_alpha_or_high(d) || is_digit(d)) {
            // U+2019 right single quote inside a word acts as an apostrophe
            if (static_cast<unsigned char>(d) == 0xE2 && j + 2 < n &&
                static_cast<unsigned char>(s[j + 1]) == 0x80 &&
                static_cast<unsigned char>(s[j + 2]) == 0x99) {
              if (j + 3 < n && is_alpha_or_high(s[j + 3]) &&
                  static_cast<unsigned char>(s[j + 3]) < 0x80) {
                w += '\'';
                j += 3;
                continue;
              }
              break;
            }
            w += d;
            ++j;
          } else if ((d == '\'') && j + 1 < n && is_ascii_lower(static_cast<char>(s[j + 1] | 0x20)) &&
                     is_alpha_or_high(s[j + 1])) {
            w += '\'';
            ++j;
          } else if (d == '.' && j + 1 < n && is_ascii_upper(s[j + 1]) && w.size() == 1) {
            w += '.';  // "U.S"
            ++j;
          } else {
            break;
          }
        }
        if (w.empty()) {  // a lone closing quote (U+2019) or a dash
          i = j > i ? j : i + 3;
          continue;
        }
        Token t;  // surface text only for numbers (what a mismatch reports)
        t.sentence = sid;
        t.sentence_initial = first_word;
        t.cap = is_ascii_upper(w[0]);
        int letters = 0, uppers = 0;
        for (char ch : w) {
          if (is_ascii_upper(ch)) ++uppers;
          if (is_ascii_upper(ch) || is_ascii_lower(ch)) ++letters;
        }
        t.all_caps = letters >= 2 && uppers == letters;
        std::string low = lower(w);
        low.erase(std::remove(low.begin(), low.end(), '.'), low.end());
        // contractions and possessives
        if (ends_with(low, "n't")) {
          low.resize(low.size() - 3);
          if (low == "ca") low = "can";
          if (low == "wo") low = "will";
          Token neg;
          neg.low = "n't";
          neg.sentence = sid;
          neg.negation = true;
          if (!low.empty()) {
            t.low = low;
            t.stem = stem(low);
            toks.push_back(t);
          }
          toks.push_back(std::move(neg));
          first_word = false;
          i = j;
          continue;
        }
        if (ends_with(low, "'s")) low.resize(low.size() - 2);
        const auto ap = low.find('\'');
        if (ap != std::string::npos) low.resize(ap);  // they're -> they
        if (low.empty()) {
          i = j;
          continue;
        }
        t.low = low;
        const bool listed = listed_shapes().maybe(low);
        t.negation = listed && negations().count(low) > 0;
        t.stem = stem(low);
        toks.push_back(std::move(t));
        first_word = false;
        i = j;
        continue;
      }
      if (c == '|') first_word = true;  // a table cell starts like a sentence ("| Off-season |")
      ++i;
    }
    ++sid;
  }
  return toks;
}

bool is_content(const Token& t) {
  if (t.number || t.consumed || t.negation) return false;
  if (t.low.size() < 2) return false;
  return stopwords().count(t.low) == 0;
}

bool is_entity(const Token& t) {
  if (!is_content(t)) return false;
  if (t.all_caps) return true;
  return t.cap && !t.sentence_initial;
}

std::string number_key(double v) {
  // Canonical text of a value: 12 significant digits, so 2500 == 2,500 == 2.5 thousand.
  // (std::to_chars general / precision 12 is printf's "%.12g", without the locale and varargs)
  char buf[64];
  buf[0] = '#';
  const auto r = std::to_chars(buf + 1, buf + sizeof buf, v, std::chars_format::general, 12);
  return std::string(buf, r.ptr);
}

std::string token_key(const Token& t) { return t.number ? number_key(t.value) : (t.stem.empty() ? t.low : t.stem); }

struct NumberRef {
  double value;
  double mantissa;
  std::string unit;
  double quantity;
  std::string base_unit;
  bool half_day_open;
  std::string long_surface;  // the surface of a number of more than 15 digits (else empty)
};

std::string long_surface(const std::string& surface) {
  const auto digits = std::count_if(surface.begin(), surface.end(), [](char c) { return c >= '0' && c <= '9'; });
  return digits > 15 ? surface : std::string();
}

// Slot hashing for the flat tables below: the splitmix64 finalizer (Steele et al., "Fast
// splittable pseudorandom number generators", OOPSLA 2014) over the key XOR a per-process random
// seed. Keys are structured (two dense ids in one word; string hashes of attacker-chosen words),
// so a plain multiplicative hash let crafted premises put every key in one probe run (quadratic
// preparation); the seed keeps collisions from being computed offline. Lookups only: results do
// not depend on the seed.
std::uint64_t mix64(std::uint64_t x) noexcept {
  static const std::uint64_t seed = [] {
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }();
  x ^= seed;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Open-addressing set of 64-bit keys (never ~0): one allocation, no per-key nodes.
class FlatSet64 {
 public:
  void reserve(std::size_t n) {
    std::size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    slots_.assign(cap, kEmpty);
  }
  void insert(std::uint64_t k) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = index(k);
    while (slots_[i] != kEmpty) {
      if (slots_[i] == k) return;
      i = (i + 1) & (slots_.size() - 1);
    }
    slots_[i] = k;
    ++size_;
  }
  bool contains(std::uint64_t k) const {
    if (slots_.empty()) return false;
    for (std::size_t i = index(k);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i] == k) return true;
      if (slots_[i] == kEmpty) return false;
    }
  }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  std::size_t index(std::uint64_t k) const { return static_cast<std::size_t>(mix64(k)) & (slots_.size() - 1); }
  void grow() {
    std::vector<std::uint64_t> old;
    old.swap(slots_);
    reserve(old.size() < 16 ? 16 : old.size());
    size_ = 0;
    for (std::uint64_t k : old)
      if (k != kEmpty) insert(k);
  }
  std::vector<std::uint64_t> slots_;
  std::size_t size_ = 0;
};

// String -> dense id, open addressing over an owned key list: no per-key nodes.
class Interner {
 public:
  void reserve(std::size_t n) {
    std::size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    slots_.assign(cap, -1);
    keys_.reserve(n);
  }
  std::size_t size() const { return keys_.size(); }
  int intern(const std::string& key) {
    if (2 * (keys_.size() + 1) > slots_.size()) grow();
    std::size_t i = index(key);
    while (slots_[i] >= 0) {
      if (keys_[static_cast<std::size_t>(slots_[i])] == key) return slots_[i];
      i = (i + 1) & (slots_.size() - 1);
    }
    slots_[i] = static_cast<int>(keys_.size());
    keys_.push_back(key);
    return slots_[i];
  }
  int find(const std::string& key) const {
    if (slots_.empty()) return -1;
    for (std::size_t i = index(key);; i = (i + 1) & (slots_.size() - 1)) {
      const int v = slots_[i];
      if (v < 0) return -1;
      if (keys_[static_cast<std::size_t>(v)] == key) return v;
    }
  }

 private:
  std::size_t index(const std::string& key) const {
    return static_cast<std::size_t>(mix64(std::hash<std::string>{}(key))) & (slots_.size() - 1);
  }
  void grow() {
    const std::size_t cap = slots_.size() < 16 ? 16 : slots_.size();
    slots_.assign(2 * cap, -1);
    for (std::size_t k = 0; k < keys_.size(); ++k) {
      std::size_t i = index(keys_[k]);
      while (slots_[i] >= 0) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = static_cast<int>(k);
    }
  }
  std::vector<std::string> keys_;
  std::vector<int> slots_;
};

}  // namespace

struct LexicalPremise::Impl {
  std::vector<std::string> sentences;
  // Every distinct token key (stem, lower-cased word or canonical number text) gets a dense id.
  // The sentences holding key `id` as an index key are post_sid[post_off[id] .. post_off[id+1])
  // (sorted; empty for a key that only occurs in bigrams, e.g. "n't"), and a bigram is the pair of
  // its keys' ids in a flat hash set. One hash lookup per token and no per-key or per-bigram
  // allocations (the key texts never contain '\x1f', so a pair of ids is exactly the former
  // "a\x1fb" string key).
  Interner ids;
  std::vector<int> post_off;  // size: number of ids + 1
  std::vector<int> post_sid;
  std::vector<int> negation_counts;  // per sentence
  std::vector<NumberRef> numbers;
  FlatSet64 bigrams;                         // (id(a) << 32) | id(b)
  std::unordered_set<std::string> polarity;  // canonical polarity cues present
  int tokens = 0;

  explicit Impl(std::string_view text) {
    std::vector<Token> toks = tokenize(text, &sentences);
    tokens = static_cast<int>(toks.size());
    negation_counts.assign(sentences.size(), 0);
    ids.reserve(toks.size());
    std::vector<std::pair<int, int>> pairs;  // (id, sentence), in token order
    pairs.reserve(toks.size() + 8);
    std::vector<int> key_id(toks.size(), -1);  // id of token_key(t), for bigrams
    for (std::size_t i = 0; i < toks.size(); ++i) {
      const Token& t = toks[i];
      if (t.negation) ++negation_counts[static_cast<std::size_t>(t.sentence)];
      if (const std::string* pk = polarity_key(t.low)) polarity.insert(*pk);
      if (t.number) {
        numbers.push_back({t.value, t.mantissa, t.unit, t.quantity, t.base_unit, t.half_day_open, long_surface(t.surface)});
        const int id = ids.intern(number_key(t.value));
        pairs.emplace_back(id, t.sentence);
        key_id[i] = id;
      }
      if (!t.stem.empty() && !t.consumed) {
        const int id = ids.intern(t.stem);
        pairs.emplace_back(id, t.sentence);
        if (!t.number) key_id[i] = id;
        if (!t.number) {  // root keys (coverage only): the stem itself and its derivational roots
          pairs.emplace_back(ids.intern(root_key(t.stem)), t.sentence);
          for (const std::string& r : stem_roots(t.stem)) pairs.emplace_back(ids.intern(root_key(r)), t.sentence);
        }
      }
    }
    bigrams.reserve(toks.size());
    const Token* prev = nullptr;
    int prev_id = -1;
    for (std::size_t i = 0; i < toks.size(); ++i) {
      const Token& t = toks[i];
      if (t.consumed) continue;
      const int id = key_id[i] >= 0 ? key_id[i] : ids.intern(token_key(t));
      if (prev && prev->sentence == t.sentence) bigrams.insert(pack(prev_id, id));
      prev = &t;
      prev_id = id;
    }
    // postings in CSR form by a counting sort on the id (stable: the sentences of one id stay in
    // token order, i.e. non-decreasing), repeats of a sentence dropped
    const std::size_t nid = ids.size();
    std::vector<int> count(nid + 1, 0);
    for (const auto& [id, sid] : pairs) ++count[static_cast<std::size_t>(id) + 1];
    for (std::size_t i = 1; i <= nid; ++i) count[i] += count[i - 1];
    std::vector<int> placed(pairs.size());
    std::vector<int> fill(count.begin(), count.end() - 1);
    for (const auto& [id, sid] : pairs) placed[static_cast<std::size_t>(fill[static_cast<std::size_t>(id)]++)] = sid;
    post_off.assign(nid + 1, 0);
    post_sid.reserve(pairs.size());
    for (std::size_t id = 0; id < nid; ++id) {
      const int a = count[id], b = count[id + 1];
      for (int k = a; k < b; ++k)
        if (k == a || placed[static_cast<std::size_t>(k)] != placed[static_cast<std::size_t>(k) - 1])
          post_sid.push_back(placed[static_cast<std::size_t>(k)]);
      post_off[id + 1] = static_cast<int>(post_sid.size());
    }
  }

  static std::uint64_t pack(int a, int b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
  }
  int id_of(const std::string& key) const { return ids.find(key); }
  struct Span {
    const int* first = nullptr;
    const int* last = nullptr;
    bool empty() const { return first == last; }
    const int* begin() const { return first; }
    const int* end() const { return last; }
  };
  // Sentences holding `key` as an index key (sorted; empty when none).
  Span posting(const std::string& key) const {
    const int id = id_of(key);
    if (id < 0) return {};
    const int* base = post_sid.data();
    return {base + post_off[static_cast<std::size_t>(id)], base + post_off[static_cast<std::size_t>(id) + 1]};
  }
  bool has(const std::string& key) const { return !posting(key).empty(); }
  // Whether some premise word shares a root with `stem` (stem_roots; the stems themselves count).
  bool shares_root(const std::string& stem) const {
    if (has(root_key(stem))) return true;
    for (const std::string& r : stem_roots(stem))
      if (has(root_key(r))) return true;
    return false;
  }
  bool in_sentence(const std::string& key, int sid) const {
    const Span v = posting(key);
    return std::binary_search(v.begin(), v.end(), sid);
  }
  // Is the bigram of key ids (a, b) in the premise? (-1: a key the premise does not have.)
  bool has_bigram(int a, int b) const { return a >= 0 && b >= 0 && bigrams.contains(pack(a, b)); }
  bool number_supported(const Token& t) const {
    auto eq = [](double a, double b) { return same_value(a, b); };
    for (const auto& p : numbers) {
      // digit runs longer than a double holds (order and account numbers): digit by digit
      if (long_digits_differ(t.surface, p.long_surface)) continue;
      // one quantity in two units of one dimension ("2 weeks" / "14 days", "1.5 kg" / "1,500 g",
      // "half an hour" / "30 minutes"): both carry a unit, so a duration never matches a count
      if (!t.unit.empty() && !p.unit.empty() && t.unit != p.unit && t.base_unit == p.base_unit &&
          eq(t.quantity, p.quantity))
        return true;
      // clock times with an open half-day ("7:15" is 07:15 or 19:15) and shares written as
      // fractions ("a third of" / "33%"): the rules of numbers.hpp, shared with number_alignment
      if (t.unit == "time" && p.unit == "time" &&
          same_time_of_day(t.value, t.half_day_open, p.value, p.half_day_open))
        return true;
      if (t.unit == "%" && p.unit == "%" && same_share(t.value, p.value)) return true;
      const bool unit_ok = t.unit.empty() || p.unit.empty() || t.unit == p.unit;
      if (!unit_ok) continue;
      if (eq(t.value, p.value)) return true;
      if (t.value == t.mantissa && eq(t.value, p.mantissa)) return true;
      // a time of day against a plain number of its hour ("opens at 9" / "opens at 9 am"; the
      // other way round is the rule above: a time's mantissa is its hour as written)
      if (t.unit == "time" && p.unit.empty() && p.value == p.mantissa && eq(t.mantissa, p.value)) return true;
      // percentages written as fractions ("0.25" vs "25%") are not matched on purpose
    }
    return false;
  }
};

LexicalPremise::LexicalPremise(std::string_view text) : impl_(new Impl(text)) {}
LexicalPremise::~LexicalPremise() { delete impl_; }
LexicalPremise::LexicalPremise(LexicalPremise&& o) noexcept : impl_(o.impl_) { o.impl_ = nullptr; }
LexicalPremise& LexicalPremise::operator=(LexicalPremise&& o) noexcept {
  if (this != &o) {
    delete impl_;
    impl_ = o.impl_;
    o.impl_ = nullptr;
  }
  return *this;
}
int LexicalPremise::sentence_count() const { return static_cast<int>(impl_->sentences.size()); }
int LexicalPremise::token_count() const { return impl_->tokens; }
const std::string& LexicalPremise::sentence(int i) const {
  if (i < 0 || i >= sentence_count())
    throw IndexError("premise sentence index " + std::to_string(i) + " out of range [0, " +
                     std::to_string(sentence_count()) + ")");
  return impl_->sentences[static_cast<std::size_t>(i)];
}

void LexicalConfig::validate() const {
  auto check = [](double v, const char* name) {
    if (!(v >= 0.0 && v <= 1.0))
      throw ConfigError(name, std::string(name) + " must be in [0, 1], got " + std::to_string(v));
  };
  check(w_uncovered, "w_uncovered");
  check(w_numeric, "w_numeric");
  check(w_entity, "w_entity");
  check(w_negation, "w_negation");
  check(w_negation_weak, "w_negation_weak");
  check(negation_alignment, "negation_alignment");
  check(w_polarity, "w_polarity");
  check(q_polarity, "q_polarity");
  check(w_antonym, "w_antonym");
  check(w_novel, "w_novel");
  check(q_entity, "q_entity");
}

LexicalNLI::LexicalNLI(LexicalConfig config) : config_(config) { config_.validate(); }

LexicalResult LexicalNLI::score(std::string_view premise, std::string_view hypothesis) const {
  LexicalPremise p(premise);
  return score(p, hypothesis);
}

LexicalResult LexicalNLI::score(const LexicalPremise& premise, std::string_view hypothesis) const {
  const auto& P = premise.impl();
  LexicalResult res;
  res.premise_sentences = static_cast<int>(P.sentences.size());
  res.premise_tokens = P.tokens;
  std::vector<std::string> hyp_sentences;
  std::vector<Token> toks = tokenize(hypothesis, &hyp_sentences);
  res.hypothesis_tokens = static_cast<int>(toks.size());
  if (toks.empty()) {
    res.divergence = 0.5;
    return res;
  }
  const int ns = static_cast<int>(hyp_sentences.size());
  std::vector<std::vector<const Token*>> by_sentence(static_cast<std::size_t>(ns));
  for (const Token& t : toks) by_sentence[static_cast<std::size_t>(t.sentence)].push_back(&t);
  std::vector<int> counts(P.sentences.size(), 0);
  const auto& ant = antonyms();

  for (int s = 0; s < ns; ++s) {
    const auto& st = by_sentence[static_cast<std::size_t>(s)];
    if (st.empty()) continue;
    LexicalSentence out;
    out.text = hyp_sentences[static_cast<std::size_t>(s)];
    LexicalSignals& sig = out.signals;
    // distinct content stems and alignment keys
    std::vector<std::string> content;
    std::vector<std::string> keys;
    std::unordered_set<std::string> seen;
    int hyp_neg = 0;
    for (const Token* t : st) {
      if (t->negation) ++hyp_neg;
      if (is_content(*t) && seen.insert(t->stem).second) {
        content.push_back(t->stem);
        keys.push_back(t->stem);
      }
      if (t->number && !t->consumed) {
        std::string nk = number_key(t->value);
        if (seen.insert(nk).second) keys.push_back(std::move(nk));
      }
    }
    sig.content_words = static_cast<int>(content.size());
    for (const auto& c : content)
      if (P.has(c) || P.shares_root(c)) ++sig.covered_words;
    sig.coverage = content.empty() ? 1.0 : double(sig.covered_words) / double(content.size());
    // alignment: premise sentence sharing most keys
    std::fill(counts.begin(), counts.end(), 0);
    for (const auto& k : keys) {
      for (int sid : P.posting(k)) ++counts[static_cast<std::size_t>(sid)];
    }
    int best = -1, best_count = 0;
    for (std::size_t i = 0; i < counts.size(); ++i)
      if (counts[i] > best_count) {
        best_count = counts[i];
        best = static_cast<int>(i);
      }
    out.premise_sentence = best;
    out.alignment = keys.empty() ? 0.0 : double(best_count) / double(keys.size());
    // numbers
    for (const Token* t : st) {
      if (!t->number || t->consumed) continue;
      // a written "one" alone is too ambiguous ("one of you"); "once a day" and "one week" count
      if (t->written && t->value == 1.0 && !is_once(t->surface) && !written_one_with_unit(*t)) continue;
      if (t->written && t->value == 0.5 && t->unit.empty()) continue;  // "half" ("half an hour" counts)
      ++sig.numbers;
      if (!P.number_supported(*t)) {
        ++sig.numeric_mismatches;
        sig.missing_numbers.push_back(t->surface);
      }
    }
    // entities
    std::unordered_set<std::string> seen_ent;
    for (const Token* t : st) {
      if (!is_entity(*t) || !seen_ent.insert(t->stem).second) continue;
      ++sig.entities;
      if (!P.has(t->stem)) {
        ++sig.entity_mismatches;
        sig.missing_entities.push_back(t->low);
      }
    }
    // negation parity and antonyms against the aligned premise sentence
    if (best >= 0 && out.alignment >= 0.5) {
      const int pneg = P.negation_counts[static_cast<std::size_t>(best)];
      if ((hyp_neg > 0) != (pneg > 0)) {
        sig.negation_flips = 1;
        sig.negation_close = out.alignment >= config_.negation_alignment ? 1 : 0;
      }
      for (const Token* t : st) {
        if (t->stem.empty() || t->number) continue;
        auto it = ant.find(t->stem);
        if (it == ant.end() || P.in_sentence(t->stem, best)) continue;
        for (const auto& b : it->second) {
          if (P.in_sentence(b, best)) {
            ++sig.antonym_hits;
            sig.antonym_pairs.push_back(t->low + "/" + b);
            break;
          }
        }
      }
    }
    // polarity cues absent from the whole premise
    for (const Token* t : st) {
      const std::string* pk = polarity_key(t->low);
      if (pk == nullptr || P.polarity.count(*pk)) continue;
      if (std::find(sig.polarity_words.begin(), sig.polarity_words.end(), *pk) != sig.polarity_words.end())
        continue;
      sig.polarity_words.push_back(*pk);
      ++sig.novel_polarity;
    }
    {
      bool first = true;
      int prev_id = -1;  // each token's key is looked up once, not once per bigram side
      for (const Token* t : st) {
        if (t->consumed) continue;
        const int id = P.id_of(token_key(*t));
        if (!first) {
          ++sig.bigrams;
          if (!P.has_bigram(prev_id, id)) ++sig.novel_bigrams;
        }
        first = false;
        prev_id = id;
      }
    }
    const auto& c = config_;
    double keep = 1.0;
    keep *= 1.0 - c.w_novel * (sig.bigrams ? double(sig.novel_bigrams) / sig.bigrams : 0.0);
    keep *= 1.0 - c.w_uncovered * (1.0 - sig.coverage);
    keep *= 1.0 - c.w_numeric * (sig.numeric_mismatches > 0 ? 1.0 : 0.0);
    keep *= 1.0 - c.w_entity * (1.0 - std::pow(1.0 - c.q_entity, sig.entity_mismatches));
    keep *= 1.0 - (sig.negation_close ? c.w_negation : c.w_negation_weak) * sig.negation_flips;
    keep *= 1.0 - c.w_polarity * (1.0 - std::pow(1.0 - c.q_polarity, sig.novel_polarity));
    keep *= 1.0 - c.w_antonym * (sig.antonym_hits > 0 ? 1.0 : 0.0);
    out.divergence = std::min(1.0, std::max(0.0, 1.0 - keep));
    res.sentences.push_back(std::move(out));
  }
  if (res.sentences.empty()) {
    res.divergence = 0.5;
    return res;
  }
  double sum = 0.0, mx = 0.0;
  for (const auto& s : res.sentences) {
    sum += s.divergence;
    mx = std::max(mx, s.divergence);
  }
  const double mean = sum / double(res.sentences.size());
  switch (config_.aggregation) {
    case LexicalAggregation::Mean: res.divergence = mean; break;
    case LexicalAggregation::Max: res.divergence = mx; break;
    case LexicalAggregation::MeanMax: res.divergence = 0.5 * (mean + mx); break;
  }
  return res;
}

std::vector<double> LexicalNLI::score_batch(const std::vector<std::string>& premises,
                                            const std::vector<std::string>& hypotheses) const {
  if (premises.size() != hypotheses.size())
    throw ValueError("premises and hypotheses must have the same length, got " +
                     std::to_string(premises.size()) + " and " + std::to_string(hypotheses.size()));
  std::vector<double> out;
  out.reserve(premises.size());
  for (std::size_t i = 0; i < premises.size(); ++i) out.push_back(score(premises[i], hypotheses[i]).divergence);
  return out;
}

std::string lexical_stem(const std::string& word) { return stem(lower(word)); }

}  // namespace director_fast
