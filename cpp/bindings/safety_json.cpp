// The canonical JSON encoder (see safety_json.hpp): string escaping, key order, float repr,
// encode() and the canonical_json module function.
#include "safety_json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace director_fast::bindings::safety_impl {

namespace {
// ---- canonical JSON ---------------------------------------------------------------------------
// json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
// for dict (str keys) / list / tuple / str / int / float / bool / None.
constexpr int kMaxJsonDepth = 256;

// A JSON string literal of s[0..n) as json.dumps(ensure_ascii=True) writes it: '"' and '\\'
// escaped, \n \r \t \b \f, other code points outside 0x20..0x7e as \u00XX / \uXXXX (surrogate
// pairs above U+FFFF), lower-case hex.
template <typename CharT>
void put_string(Out& out, const CharT* s, std::size_t n) {
  static const char hex[] = "0123456789abcdef";
  constexpr std::size_t kWorst = sizeof(CharT) == 4 ? 12 : 6;  // bytes per code unit at most
  constexpr std::size_t kBlock = 4096;                          // code units per reservation
  out += '"';
  std::size_t i = 0;
  while (i < n) {
    const std::size_t stop = n - i > kBlock ? i + kBlock : n;
    char* w = out.reserve(kWorst * (stop - i));
    while (i < stop) {
      if constexpr (sizeof(CharT) == 1) {
        // 8 bytes at a time (SWAR) while none is < 0x20, >= 0x7f, '"' or '\\'
        constexpr std::uint64_t k01 = 0x0101010101010101ULL, k80 = 0x8080808080808080ULL;
        auto zero_byte = [](std::uint64_t v) { return (v - k01) & ~v & k80; };
        while (i + 8 <= stop) {
          std::uint64_t x;
          std::memcpy(&x, s + i, 8);
          const std::uint64_t bad = ((x - 0x20 * k01) & ~x & k80) | (x & k80) |
                                    zero_byte(x ^ (0x7f * k01)) | zero_byte(x ^ (0x22 * k01)) |
                                    zero_byte(x ^ (0x5c * k01));
          if (bad) break;
          std::memcpy(w, &x, 8);
          w += 8;
          i += 8;
        }
        if (i >= stop) break;
      }
      const std::uint32_t c = s[i++];
      if (c >= 0x20 && c <= 0x7e && c != '"' && c != '\\') {
        *w++ = static_cast<char>(c);
        continue;
      }
      auto esc2 = [&](char e) {
        w[0] = '\\';
        w[1] = e;
        w += 2;
      };
      auto u = [&](std::uint32_t v) {
        w[0] = '\\';
        w[1] = 'u';
        w[2] = hex[(v >> 12) & 15];
        w[3] = hex[(v >> 8) & 15];
        w[4] = hex[(v >> 4) & 15];
        w[5] = hex[v & 15];
        w += 6;
      };
      switch (c) {
        case '"': esc2('"'); break;
        case '\\': esc2('\\'); break;
        case '\n': esc2('n'); break;
        case '\r': esc2('r'); break;
        case '\t': esc2('t'); break;
        case '\b': esc2('b'); break;
        case '\f': esc2('f'); break;
        default:
          if (c >= 0x10000) {
            const std::uint32_t v = c - 0x10000;
            u(0xd800 | (v >> 10));
            u(0xdc00 | (v & 0x3ff));
          } else {
            u(c);
          }
      }
    }
    out.commit(w);
  }
  out += '"';
}

// Code-point order of two str keys (as sorted() on str). Two 1-byte strings compare with
// memcmp (their units are the code points); anything else with PyUnicode_Compare.
inline bool key_less(PyObject* a, PyObject* b) {
  if (PyUnicode_KIND(a) == PyUnicode_1BYTE_KIND && PyUnicode_KIND(b) == PyUnicode_1BYTE_KIND) {
    const Py_ssize_t na = PyUnicode_GET_LENGTH(a), nb = PyUnicode_GET_LENGTH(b);
    const int c = std::memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b),
                              static_cast<std::size_t>(na < nb ? na : nb));
    return c < 0 || (c == 0 && na < nb);
  }
  return PyUnicode_Compare(a, b) < 0;
}

// Appends repr(x) for a finite double, as float.__repr__ / json.dumps write it: the shortest
// digit string that round-trips (std::to_chars, shortest mode -- the same digits as CPython's
// PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0), checked by a Hypothesis test over all
// kinds of doubles), laid out with CPython's rule: exponent form when the decimal point position
// is <= -4 or > 16 ("1e+16", "1.5e-05"), otherwise positional with at least one fractional digit.
// Falls back to PyOS_double_to_string if to_chars fails.
bool put_float_repr(Out& out, double x) {
  char sci[40];
  const auto res = std::to_chars(sci, sci + sizeof sci, x, std::chars_format::scientific);
  if (res.ec != std::errc()) {
    char* p = PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, nullptr);
    if (p == nullptr) return false;
    out += p;
    PyMem_Free(p);
    return true;
  }
  // sci = [-]d[.ddd]e(+|-)XX
  const char* p = sci;
  const char* end = res.ptr;
  if (*p == '-') {
    out += '-';
    ++p;
  }
  char digits[32];
  int nd = 0;
  while (p < end && *p != 'e') {
    if (*p != '.') digits[nd++] = *p;
    ++p;
  }
  int exp10 = 0;
  if (p < end) {  // 'e'
    ++p;
    const bool neg = *p == '-';
    ++p;
    while (p < end) exp10 = exp10 * 10 + (*p++ - '0');
    if (neg) exp10 = -exp10;
  }
  const int decpt = exp10 + 1;  // position of the decimal point relative to the digits
  if (decpt <= -4 || decpt > 16) {
    out += digits[0];
    if (nd > 1) {
      out += '.';
      out.append(digits + 1, static_cast<std::size_t>(nd - 1));
    }
    const int e = decpt - 1;
    out += 'e';
    out += e < 0 ? '-' : '+';
    const int ae = e < 0 ? -e : e;
    if (ae < 10) out += '0';
    out += std::to_string(ae);
  } else if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-decpt), '0');
    out.append(digits, static_cast<std::size_t>(nd));
  } else if (decpt >= nd) {
    out.append(digits, static_cast<std::size_t>(nd));
    out.append(static_cast<std::size_t>(decpt - nd), '0');
    out += ".0";
  } else {
    out.append(digits, static_cast<std::size_t>(decpt));
    out += '.';
    out.append(digits + decpt, static_cast<std::size_t>(nd - decpt));
  }
  return true;
}

}  // namespace

// `depth`: the number of containers around `o`. At most kMaxJsonDepth containers nest, whatever
// they hold (empty or not).
bool encode(PyObject* o, Out& out, int depth) {
  if (depth >= kMaxJsonDepth && (PyList_Check(o) || PyTuple_Check(o) || PyDict_Check(o))) {
    raise_python("ValidationError", "canonical JSON: nested deeper than 256 levels");
  }
  if (PyUnicode_Check(o)) {
    visit_str(o, [&](auto* p, std::size_t n) { put_string(out, p, n); });
    return true;
  }
  if (o == Py_None) { out += "null"; return true; }
  if (o == Py_True) { out += "true"; return true; }
  if (o == Py_False) { out += "false"; return true; }
  if (PyLong_Check(o)) {
    PyObject* r = PyLong_Type.tp_repr(o);
    if (r == nullptr) return false;
    Py_ssize_t n;
    const char* p = PyUnicode_AsUTF8AndSize(r, &n);
    if (p != nullptr) out.append(p, static_cast<std::size_t>(n));
    Py_DECREF(r);
    return p != nullptr;
  }
  if (PyFloat_Check(o)) {
    const double x = PyFloat_AS_DOUBLE(o);
    if (!std::isfinite(x)) raise_python("ValidationError", "canonical JSON: out of range float values are not JSON compliant");
    return put_float_repr(out, x);
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    out += '[';
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (i) out += ',';
      // lists may change size while encoding nested items; re-read the item each time
      if (i >= PySequence_Fast_GET_SIZE(o)) break;
      PyObject* it = PySequence_Fast_GET_ITEM(o, i);
      Py_INCREF(it);
      const bool ok = encode(it, out, depth + 1);
      Py_DECREF(it);
      if (!ok) return false;
    }
    out += ']';
    return true;
  }
  if (PyDict_Check(o)) {
    std::vector<std::pair<PyObject*, PyObject*>> items;
    items.reserve(static_cast<std::size_t>(PyDict_GET_SIZE(o)));
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(o, &pos, &k, &v)) {
      if (!PyUnicode_Check(k)) {
        raise_python("InputTypeError", std::string("canonical JSON: keys must be str, not ") +
                                           Py_TYPE(k)->tp_name);
      }
      Py_INCREF(k);
      Py_INCREF(v);
      items.emplace_back(k, v);
    }
    struct Release {
      std::vector<std::pair<PyObject*, PyObject*>>& v;
      ~Release() {
        for (auto& kv : v) {
          Py_DECREF(kv.first);
          Py_DECREF(kv.second);
        }
      }
    } release{items};
    std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
      return key_less(a.first, b.first);
    });
    out += '{';
    bool first = true;
    for (auto& kv : items) {
      if (!first) out += ',';
      first = false;
      visit_str(kv.first, [&](auto* p, std::size_t n) { put_string(out, p, n); });
      out += ':';
      if (!encode(kv.second, out, depth + 1)) return false;
    }
    out += '}';
    return true;
  }
  raise_python("InputTypeError", std::string("canonical JSON: object of type ") +
                                     Py_TYPE(o)->tp_name + " is not JSON serializable");
}

PyObject* py_canonical_json(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1) return PyErr_Format(PyExc_TypeError, "canonical_json expects 1 argument");
  Out out;
  try {
    if (!encode(args[0], out, 0)) return nullptr;
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
  return ascii_str(out);
}

}  // namespace director_fast::bindings::safety_impl
