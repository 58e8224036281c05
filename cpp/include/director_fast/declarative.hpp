// The declarative part of a prompt: its sentences minus questions and requests.
#pragma once

#include <string>
#include <string_view>

namespace director_fast {

// The sentences of `text` (split_sentences of segmenter.hpp) that assert something, each stripped
// of Python whitespace (str.isspace) and joined with one space. Dropped: sentences ending in '?'
// and sentences whose first whitespace-delimited word -- stripped of the characters "'([{ at both
// ends, lower-cased and stripped of ,:;.! at its end -- is a request or question word ("tell",
// "explain", "what", "please", "can", "continue", ...; the list in declarative.cpp) -- except that
// when that word ends with ':' the rest of the sentence after it is kept ("Summarize: <material>").
// "" when nothing remains.
// The same result as the Python reference director_fast.core.scorer._declarative_part_py.
std::u32string declarative_part(std::u32string_view text);

}  // namespace director_fast
