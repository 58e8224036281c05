"""Number mentions in English text: the one number parser of the package.

The lexical NLI (:class:`director_fast.nli.LexicalNLI`) compares the numbers of a hypothesis with
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
  ``"30-day"``, ``"24-hour"``, ``"50 m²"``, ``"15 sq ft"``, ``"30°C"``;
* multipliers: ``"3bn"``, ``"$10M"``, ``"5k"``, ``"3 billion"``, ``"2.5 million"``,
  ``"two hundred thousand"``, ``"3 dozen"``, ``"a million"``;
* written numbers ``"zero"`` .. ``"nineteen"``, ``"twenty"`` .. ``"ninety"`` with an optional unit
  word (``"twenty-five"``, ``"twenty five"``), ``"three hundred and twenty"``, ``"hundred"``,
  ``"dozen"``, ``"half"``, ``"double"``, ``"twice"``, ``"triple"`` (also ``"one"``, as in "one of
  them": it is a number here; the lexical NLI does not count it);
* times of day as minutes since midnight with unit ``"time"``: ``"08:30"`` (510), ``"17:30"`` and
  ``"5:30 pm"`` (both 1050), ``"5.30pm"``, ``"9 am"``, ``"9am"``, ``"9 a.m."`` (540), ``"noon"``,
  ``"midday"``, ``"12 pm"`` (720), ``"midnight"``, ``"12 am"``, ``"24:00"`` (0);
* ranges and dates split into their numbers: ``"1990-1995"``, ``"2023-05-12"``,
  ``"12/05/2020"``, ``"12.05.2020"`` (a dotted run of three or more parts is never a decimal). In a
  range joined by ``-``, ``–`` or ``to`` a unit or multiplier written once is shared:
  ``"5-10 minutes"`` gives 5 and 10 ``"min"``, ``"$3-4 billion"`` gives 3e9 and 4e9 ``"usd"``.

Digits inside a word (``"covid19"``, ``"A4"``, ``"mp3"``) are not numbers. A digit run takes an
attached letter suffix whatever it is (``"1st"``, ``"3D"``, ``"1990s"``: values 1, 3, 1990, no
unit). Values are never converted between units (``"2 hours"`` is 2 ``"h"``, not 120 ``"min"``).
"""

from __future__ import annotations

from dataclasses import dataclass

from director_fast import _core
from director_fast.errors import InputTypeError

__all__ = ["NumberMention", "find_numbers", "UNITS"]

#: Every canonical unit key :func:`find_numbers` reports ("" when a number has no unit). Words and
#: symbols of one quantity share a key: ``"€12"``, ``"EUR 12"`` and ``"12 euros"`` are all
#: ``"eur"``; ``"pounds"`` is money (``"gbp"``; the weight is ``"lb"`` / ``"lbs"``).
UNITS: frozenset[str] = frozenset({
    "",
    "%",          # %, percent, per cent, pct, percentage
    "time",       # a time of day (value: minutes since midnight)
    # currencies: symbols, ISO codes before or after the number, and currency words
    "usd", "eur", "gbp", "nok", "sek", "dkk", "chf", "jpy", "cad", "aud", "nzd", "inr",
    # durations
    "s", "min", "h", "day", "night", "week", "month", "year",
    # weights
    "g", "kg", "mg", "lb",
    # lengths, areas, volumes
    "mm", "cm", "m", "km", "in", "ft", "mile", "sqft", "sqm", "sqkm", "ml", "l",
    # data, energy, others
    "kb", "mb", "gb", "tb", "kwh", "deg", "times",
})


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
    """

    start: int
    end: int
    value: float
    unit: str
    surface: str


def find_numbers(text: str) -> list[NumberMention]:
    """Every number mention of ``text``, in text order, non-overlapping.

    The module docstring lists what is recognised. Cost: linear in ``len(text)`` (a few ns per
    character); the GIL is released during the parse. Thread-safe.

    Args:
        text: any str (English number words; digits and symbols in any script's text).

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
        NumberMention(start=14, end=17, value=3.0, unit='eur', surface='3 €')
        >>> [(m.surface, m.value) for m in find_numbers("twenty-five thousand pounds, 3bn, 2,500")]
        [('twenty-five thousand pounds', 25000.0), ('3bn', 3000000000.0), ('2,500', 2500.0)]
    """
    if not isinstance(text, str):
        raise InputTypeError(f"text must be a str, got {type(text).__name__}")
    return [NumberMention(*m) for m in _core.find_numbers(text)]
