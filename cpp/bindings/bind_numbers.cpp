// Bindings of the number parser (numbers.hpp); the public wrapper is director_fast.numbers.
#include <pybind11/pybind11.h>
#include <pybind11/typing.h>

#include <string>
#include <vector>

#include "common.hpp"
#include "director_fast/numbers.hpp"
#include "director_fast/offsets.hpp"
#include "text_convert.hpp"

namespace py = pybind11;

namespace director_fast::bindings {
// Any object, checked by to_u32 (InputTypeError naming the argument, not pybind11's generic
// "incompatible function arguments"); the signature and the stub say `str`.
struct TextArg {
  py::handle obj;
};
}  // namespace director_fast::bindings

namespace pybind11::detail {
template <>
struct type_caster<director_fast::bindings::TextArg> {
  PYBIND11_TYPE_CASTER(director_fast::bindings::TextArg, const_name("str"));
  bool load(handle src, bool) {
    value.obj = src;
    return static_cast<bool>(src);
  }
};
}  // namespace pybind11::detail

namespace director_fast::bindings {

namespace {

struct Found {
  int64_t start;  // code points
  int64_t end;
  NumberMention m;
};

}  // namespace

void bind_numbers(py::module_& m) {
  m.def(
      "find_numbers",
      [](const TextArg& text) -> py::typing::List<py::typing::Tuple<py::int_, py::int_, py::float_, py::str, py::str, py::bool_>> {
        std::u32string u = to_u32(text.obj, "text");  // InputTypeError / ValidationError (surrogate)
        std::vector<Found> found;
        {
          py::gil_scoped_release release;
          const std::string utf8 = utf8_encode(u);
          std::vector<NumberMention> mentions = find_numbers(utf8);
          const OffsetMap offsets(u);
          found.reserve(mentions.size());
          for (auto& x : mentions) {
            const int64_t a = offsets.utf8_to_cp(static_cast<int64_t>(x.start));
            const int64_t b = offsets.utf8_to_cp(static_cast<int64_t>(x.end));
            found.push_back({a, b, std::move(x)});
          }
        }
        py::list out(found.size());
        for (std::size_t i = 0; i < found.size(); ++i) {
          const Found& f = found[i];
          out[i] = py::make_tuple(f.start, f.end, f.m.value, py::str(f.m.unit), py::str(f.m.surface),
                                f.m.half_day_open);
        }
        return out;
      },
      py::arg("text"),
      "Number mentions of `text` as (start, end, value, unit, surface, half_day_open) tuples; "
      "start/end in code points, text[start:end] == surface. See director_fast.numbers.find_numbers.");
  m.def("same_value", &same_value, py::arg("a"), py::arg("b"),
        "Whether two parsed values are the same number (relative tolerance 1e-12). See "
        "director_fast.numbers.same_value.");
  m.def(
      "long_digits_differ",
      [](const std::string& a, const std::string& b) { return long_digits_differ(a, b); },
      py::arg("a"), py::arg("b"),
      "Whether two surfaces, one of more than 15 digits, hold different digits. See "
      "director_fast.numbers.long_digits_differ.");
}

}  // namespace director_fast::bindings
