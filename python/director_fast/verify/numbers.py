"""Number mentions in English text: the one number parser of the package.

The lexical NLI (:class:`director_fast.verify.nli.LexicalNLI`) compares the numbers of a hypothesis with
those of its premise through this parser; :func:`find_numbers` exposes it. The work is done in C++
(``director_fast._core.find_numbers``, GIL released); this module owns the public names.

Recognised (each mention is one contiguous span of the text):

* digits with thousands separators (``"2,500"``, ``"1,234,567.5"``: groups of exactly three digits
  after a first group of one to three, so ``"2,5"`` and ``"2019,2020"`` are two numbers each) and
  decimals (``"2.5"``);
* percentages: ``"25%"``, ``"25 %"``, ``"25 percent"``, ``"25 per cent"``;
* currency before or after the number: ``"$12"``, ``"€12"``, ``"£49"``, ``"US$5"``,
  ``"EUR 12"``, ``"NOK 450"``, ``"12€"``, ``"12 euros"``, ``"49 pounds"``, ``"450 kroner"``;
* units, attached, spaced or hyphenated: ``"8kg"``, ``"8 kg"``, ``"eight kilograms"``,
  ``"30-day"``, ``"24-hour"``, ``"50 m²"``, ``"15 sq ft"``, ``"30°C"``; the symbols ``g``, ``m``
  and ``l`` / ``L`` attached or after one space (``"500g"``, ``"1,500 g"``, ``"2,000 m"``,
  ``"1.5 L"``; ``"5G"`` and ``"5 G"`` are no grams, ``"5m"`` is five million);
* multipliers: ``"3bn"``, ``"$10M"``, ``"5k"``, ``"2.5 k"`` / ``"2.5 K"`` (a spaced ``k`` is a
  thousand; a spaced ``m`` stays the metre), ``"3 billion"``, ``"2.5 million"``, ``"2.5 bn"``,
  ``"two hundred thousand"``, ``"3 dozen"``, ``"a million"``;
* written numbers ``"zero"`` .. ``"nineteen"``, ``"twenty"`` .. ``"ninety"`` with an optional unit
  word (``"twenty-five"``, ``"twenty five"``), ``"three hundred and twenty"``, ``"hundred"``,
  ``"dozen"``, ``"half"``, ``"double"``, ``"twice"``, ``"triple"`` (also ``"one"``, as in "one of
  them": it is a number here; the lexical NLI does not count it); written decimals with
  ``"point"`` (``"ninety-nine point nine percent"``: 99.9, ``"seven point two million"``); pounds,
  euros and dollars with their pence or cents (``"sixteen pounds fifty"``: 16.5,
  ``"three dollars and twenty-five cents"``: 3.25); ``"290 US dollars"``;
* article and fraction forms: ``"an hour"``, ``"a day"``, ``"a week"``, ``"a fortnight"`` (value 1;
  not after a number, ``"once"`` or ``"times"``: ``"$20 an hour"``, ``"twice a day"``, ``"7 days a
  week"`` are rates), ``"an hour and a half"`` (1.5 ``"h"``), ``"half an hour"`` (0.5 ``"h"``),
  ``"half a kilo"``, ``"half a dozen"`` (6), ``"half a million"``, ``"a quarter of an hour"`` and
  ``"quarter of an hour"`` (0.25 ``"h"``), ``"three-quarters of an hour"`` (0.75 ``"h"``),
  ``"a quarter of a mile"``; a whole number and a fraction before a unit or scale word:
  ``"two and a half hours"`` (2.5 ``"h"``), ``"2 and a quarter miles"``, ``"one and three-quarter
  hours"``, ``"two and a half million"`` (``"4 and a half"`` alone is two mentions);
  ``"a day and a half"``, ``"a year and a half"``, ``"a month and a half"`` (1.5);
* compound durations, one mention in the smaller unit: ``"1 hour 30 minutes"`` (90 ``"min"``),
  ``"an hour and 15 minutes"`` (75 ``"min"``), ``"2 weeks and 3 days"`` (17 ``"day"``), when the
  second part is less than one of the first part's unit; nights, months and years are never
  joined, nor unit words used as adjectives (``"a 2 hour and 30 minute slot"``: two mentions);
* times of day as minutes since midnight with unit ``"time"``: ``"08:30"`` (510), ``"17:30"`` and
  ``"5:30 pm"`` (both 1050), ``"5.30pm"``, ``"9 am"``, ``"9am"``, ``"9 a.m."`` (540), ``"noon"``,
  ``"midday"``, ``"12 pm"`` (720), ``"midnight"``, ``"12 am"``, ``"24:00"`` (0). A time range
  with one meridiem (joined by ``-``, ``to``, ``until``, ``till`` or ``between ... and``) gives the
  other side its half-day when that side is an unmarked ``"6:30"``, a bare ``"6"`` or a ``"6.30"``:
  an unmarked start is the last such time before the end (``"6:30 to 9 pm"``: 1110 and 1260;
  ``"11 to 2 pm"``: 660 and 840; ``"9 to midnight"``: 1260 and 0), an unmarked end the first such
  time after the start (``"9 am to 5:30"``: 540 and 1050). Without a meridiem nothing is inferred
  (``"9 to 5:30"``: 9 and 330), and a 24-hour reading (``"08:30"``, ``"17:30"``) is never an anchor;
* clock phrases as times of day: ``"half past three"`` (210), ``"a quarter past seven"``,
  ``"quarter to eight"`` (465), ``"twenty-five past two"``, ``"seven o'clock"``; ``"ten to nine"``
  and the other "five / ten / twenty / twenty-five to" forms only after ``"at"``, ``"by"``,
  ``"around"``, ``"about"``, ``"before"``, ``"after"``, ``"until"``, ``"till"`` or ``"since"`` (never
  after ``"from"`` or ``"between"``: ``"from ten to nine"`` is a range) or with a part of the day;
  British ``"half seven"`` (450) after one of those words or ``"from"``, ``"to"``, ``"between"``,
  ``"and"``. A clock reading followed by ``"in the morning"`` is am, by ``"in the afternoon"`` /
  ``"in the evening"`` pm, by ``"at night"`` pm for 5..11, am for 1..4 and midnight for 12:
  ``"3:30 in the afternoon"`` (930), ``"9 in the evening"`` (1260), ``"nine in the evening"`` after
  one of the words above. Without a meridiem or part of the day the half-day is open
  (:attr:`NumberMention.half_day_open`; a range with one meridiem fixes it as for ``"6:30"``);
* shares written as fractions, as percentages (unit ``"%"``, the span being the fraction words):
  ``"half of"``, ``"half the"`` / ``"half your"`` (a determiner after ``"half"``), ``"half price"``
  (50), ``"a quarter of"`` (25), ``"three quarters of"`` / ``"three-quarters of"`` (75), ``"a third
  of"`` (100/3), ``"two-thirds of"`` (200/3), ``"one-fifth of"`` (20), ``"three-tenths of"``, ``"an
  eighth of"``: numerator ``"a"`` / ``"an"`` / ``"one"`` .. ``"nine"`` below the denominator (2, 3, 4,
  5, 8, 10), singular after one, plural after more. Not when ``"of"`` is followed by a unit
  (``"three-quarters of an hour"`` is 0.75 ``"h"``, ``"a quarter of a mile"`` 0.25 ``"mile"``), nor
  after ``"first"``, ``"last"``, ``"next"``, ``"past"``, ``"previous"``, ``"following"`` (``"the last
  three quarters of the year"``); before a number the fraction is a plain factor without unit
  (``"half of the £9.50"``: 0.5; ``"two-thirds of 300"``: 0.666...);
* ranges and dates split into their numbers: ``"1990-1995"``, ``"2023-05-12"``,
  ``"12/05/2020"``, ``"12.05.2020"`` (a dotted run of three or more parts is never a decimal). In a
  range joined by ``-``, ``–`` or ``to`` a unit or multiplier written once is shared:
  ``"5-10 minutes"`` gives 5 and 10 ``"min"``, ``"$3-4 billion"`` gives 3e9 and 4e9 ``"usd"``.

A sign right before a number makes it negative and is part of the mention (``"-5 °C"``,
``"−200"`` with U+2212, ``"-$200"``, ``"minus 18"``), when the sign follows the start of the text, a
space or an opening bracket (so ranges ``"5-10"``, dates and ``"covid-19"`` keep positive numbers).
Digits inside a word (``"covid19"``, ``"A4"``, ``"mp3"``) are not numbers. A digit run takes an
attached letter suffix whatever it is (``"1st"``, ``"3D"``, ``"1990s"``: values 1, 3, 1990, no
unit). Values are never converted between units (``"2 hours"`` is 2 ``"h"``, not 120 ``"min"``);
:attr:`NumberMention.quantity` is the value in the base unit of its dimension, what the lexical NLI
compares: durations in minutes (``"s"`` ``"min"`` ``"h"`` ``"day"`` ``"week"`` ``"fortnight"``;
nights are never converted), calendar spans in months (``"year"`` is 12 ``"month"``; months are
never turned into days), mass in grams (``"mg"`` ``"g"`` ``"kg"``), length
in metres (``"mm"`` ``"cm"`` ``"m"`` ``"km"``), volume in millilitres (``"ml"`` ``"l"``); any other
unit is its own base (:data:`BASE_UNITS`).
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass, replace

from director_fast import _core
from director_fast.errors import InputTypeError

__all__ = ["NumberMention", "find_numbers", "ascii_digits", "UNITS", "BASE_UNITS", "CURRENCY_UNITS"]


def ascii_digits(text: str) -> str:
    """``text`` with every non-ASCII digit (full-width "９", Arabic-Indic "٩", Devanagari "९",
    mathematical "𝟗", superscript "⁹", circled "⑨": ``str.isdigit``) replaced by its ASCII digit,
    one code point for one, so offsets into ``text`` stay valid. The number rules read ASCII
    digits; an answer typed with a Japanese input method writes "９"."""
    if text.isascii():
        return text
    return "".join(_ascii_digit(c) if not c.isascii() and c.isdigit() else c for c in text)


def _ascii_digit(c: str) -> str:
    d = unicodedata.digit(c, None)
    return c if d is None else str(d)


#: The unit keys of money (ISO codes, lower-cased), as :func:`find_numbers` reports them.
CURRENCY_UNITS: frozenset[str] = frozenset(
    {"usd", "eur", "gbp", "nok", "sek", "dkk", "chf", "jpy", "cad", "aud", "nzd", "inr"})

#: Every canonical unit key :func:`find_numbers` reports ("" when a number has no unit). Words and
#: symbols of one quantity share a key: ``"€12"``, ``"EUR 12"`` and ``"12 euros"`` are all
#: ``"eur"``; ``"pounds"`` is money (``"gbp"``; the weight is ``"lb"`` / ``"lbs"``).
UNITS: frozenset[str] = frozenset({
    "",
    "%",          # %, percent, per cent, pct, percentage
    "time",       # a time of day (value: minutes since midnight)
    # currencies (CURRENCY_UNITS): symbols, ISO codes before or after the number, and currency words
    *CURRENCY_UNITS,
    # durations
    "s", "min", "h", "day", "night", "week", "fortnight", "month", "year",
    # weights
    "g", "kg", "mg", "lb",
    # lengths, areas, volumes
    "mm", "cm", "m", "km", "in", "ft", "mile", "sqft", "sqm", "sqkm", "ml", "l",
    # data, energy, others
    "kb", "mb", "gb", "tb", "kwh", "deg", "times",
})


#: Unit key -> (base unit key, factor): ``quantity = value * factor`` (the table of
#: ``base_of`` in cpp/src/numbers.cpp, which the lexical NLI compares by). Keys not listed are their
#: own base (factor 1): nights, pounds, feet, currencies, ``"%"``, ``"time"``, ``""``.
BASE_UNITS: dict[str, tuple[str, float]] = {
    "s": ("min", 1 / 60), "min": ("min", 1.0), "h": ("min", 60.0), "day": ("min", 1440.0),
    "week": ("min", 10080.0), "fortnight": ("min", 20160.0),
    "mg": ("g", 1e-3), "g": ("g", 1.0), "kg": ("g", 1000.0),
    "mm": ("m", 1e-3), "cm": ("m", 1e-2), "m": ("m", 1.0), "km": ("m", 1000.0),
    "ml": ("ml", 1.0), "l": ("ml", 1000.0),
    "month": ("month", 1.0), "year": ("month", 12.0),
}
# divisors for the sub-units, so that "2,000 mm" is exactly 2 m (as in the C++ table)
_DIVISORS = {"s": 60.0, "mg": 1000.0, "mm": 1000.0, "cm": 100.0}


@dataclass(frozen=True)
class NumberMention:
    """One number in a text.

    Attributes:
        start, end: code-point span in the text (Python string indices, end exclusive):
            ``text[start:end] == surface``.
        value: the number with its multiplier applied (``"3 billion"`` -> 3e9, ``"2,500"`` ->
            2500.0, ``"twenty-five"`` -> 25.0); for unit ``"time"``, minutes since midnight
            (``"5:30 pm"`` -> 1050.0). ``inf`` for a digit run beyond the float range.
        unit: canonical unit key, one of :data:`UNITS` (``""`` when none).
        surface: the mention as written, currency, multiplier and unit included (``"$3 billion"``,
            ``"8 kg"``, ``"EUR 12"``).
        half_day_open: True for a time of day whose half-day is not stated: an unmarked
            ``"7:15"`` or ``"12:30"`` (hour 1..12 without a leading zero, no am / pm, not fixed by
            a marked time across a range), ``"half past three"``, ``"seven o'clock"``. Its
            :attr:`value` is the reading as written (``"7:15"``: 435.0; hour 12 reads as 12:xx)
            and it stands as well for the reading 720 minutes away (19:15). False for
            ``"07:15"``, ``"19:15"``, ``"7:15 am"``, ``"noon"``, ``"half past three in the
            afternoon"`` and for every mention that is not a time.

    Derived (properties, not fields): :attr:`base_unit` and :attr:`quantity`, the value in the base
    unit of its dimension (``"2 weeks"`` and ``"14 days"``: 20160 ``"min"``).
    """

    start: int
    end: int
    value: float
    unit: str
    surface: str
    half_day_open: bool = False

    @property
    def base_unit(self) -> str:
        """The base unit of :attr:`unit`'s dimension: ``"min"``, ``"g"``, ``"m"``, ``"ml"``, or
        :attr:`unit` itself when it is not converted (``"night"``, ``"usd"``, ``""``)."""
        base = BASE_UNITS.get(self.unit)
        return base[0] if base else self.unit

    @property
    def quantity(self) -> float:
        """:attr:`value` in :attr:`base_unit` (``"half an hour"``: 30.0; ``"1.5 kg"``: 1500.0;
        ``"3 months"``: 3.0)."""
        div = _DIVISORS.get(self.unit)
        if div is not None:
            return self.value / div
        base = BASE_UNITS.get(self.unit)
        return self.value * base[1] if base else self.value


def find_numbers(text: str) -> list[NumberMention]:
    """Every number mention of ``text``, in text order, non-overlapping.

    The module docstring lists what is recognised. Cost: linear in ``len(text)`` (a few ns per
    character); the GIL is released during the parse. Thread-safe.

    Args:
        text: any str (English number words; digits and symbols in any script's text; digits of
            other scripts, such as full-width "９" or Arabic-Indic "٩", read as their ASCII digit).

    Returns:
        ``list[NumberMention]``; offsets are in code points.

    Raises:
        InputTypeError: ``text`` is not a str (e.g. bytes).
        ValidationError: ``text`` holds a lone surrogate (U+D800..U+DFFF), which no UTF encoding
            can carry.

    Examples:
        >>> [(m.value, m.unit) for m in find_numbers("€12, EUR 12 and 12 euros")]
        [(12.0, 'eur'), (12.0, 'eur'), (12.0, 'eur')]
        >>> [(m.value, m.unit) for m in find_numbers("Open 08:30-17:30 (5:30 pm on Fridays)")]
        [(510.0, 'time'), (1050.0, 'time'), (1050.0, 'time')]
        >>> find_numbers("Le café coûte 3 €.")[0]
        NumberMention(start=14, end=17, value=3.0, unit='eur', surface='3 €', half_day_open=False)
        >>> [(m.surface, m.value) for m in find_numbers("twenty-five thousand pounds, 3bn, 2,500")]
        [('twenty-five thousand pounds', 25000.0), ('3bn', 3000000000.0), ('2,500', 2500.0)]
        >>> [(m.value, m.unit, m.quantity, m.base_unit) for m in find_numbers("2 weeks or 14 days")]
        [(2.0, 'week', 20160.0, 'min'), (14.0, 'day', 20160.0, 'min')]
        >>> [(m.surface, m.value, m.half_day_open) for m in find_numbers("at 7:15, 07:15 or half past seven")]
        [('7:15', 435.0, True), ('07:15', 435.0, False), ('half past seven', 450.0, True)]
        >>> [(m.surface, m.value, m.unit) for m in find_numbers("three-quarters of the fee")]
        [('three-quarters', 75.0, '%')]
    """
    if not isinstance(text, str):
        raise InputTypeError(f"text must be a str, got {type(text).__name__}")
    return list(_parsed(text))


def same_value(a: float, b: float) -> bool:
    """Whether two parsed values are the same number: equal within a relative tolerance of 1e-12
    (of the larger magnitude, at least 1.0), which absorbs the rounding of unit conversions
    ("1.5 kg" and "1,500 g") but never equates two different integers below 2**53
    ("5551234567" and "5551234568"). The one tolerance of the claim rules and the lexical
    backend (the C++ ``same_value``). Thread-safe."""
    return _core.same_value(float(a), float(b))


def long_digits_differ(a: str, b: str) -> bool:
    """Whether two number surfaces hold different digits when one of them has more than 15
    digits, beyond what a float64 value tells apart (order, tracking and account numbers:
    "9400111899223197428490" and "...491" parse to the same float). Separators are ignored;
    False when both have 15 digits or fewer (compare their values); digits of any script count
    (:func:`ascii_digits`). Thread-safe."""
    return _core.long_digits_differ(ascii_digits(a), ascii_digits(b))


def without_numbers(text: str) -> str:
    """``text`` with each number mention (:func:`find_numbers`) replaced by a space: the words a
    number is about ("We have about 1,400 employees." -> "We have about   employees.")."""
    for m in reversed(find_numbers(text)):
        text = f"{text[:m.start]} {text[m.end:]}"
    return text


@functools.lru_cache(maxsize=8192)  # pure; the claim rules ask about the same texts many times
def _parsed(text: str) -> tuple[NumberMention, ...]:
    """The mentions of :func:`find_numbers`, immutable (so one parse can be shared). The parser
    reads ASCII digits; non-ASCII ones are folded first (:func:`ascii_digits`, one code point for
    one, so the offsets hold) and each surface is taken from ``text`` as written."""
    folded = ascii_digits(text)
    mentions = tuple(NumberMention(*m) for m in _core.find_numbers(folded))
    if folded is text:
        return mentions
    return tuple(replace(m, surface=text[m.start:m.end]) for m in mentions)
