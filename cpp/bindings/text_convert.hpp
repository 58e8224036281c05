// str <-> UTF-32 helpers shared by the text and index bindings.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <string_view>

namespace director_fast::bindings {

// A Python str as code points; lone surrogates raise ValidationError naming `what`.
std::u32string to_u32(const pybind11::handle& obj, const char* what);
pybind11::str from_u32(std::u32string_view s);

}  // namespace director_fast::bindings
