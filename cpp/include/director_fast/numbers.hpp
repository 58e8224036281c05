// Number mentions in English text: the one number parser of the package (the lexical NLI's
// tokenizer uses it; director_fast.numbers exposes it).
//
// Recognised (each mention is one contiguous span of the text):
//   - digits with thousands separators ("2,500", "1,234,567.5": groups of exactly three digits
//     after a first group of one to three; "2,5" and "2019,2020" are two numbers each) and
//     decimals ("2.5");
//   - percentages: "25%", "25 %", "25 percent", "25 per cent", "25 pct";
//   - currency before the number ("$12", "€12", "£49", "¥300", "₹50", "US$5", "EUR 12",
//     "NOK 450") or after it ("12€", "12 EUR", "12 euros", "49 pounds", "450 kroner");
//   - units after the number, attached, spaced or hyphenated ("8kg", "8 kg", "30-day", "24-hour",
//     "30°C"; the symbols "g", "m" and "l" / "L" attached or after one space: "500g", "1,500 g",
//     "2,000 m", "1.5 L", but "5G" and "5 G" are no grams and "5m" is five million);
//   - multipliers: attached ("3bn", "5k", "$10M": k m mn b bn tn) or as words ("3 billion",
//     "2.5 million", "3 hundred", "two hundred thousand", "3 dozen");
//   - written numbers "zero".."nineteen", the tens "twenty".."ninety" with an optional unit word
//     ("twenty-five", "twenty five"), "hundred", "dozen", "half", "double", "twice", "triple",
//     "a hundred", "a dozen", "a million", "three hundred and twenty"; written decimals with
//     "point" ("ninety-nine point nine": 99.9); pounds, euros and dollars with their pence or cents
//     ("sixteen pounds fifty": 16.5, "three dollars and twenty-five cents"); "290 US dollars";
//   - article and fraction forms: "an hour", "a day", "a week", "a fortnight" (value 1; not after a
//     number mention, "once" or "times": "$20 an hour", "twice a day", "7 days a week" are rates),
//     "an hour and a half" (1.5 h), "half an hour" (0.5 h), "half a kilo", "half a dozen" (6),
//     "half a million", "a quarter of an hour" (0.25 h), "quarter of an hour", "three-quarters of
//     an hour" (0.75 h), "a quarter of a mile"; "two and a half hours" (2.5 h), "2 and a quarter
//     miles", "one and three-quarter hours", "two and a half million" (a unit or scale word must
//     follow), "a day and a half", "a year and a half", "a month and a half";
//   - compound durations: "1 hour 30 minutes", "an hour and 15 minutes", "2 weeks and 3 days" are
//     one mention in the smaller unit (90 "min", 75 "min", 17 "day") when the second part is less
//     than one of the first's unit; nights, months and years are never joined, nor adjectives ("a
//     2 hour and 30 minute slot");
//   - clock phrases: "half past three", "a quarter past seven", "quarter to eight", "twenty past
//     six", "ten to nine" (the "five / ten / twenty / twenty-five to" forms only after "at", "by",
//     "around", "about", "before", "after", "until", "till" or "since", or with a part of the
//     day), "seven o'clock", British "half seven" (7:30; only after one of those words or "from"),
//     minutes "five", "ten", "quarter", "twenty", "twenty-five", "half" and "past" / "after" /
//     "to", hours "one".."twelve" or 1..12 in digits; any clock reading may be followed by "in the
//     morning" (am), "in the afternoon" / "in the evening" (pm) or "at night" (pm for 5..11, am
//     for 1..4, midnight for 12), which fixes its half-day ("3:30 in the afternoon": 15:30; "9 in
//     the evening": 21:00; "nine in the evening" after one of the words above); without them the
//     half-day is open (half_day_open, value the reading as written: "half past three" 210);
//   - shares written as fractions, as percentages (unit "%"): "half of", "a third of", "one-third
//     of", "two-thirds of", "a quarter of", "three quarters of", "three-quarters of", "one-fifth
//     of", "three-tenths of", "an eighth of" (numerator "a" / "an" / "one" .. "nine", below the
//     denominator; a plural after a numerator above one), "half the" / "half your" ... (a
//     determiner after "half": "half the adult fare") and "half price" / "half-price" (50); the
//     span is the fraction words ("three-quarters");
//     not when "of" is followed by a unit ("three-quarters of an hour" stays 0.75 h, "a quarter
//     of a mile" 0.25 mile), nor after "first", "last", "next", "past", "previous" or
//     "following" ("the last three quarters of the year"); before a number ("half of the £9.50",
//     "two-thirds of 300 seats") the fraction is a plain value (0.5, 2/3, unit ""), a factor;
//   - times of day: "08:30", "17:30", "17:30:15", "5:30 pm", "5.30pm", "9 am", "9am", "9 a.m.",
//     "noon", "midday", "midnight", "12 noon": value = minutes since midnight, unit "time"
//     ("17:30" == "5:30 pm" == 1050; "12 am" == "midnight" == "24:00" == 0; "12 pm" == "noon" ==
//     720); in a range joined by "-", "to", "until", "till" or "between ... and" with one meridiem,
//     the marked side fixes the half-day of an unmarked "6:30", a bare "6" or a "6.30" on the other
//     side: an unmarked start is the last such time before the end ("6:30 to 9 pm": 18:30, "11 to
//     2 pm": 11:00), an unmarked end the first after the start ("9 am to 5:30": 17:30); "9 to 5:30"
//     (no meridiem) and "08:30" / "17:30" (24-hour readings) keep their values;
//   - ranges and dates are split into their numbers ("1990-1995", "2023-05-12", "12/05/2020",
//     "12.05.2020"; a dotted run of three or more parts is never a decimal); in a range joined by
//     "-", "–" or "to" the unit and multiplier of one side are shared ("5-10 minutes": 5 min and
//     10 min; "$3-4 billion": 3e9 usd and 4e9 usd; "10-15%": 10 % and 15 %).
// Digits inside a word ("covid19", "A4", "mp3") are not numbers; a digit run that starts a number
// takes an attached letter suffix whatever it is ("1st", "3D": value 1 and 3, no unit).
//
// Canonical unit keys (NumberMention::unit): "" (none), "%", "time", currencies "usd" "eur" "gbp"
// "nok" "sek" "dkk" "chf" "jpy" "cad" "aud" "nzd" "inr", durations "s" "min" "h" "day" "night"
// "week" "fortnight" "month" "year", weights "g" "kg" "mg" "lb", lengths "mm" "cm" "m" "km" "in" "ft" "mile",
// areas "sqft" "sqm" "sqkm", volumes "ml" "l", data "kb" "mb" "gb" "tb", energy "kwh", and "deg",
// "times". Words and symbols of one quantity share a key: "€12" / "EUR 12" / "12 euros" are all
// 12 "eur"; "pounds" is money ("gbp"; the weight is "lb" / "lbs"); "30 minutes" is 30 "min".
// Values are not converted between units ("2 hours" is 2 "h", not 120 "min"); `quantity` is the
// value in the base unit of its dimension, for comparison: durations in minutes ("s" "min" "h"
// "day" "week" "fortnight"; nights are never converted; a year is 12 months), mass in grams ("mg"
// "g" "kg"), length in metres ("mm" "cm" "m" "km"), volume in millilitres ("ml" "l"); any other
// unit is its own base ("2 weeks" and "14 days": quantity 20160, base_unit "min"; "1.5 kg" and
// "1,500 g": 1500 "g"; "3 months": 3 "month").
//
// Cost: linear in the text length (a bounded look-ahead per word). Never throws on any byte
// string: invalid UTF-8 bytes are treated as unknown characters. Thread-safe (no shared state
// besides constant tables).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace director_fast {

struct NumberMention {
  std::size_t start = 0;  // UTF-8 byte offset of the first byte of the mention
  std::size_t end = 0;    // UTF-8 byte offset one past the last byte
  double value = 0.0;     // the number with its multiplier applied; minutes since midnight for "time"
  std::string unit;       // canonical unit key (see above); "" when none
  std::string surface;    // text[start, end)
  // The value before the last multiplier ("3 billion": 3; "two hundred": 2); == value when there
  // is none. For a time, the hour as written ("5:30 pm": 5, "17:30": 17, "noon": 12).
  double mantissa = 0.0;
  bool written = false;   // spelled out in words ("two", "twenty-five thousand", "noon")
  // The value in the base unit of its dimension ("2 weeks": 20160) and that unit's key ("min",
  // "g", "m", "ml"; any other unit, "" included, is its own base: quantity == value).
  double quantity = 0.0;
  std::string base_unit;
  // A time of day whose half-day is not stated: an unmarked "7:15" or "12:30" (hour 1..12
  // without a leading zero, no am / pm, not fixed by a marked time across a range), "half past
  // three", "seven o'clock". `value` is the reading as written (hour 12 reads as 12:xx); the
  // other reading is 720 minutes away. False for "07:15", "19:15", "7:15 am", "noon", "half past
  // three in the afternoon" and every mention that is not a time.
  bool half_day_open = false;
};

// Every number mention of `text`, in text order, non-overlapping.
std::vector<NumberMention> find_numbers(std::string_view text);

// Whether a lower-case word qualifies a period after a number ("5 working days", "two business
// days", "one calendar month"): the period is then the number's unit, and the words stay words of
// the text for the lexical NLI's coverage.
bool is_period_qualifier(std::string_view w);

// Whether two parsed values are the same number: equal within a relative 1e-12, which absorbs the
// rounding of unit conversions ("1.5 kg" / "1,500 g") but never equates two different integers
// below 2^53 ("5551234567" / "5551234568"). The one tolerance of the lexical NLI and of
// director_fast.number_alignment (numbers.VALUE_TOLERANCE).
bool same_value(double a, double b);

// Whether two number surfaces hold different digits (separators ignored) when at least one of them
// has more than 15 digits, beyond what a double tells apart (order, tracking and account numbers).
// False when both have 15 digits or fewer: compare their values instead.
bool long_digits_differ(std::string_view a, std::string_view b);

// Whether two times of day (minutes since midnight) may be the same clock time: equal, or, when
// either one's half-day is open (NumberMention::half_day_open), 720 minutes apart ("7:15" is
// 07:15 or 19:15; "7:15 am" and "19:15" are not the same). The one rule of the lexical NLI and of
// director_fast.number_alignment.same_quantity.
bool same_time_of_day(double a, bool a_open, double b, bool b_open);

// Whether two percentages state the same share: equal (same_value), or one of them
// is a third or two thirds (100/3, 200/3, written "a third of", "two-thirds of") and the other is
// within half a percentage point of it ("33%", "33.3%", "67%", "66.7%"; not "34%" or "66%").
bool same_share(double a, double b);

}  // namespace director_fast
