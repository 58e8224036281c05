"""Number mentions (director_fast.verify.numbers / _core.find_numbers): a table of known answers, code-point
offsets after non-ASCII text, errors, and Hypothesis properties (offsets, surfaces, no crash)."""

from __future__ import annotations

import math
import os
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _concurrency import run_threads
from director_fast import _core
from director_fast.errors import InputTypeError, ValidationError
from director_fast.verify.numbers import BASE_UNITS, UNITS, NumberMention, ascii_digits, find_numbers, long_digits_differ

# (text, [(surface, value, unit), ...]): every mention of the text, in order.
TABLE = [
    # written decimals, pence and cents, "US dollars"
    ("ninety-nine point nine percent uptime", [("ninety-nine point nine percent", 99.9, "%")]),
    ("seven point two million people", [("seven point two million", 7.2e6, "")]),
    ("sixteen pounds fifty a month", [("sixteen pounds fifty", 16.5, "gbp")]),
    ("three dollars and twenty-five cents", [("three dollars and twenty-five cents", 3.25, "usd")]),
    ("five pounds and ten people", [("five pounds", 5, "gbp"), ("ten", 10, "")]),
    ("two hundred and ninety US dollars per user", [("two hundred and ninety US dollars", 290, "usd")]),
    ("from my point of view", []),
    # a sign right before a number (never inside a range, a date or a word)
    ("It is -5 °C, or minus 18 degrees, and −200 people owe -$200 (-7%).",
     [("-5 °C", -5, "deg"), ("minus 18 degrees", -18, "deg"), ("−200", -200, ""), ("-$200", -200, "usd"),
      ("-7%", -7, "%")]),
    ("5-10 minutes on 2023-05-12", [("5", 5, "min"), ("10 minutes", 10, "min"), ("2023", 2023, ""), ("05", 5, ""),
                                     ("12", 12, "")]),
    # currencies: each symbol, code and word form maps to one key
    ("The fee is $12.", [("$12", 12, "usd")]),
    ("It costs €12 a month.", [("€12", 12, "eur")]),
    ("It costs EUR 12 a month.", [("EUR 12", 12, "eur")]),
    ("It costs 12 euros a month.", [("12 euros", 12, "eur")]),
    ("It costs 12€ or 12 €.", [("12€", 12, "eur"), ("12 €", 12, "eur")]),
    ("Rent is £49.", [("£49", 49, "gbp")]),
    ("Rent is 49 pounds or GBP 49.", [("49 pounds", 49, "gbp"), ("GBP 49", 49, "gbp")]),
    ("A bag costs NOK 450.", [("NOK 450", 450, "nok")]),
    ("A bag costs 450 kroner (450 NOK).", [("450 kroner", 450, "nok"), ("450 NOK", 450, "nok")]),
    ("US$5, USD 5 or 5 dollars", [("US$5", 5, "usd"), ("USD 5", 5, "usd"), ("5 dollars", 5, "usd")]),
    ("¥300 or ₹50", [("¥300", 300, "jpy"), ("₹50", 50, "inr")]),
    ("It costs $12.50.", [("$12.50", 12.5, "usd")]),
    # units, spelled out, attached, hyphenated
    ("It weighs 8 kg.", [("8 kg", 8, "kg")]),
    ("It weighs eight kilograms.", [("eight kilograms", 8, "kg")]),
    ("Add 500g of flour, not 8kg.", [("500g", 500, "g"), ("8kg", 8, "kg")]),
    ("A 5G network", [("5G", 5, "")]),
    ("Allow 30 minutes or 30 mins.", [("30 minutes", 30, "min"), ("30 mins", 30, "min")]),
    ("It takes 2 hours (2h).", [("2 hours", 2, "h"), ("2h", 2, "h")]),
    ("24-hour access and a 30-day trial", [("24-hour", 24, "h"), ("30-day", 30, "day")]),
    ("3 weeks, 6 months, 5 years, 3 nights",
     [("3 weeks", 3, "week"), ("6 months", 6, "month"), ("5 years", 5, "year"), ("3 nights", 3, "night")]),
    ("5 lbs, 10 km, 2.4 metres", [("5 lbs", 5, "lb"), ("10 km", 10, "km"), ("2.4 metres", 2.4, "m")]),
    ("A 50 m² flat; a 15 sq ft locker", [("50 m²", 50, "sqm"), ("15 sq ft", 15, "sqft")]),
    ("It was 30°C.", [("30°C", 30, "deg")]),
    # percentages
    ("25%, 25 %, 25 percent, 25 per cent",
     [("25%", 25, "%"), ("25 %", 25, "%"), ("25 percent", 25, "%"), ("25 per cent", 25, "%")]),
    ("Twenty percent agreed.", [("Twenty percent", 20, "%")]),
    # thousands separators and decimals
    ("Population 2,500; budget 1,234,567.89", [("2,500", 2500, ""), ("1,234,567.89", 1234567.89, "")]),
    ("Lists: 2,5 and 2019,2020", [("2", 2, ""), ("5", 5, ""), ("2019", 2019, ""), ("2020", 2020, "")]),
    ("The rate is 0.75.", [("0.75", 0.75, "")]),
    # multipliers
    ("Revenue was $3 billion ($3bn).", [("$3 billion", 3e9, "usd"), ("$3bn", 3e9, "usd")]),
    ("2.5 million people, 5k runs, $10M", [("2.5 million", 2.5e6, ""), ("5k", 5000, ""), ("$10M", 1e7, "usd")]),
    ("3 hundred, two hundred thousand, 3 dozen",
     [("3 hundred", 300, ""), ("two hundred thousand", 200000, ""), ("3 dozen", 36, "")]),
    ("a dozen eggs and a million stars", [("a dozen", 12, ""), ("a million", 1e6, "")]),
    ("1.5bn euros", [("1.5bn euros", 1.5e9, "eur")]),
    ("twenty-five thousand pounds", [("twenty-five thousand pounds", 25000, "gbp")]),
    # written numbers
    ("two, twelve, Seventeen", [("two", 2, ""), ("twelve", 12, ""), ("Seventeen", 17, "")]),
    ("twenty-five, twenty five, ninety-nine", [("twenty-five", 25, ""), ("twenty five", 25, ""), ("ninety-nine", 99, "")]),
    ("three hundred and twenty, one hundred", [("three hundred and twenty", 320, ""), ("one hundred", 100, "")]),
    ("zero, half, twice", [("zero", 0, ""), ("half", 0.5, ""), ("twice", 2, "")]),
    ("someone at the stone tenth", []),
    # times of day: minutes since midnight
    ("Open 08:30 to 17:30.", [("08:30", 510, "time"), ("17:30", 1050, "time")]),
    ("Open until 5:30 pm, 5:30 PM or 5.30pm.",
     [("5:30 pm", 1050, "time"), ("5:30 PM", 1050, "time"), ("5.30pm", 1050, "time")]),
    ("From 9 am, 9am or 9 a.m. on", [("9 am", 540, "time"), ("9am", 540, "time"), ("9 a.m.", 540, "time")]),
    ("At 12 pm or 12 am", [("12 pm", 720, "time"), ("12 am", 0, "time")]),
    ("At noon, midday, midnight or 12 noon",
     [("noon", 720, "time"), ("midday", 720, "time"), ("midnight", 0, "time"), ("12 noon", 720, "time")]),
    ("Until 24:00 or 17:30 pm", [("24:00", 0, "time"), ("17:30 pm", 1050, "time")]),
    ("Ratio 16:9", [("16", 16, ""), ("9", 9, "")]),
    # dates split into numbers
    ("On 2023-05-12", [("2023", 2023, ""), ("05", 5, ""), ("12", 12, "")]),
    ("On 12/05/2020 and 12.05.2020",
     [("12", 12, ""), ("05", 5, ""), ("2020", 2020, ""), ("12", 12, ""), ("05", 5, ""), ("2020", 2020, "")]),
    ("On 12 May 2020", [("12", 12, ""), ("2020", 2020, "")]),
    # ranges share a unit or multiplier written once
    ("From 1990-1995", [("1990", 1990, ""), ("1995", 1995, "")]),
    ("It takes 5-10 minutes.", [("5", 5, "min"), ("10 minutes", 10, "min")]),
    ("Sales of $3-4 billion", [("$3", 3e9, "usd"), ("4 billion", 4e9, "usd")]),
    ("Growth of 10-15%", [("10", 10, "%"), ("15%", 15, "%")]),
    ("Tickets €10–20", [("€10", 10, "eur"), ("20", 20, "eur")]),
    ("It lasts 10 to 20 days.", [("10", 10, "day"), ("20 days", 20, "day")]),
    ("From 08:30-17:30", [("08:30", 510, "time"), ("17:30", 1050, "time")]),
    # a time range with one meridiem: the marked side fixes the half-day of the other side (an
    # unmarked start is the last such time before the end, an unmarked end the first after the start)
    ("The bar serves from 7:15 to 10 pm.", [("7:15", 1155, "time"), ("10 pm", 1320, "time")]),
    ("Drop-in is 10 to 1 pm, then 2-4pm.", [("10", 600, "time"), ("1 pm", 780, "time"), ("2", 840, "time"),
                                          ("4pm", 960, "time")]),
    ("Choir runs 7.45 - 9.15pm and between 4 and 5 p.m.",
     [("7.45", 1185, "time"), ("9.15pm", 1275, "time"), ("4", 960, "time"), ("5 p.m.", 1020, "time")]),
    ("Staffed 8am to 4:45, late desk 10 pm until 1", [("8am", 480, "time"), ("4:45", 1005, "time"),
                                                     ("10 pm", 1320, "time"), ("1", 60, "time")]),
    ("Kitchen 11 till midnight; lunch 12 to 2 pm", [("11", 1380, "time"), ("midnight", 0, "time"),
                                                    ("12", 720, "time"), ("2 pm", 840, "time")]),
    # no meridiem, or one far away: the numbers keep their readings
    ("Doors 8 to 4:30; ages 4 to 11; 7:30 to 22:00 and 3 to 5 pm",
     [("8", 8, ""), ("4:30", 270, "time"), ("4", 4, ""), ("11", 11, ""), ("7:30", 450, "time"),
      ("22:00", 1320, "time"), ("3", 900, "time"), ("5 pm", 1020, "time")]),
    ("Room 6 is free at 9pm, 3 to 4 guests, 2.5 to 3pm", [("6", 6, ""), ("9pm", 1260, "time"), ("3", 3, ""),
                                                         ("4", 4, ""), ("2.5", 2.5, ""), ("3pm", 900, "time")]),
    # digits inside words are not numbers; an attached suffix belongs to the number
    ("covid19, A4 paper and mp3 files", []),
    ("The 1st, the 3D film, the 1990s", [("1st", 1, ""), ("3D", 3, ""), ("1990s", 1990, "")]),
    ("Version v1.2.3", [("2", 2, ""), ("3", 3, "")]),
    # article and fraction forms
    ("It takes half an hour or a quarter of an hour.",
     [("half an hour", 0.5, "h"), ("a quarter of an hour", 0.25, "h")]),
    ("Allow an hour, one hour, a day, a week or a fortnight.",
     [("an hour", 1, "h"), ("one hour", 1, "h"), ("a day", 1, "day"), ("a week", 1, "week"),
      ("a fortnight", 1, "fortnight")]),
    ("It lasts an hour and a half; 2 fortnights",
     [("an hour and a half", 1.5, "h"), ("2 fortnights", 2, "fortnight")]),
    ("A day later, a dozen eggs and half a dozen rolls",
     [("A day", 1, "day"), ("a dozen", 12, ""), ("half a dozen", 6, "")]),
    ("half a kilo, half a million euros, a quarter of a mile",
     [("half a kilo", 0.5, "kg"), ("half a million euros", 5e5, "eur"), ("a quarter of a mile", 0.25, "mile")]),
    ("half, a quarter past, a daily fee, a weekly plan", [("half", 0.5, "")]),
    # fractions of a unit and compound durations
    ("Boil it for three-quarters of an hour, or three quarters of an hour, stirring every quarter of an hour.",
     [("three-quarters of an hour", 0.75, "h"), ("three quarters of an hour", 0.75, "h"),
      ("quarter of an hour", 0.25, "h")]),
    ("The hike is two and a half hours, 3 and a quarter miles, one and three-quarter hours back.",
     [("two and a half hours", 2.5, "h"), ("3 and a quarter miles", 3.25, "mile"),
      ("one and three-quarter hours", 1.75, "h")]),
    ("It took a day and a half, then a year and a half, and a month and a half more.",
     [("a day and a half", 1.5, "day"), ("a year and a half", 1.5, "year"), ("a month and a half", 1.5, "month")]),
    ("two and a half thousand seeds; 4 and a half; two and a half-hour naps",
     [("two and a half thousand", 2500, ""), ("4", 4, ""), ("half", 0.5, ""), ("two", 2, ""),
      ("half-hour", 0.5, "h")]),
    ("Bake 1 hour 20 minutes, rest an hour and 5 minutes, chill 2 weeks and 4 days.",
     [("1 hour 20 minutes", 80, "min"), ("an hour and 5 minutes", 65, "min"), ("2 weeks and 4 days", 18, "day")]),
    # not compounds: a larger second part, nights, adjectives, a second part of a whole unit or more
    ("2 hours 90 minutes; 3 days and 2 nights; a 4 hour and 15 minute slot; 1 hour and 60 minutes",
     [("2 hours", 2, "h"), ("90 minutes", 90, "min"), ("3 days", 3, "day"), ("2 nights", 2, "night"),
      ("4 hour", 4, "h"), ("15 minute", 15, "min"), ("1 hour", 1, "h"), ("60 minutes", 60, "min")]),
    # rates are not durations: "a day" after a number, "once" or "times" is no mention
    ("$20 an hour, twice a day, 7 days a week, once a week, several times a day",
     [("$20", 20, "usd"), ("twice", 2, ""), ("7 days", 7, "day"), ("once", 1, "")]),
    ("Once you have booked, we email you once a month.", [("once", 1, "")]),  # a conjunction is no number
    # metric symbols after a space
    ("1,500 g, 2,000 m, 1.5 l or 1.5 L", [("1,500 g", 1500, "g"), ("2,000 m", 2000, "m"), ("1.5 l", 1.5, "l"),
                                          ("1.5 L", 1.5, "l")]),
    ("5 G, 5 M, 5m, five m", [("5", 5, ""), ("5", 5, ""), ("5m", 5e6, ""), ("five", 5, "")]),
    # clock phrases in words: minutes since midnight; the half-day stays open without a part of the day
    ("Doors open at half past four, the talk is at a quarter past five and ends at quarter to eight.",
     [("half past four", 270, "time"), ("a quarter past five", 315, "time"), ("quarter to eight", 465, "time")]),
    ("Meet at twenty-five past two or at ten to one; dinner is at eight o'clock or around half nine.",
     [("twenty-five past two", 145, "time"), ("ten to one", 770, "time"), ("eight o'clock", 480, "time"),
      ("half nine", 570, "time")]),
    ("The ferry leaves at ten past six in the morning and returns at twenty to eleven at night.",
     [("ten past six in the morning", 370, "time"), ("twenty to eleven at night", 1360, "time")]),
    # "tonight", "this evening", "tomorrow morning" set the half-day too (found by a reviewer)
    ("Doors open at 7:30 tonight and the bar shuts at 9 this evening; breakfast at 8 tomorrow morning.",
     [("7:30 tonight", 1170, "time"), ("9 this evening", 1260, "time"), ("8 tomorrow morning", 480, "time")]),
    ("Check-in is 4:45 in the afternoon, supper 6.15 in the evening, lights out 10 in the evening.",
     [("4:45 in the afternoon", 1005, "time"), ("6.15 in the evening", 1095, "time"),
      ("10 in the evening", 1320, "time")]),
    ("Trains run at 2 o'clock, at eleven in the morning and at twelve at night.",
     [("2 o'clock", 120, "time"), ("eleven in the morning", 660, "time"), ("twelve at night", 0, "time")]),
    # a range: the marked end fixes the other side's half-day
    ("Rehearsals go from half past four until 8 pm, or between seven and 10 pm.",
     [("half past four", 990, "time"), ("8 pm", 1200, "time"), ("seven", 1140, "time"), ("10 pm", 1320, "time")]),
    # not clock times: ranges of counts, "from ten to nine", unit words, no context
    ("Groups of five to ten people, from ten to nine, twenty past six months, cut in half eight times.",
     [("five", 5, ""), ("ten", 10, ""), ("ten", 10, ""), ("nine", 9, ""), ("twenty", 20, ""),
      ("six months", 6, "month"), ("half", 0.5, ""), ("eight times", 8, "times")]),
    # shares written as fractions: percentages
    ("Grants cover three-quarters of tuition, a third of travel, two thirds of rent and one-fifth of food.",
     [("three-quarters", 75, "%"), ("a third", 100 / 3, "%"), ("two thirds", 200 / 3, "%"), ("one-fifth", 20, "%")]),
    ("Half of the plots, a quarter of the sheds and three-tenths of the paths; kids pay half price.",
     [("Half", 50, "%"), ("a quarter", 25, "%"), ("three-tenths", 30, "%"), ("half", 50, "%")]),
    ("Seniors pay half the entry fee.", [("half", 50, "%")]),
    # not shares: a fraction of a unit, of a number, after "last"; an ordinal
    ("three-quarters of an hour, a quarter of a mile, half of the £8.40 fare, the last three quarters of "
     "the season, the third of June",
     [("three-quarters of an hour", 0.75, "h"), ("a quarter of a mile", 0.25, "mile"), ("half", 0.5, ""),
      ("£8.40", 8.4, "gbp"), ("three", 3, "")]),
]

# (text, [(surface, quantity, base_unit), ...]): the value in the base unit of its dimension.
QUANTITIES = [
    ("2 weeks, 14 days, a fortnight", [("2 weeks", 20160, "min"), ("14 days", 20160, "min"),
                                       ("a fortnight", 20160, "min")]),
    ("half an hour, 30 minutes, 1800 seconds, a quarter of an hour",
     [("half an hour", 30, "min"), ("30 minutes", 30, "min"), ("1800 seconds", 30, "min"),
      ("a quarter of an hour", 15, "min")]),
    ("an hour, 60 minutes, 2 hours, 48 hours, 2 days", [("an hour", 60, "min"), ("60 minutes", 60, "min"),
                                                        ("2 hours", 120, "min"), ("48 hours", 2880, "min"),
                                                        ("2 days", 2880, "min")]),
    ("1.5 kg, 1,500 g, 500 mg", [("1.5 kg", 1500, "g"), ("1,500 g", 1500, "g"), ("500 mg", 0.5, "g")]),
    ("2 km, 2,000 m, 2000 mm, 150 cm", [("2 km", 2000, "m"), ("2,000 m", 2000, "m"), ("2000 mm", 2, "m"),
                                        ("150 cm", 1.5, "m")]),
    ("1.5 l, 1.5 litres, 750 ml", [("1.5 l", 1500, "ml"), ("1.5 litres", 1500, "ml"), ("750 ml", 750, "ml")]),
    # a year is 12 months ("half a year" == "6 months"); nights and units without a metric base
    # are never converted
    ("6 months, half a year, 1 year, 12 months", [("6 months", 6, "month"), ("half a year", 6, "month"),
                                                 ("1 year", 12, "month"), ("12 months", 12, "month")]),
    ("3 months, 2 years, 3 nights, 5 lbs, 3 miles", [("3 months", 3, "month"), ("2 years", 24, "month"),
                                                     ("3 nights", 3, "night"), ("5 lbs", 5, "lb"),
                                                     ("3 miles", 3, "mile")]),
    ("a dozen, $12, 25%, 5:30 pm", [("a dozen", 12, ""), ("$12", 12, "usd"), ("25%", 25, "%"),
                                    ("5:30 pm", 1050, "time")]),
    ("three-quarters of an hour, 45 minutes, two and a half hours, 1 hour 30 minutes, an hour and a half",
     [("three-quarters of an hour", 45, "min"), ("45 minutes", 45, "min"), ("two and a half hours", 150, "min"),
      ("1 hour 30 minutes", 90, "min"), ("an hour and a half", 90, "min")]),
]


@pytest.mark.parametrize("text,expected", TABLE, ids=[t for t, _ in TABLE])
def test_known_mentions(text, expected):
    got = find_numbers(text)
    assert [(m.surface, m.unit) for m in got] == [(s, u) for s, _, u in expected]
    for m, (_, value, _) in zip(got, expected):
        assert m.value == pytest.approx(value, rel=1e-12, abs=0.0)
        assert text[m.start:m.end] == m.surface


def test_table_size():
    assert sum(len(e) for _, e in TABLE) >= 40


@pytest.mark.parametrize("text,expected", QUANTITIES, ids=[t for t, _ in QUANTITIES])
def test_quantities(text, expected):
    got = find_numbers(text)
    assert [(m.surface, m.base_unit) for m in got] == [(s, b) for s, _, b in expected]
    for m, (_, quantity, _) in zip(got, expected):
        assert m.quantity == pytest.approx(quantity, rel=1e-12, abs=0.0)


def test_quantity_keeps_value_and_unit():
    m = find_numbers("Refunds take 2 weeks.")[0]
    assert (m.value, m.unit, m.surface) == (2.0, "week", "2 weeks")  # for display
    assert (m.quantity, m.base_unit) == (20160.0, "min")              # for comparison
    assert m == NumberMention(13, 20, 2.0, "week", "2 weeks")


def test_base_units_cover_their_keys():
    assert set(BASE_UNITS) <= UNITS
    assert {b for b, _ in BASE_UNITS.values()} == {"min", "g", "m", "ml", "month"}
    for unit in UNITS - set(BASE_UNITS):
        m = NumberMention(0, 1, 7.0, unit, "7")
        assert (m.quantity, m.base_unit) == (7.0, unit)


@pytest.mark.parametrize("text,surface,start", [
    ("Café à 3 €.", "3 €", 7),                     # 2-byte UTF-8 letters before the number
    ("価格は300円です", "300", 3),                 # CJK: 3 bytes each, and no spaces
    ("😀 costs £5", "£5", 8),                      # emoji: 4 UTF-8 bytes, 2 UTF-16 units
    ("naïve Zoë paid 25% at 5:30 pm", "5:30 pm", 22),
    ("Ünïcödé text: twenty-five kilos", "twenty-five kilos", 14),
])
def test_code_point_offsets_after_non_ascii(text, surface, start):
    m = next(x for x in find_numbers(text) if x.surface == surface)
    assert (m.start, m.end) == (start, start + len(surface))
    assert text[m.start:m.end] == surface


@pytest.mark.parametrize("text,value,unit", [
    ("Costs ２５ €", 25.0, "eur"),              # full-width digits (a Japanese input method)
    ("Costs ٢٥ €", 25.0, "eur"),                # Arabic-Indic
    ("Costs २५ €", 25.0, "eur"),                # Devanagari
    ("Opens at ０９:３０", 570.0, "time"),
    ("A refund of ２.５k", 2500.0, ""),
])
def test_digits_of_other_scripts_are_read(text, value, unit):
    # the one parser folds non-ASCII digits (evidence, citations and claims alike); the surface
    # stays the text as written
    m = find_numbers(text)[-1]
    assert (m.value, m.unit) == (value, unit)
    assert text[m.start:m.end] == m.surface
    assert m.surface != ascii_digits(m.surface)


def test_long_digit_runs_compare_across_scripts():
    assert not long_digits_differ("９４００１１１８９９２２３１９７４２８４９０", "9400111899223197428490")
    assert long_digits_differ("９４００１１１８９９２２３１９７４２８４９１", "9400111899223197428490")


@pytest.mark.parametrize("text,open_", [
    ("7:15", True), ("12:40", True), ("half past seven", True), ("seven o'clock", True), ("5:30 to 9", True),
    ("07:15", False), ("19:15", False), ("7:15 am", False), ("7:15 pm", False), ("noon", False),
    ("half past seven in the evening", False), ("6:30 to 9 pm", False), ("75%", False), ("7", False),
])
def test_half_day_open(text, open_):
    m = find_numbers(text)[0]
    assert m.half_day_open is open_, (text, m)


def test_core_returns_tuples():
    assert _core.find_numbers("Café costs €3.50 at 5:30 pm, 6:45") == [
        (11, 16, 3.5, "eur", "€3.50", False), (20, 27, 1050.0, "time", "5:30 pm", False),
        (29, 33, 405.0, "time", "6:45", True)]
    assert _core.find_numbers("") == []
    m = find_numbers("8 kg")[0]
    assert m == NumberMention(0, 4, 8.0, "kg", "8 kg")
    with pytest.raises(AttributeError):
        m.value = 9.0  # type: ignore[misc]  # frozen


@pytest.mark.parametrize("bad", [b"8 kg", None, 8, ["8 kg"]])
def test_non_str_is_refused(bad):
    with pytest.raises(InputTypeError):
        find_numbers(bad)  # type: ignore[arg-type]
    with pytest.raises(InputTypeError):
        _core.find_numbers(bad)
    with pytest.raises(TypeError):  # InputTypeError is a TypeError
        find_numbers(bad)  # type: ignore[arg-type]


def test_lone_surrogate_is_a_clean_error():
    for text in ("\ud800", "5 kg \udfff", "\udc80 12"):
        with pytest.raises(ValidationError, match="surrogate"):
            find_numbers(text)
        with pytest.raises(ValueError):
            _core.find_numbers(text)


def test_pathological_inputs_are_linear():
    # long repeats of what the grammars loop over or look ahead through, each well under a second
    texts = [
        "1" + ",234" * 200_000,          # one huge thousands-grouped number
        ".".join(["1"] * 200_000),       # a dotted run of 200k parts
        "5" + " " * 1_000_000 + "kg",    # a unit after a million spaces
        "a " * 400_000,                  # a start word everywhere
        "twenty-" * 200_000,             # written numbers that never complete
        "9 " * 300_000,                  # a number everywhere
        "$" * 500_000,                   # currency symbols without numbers
        "€-" * 300_000 + "5",
        "a quarter of an " * 100_000,    # article and fraction forms that never complete
        "half an half a " * 100_000,
        "5 an hour " * 100_000,          # a rate after every number (looks back over the spaces)
        "an hour and a " * 100_000,
        "one point " * 100_000,          # decimals that never get their digit word
        "five pounds and " * 100_000,    # pence that never come
        "half past " * 50_000,           # clock phrases that never get their hour
        "at ten to " * 50_000,
        "two-thirds of the " * 50_000,   # shares (looks back for "last")
        "9 in the " * 50_000,
    ]
    # scripts/sanitize.sh sets DIRECTOR_FAST_SANITIZED: ASan/UBSan and PYTHONMALLOC=malloc make
    # every call several times slower (a quadratic input would still take minutes)
    limit = 10.0 if os.environ.get("DIRECTOR_FAST_SANITIZED") else 5.0  # ~0.8 s alone; a quadratic input takes minutes
    for text in texts:
        t0 = time.process_time()  # CPU time: not inflated by other jobs on a shared machine
        got = find_numbers(text)
        assert time.process_time() - t0 < limit, text[:20]
        for m in got[:50] + got[-50:]:
            assert text[m.start:m.end] == m.surface
    assert len(find_numbers(texts[1])) == 200_000
    assert find_numbers(texts[0])[0].surface == texts[0]


def test_thread_safety():
    text = "Open 08:30-17:30; €12 or 12 euros; twenty-five thousand pounds; 3bn. " * 200
    expected = find_numbers(text)

    def work():
        for _ in range(20):
            assert find_numbers(text) == expected

    assert run_threads(work) == []


# ---- properties -------------------------------------------------------------------------------

pieces = st.sampled_from(
    "8 kg 2,500 1,234.5 12.05.2020 08:30 5:30 pm 9am a.m. p.m noon midnight twenty-five twenty five "
    "hundred and thousand a an million bn 3bn $ € £ ¥ EUR NOK US$ 12 0 99 % percent per cent sq ft "
    "m² ° C - – to / : . , ' ’ covid19 v1.2.3 é 中 😀 \u00a0 \u2009 \n one two half dozen hour day week "
    "fortnight quarter quarters three of once times g m l L kg until till between 6.30 minutes hours "
    "past o'clock o’clock in the morning evening at night thirds fifth price at ten to seven".split(" "))
seps = st.sampled_from(["", " ", "  ", "-", ".", ",", ":", "\n", "\u00a0"])
number_texts = st.lists(st.tuples(pieces, seps), max_size=25).map(lambda xs: "".join(a + b for a, b in xs))
any_text = st.text(max_size=120)


def _check_mentions(text: str, got: list[NumberMention]) -> None:
    prev_end = 0
    for m in got:
        assert isinstance(m.value, float) and not math.isnan(m.value)
        assert 0 <= prev_end <= m.start < m.end <= len(text)
        assert text[m.start:m.end] == m.surface
        assert m.unit in UNITS
        prev_end = m.end
    if text.isascii():
        # every digit run that is not inside a word is (inside) a number
        for run in re.finditer(r"(?<![A-Za-z0-9])[0-9]+", text):
            assert any(m.start <= run.start() and run.end() <= m.end for m in got), (text, run.group())


@settings(max_examples=400, deadline=None)
@given(text=number_texts | any_text)
def test_offsets_and_surfaces(text):
    _check_mentions(text, find_numbers(text))


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=60))
def test_never_crashes_including_surrogates(text):
    has_surrogate = any(0xD800 <= ord(c) <= 0xDFFF for c in text)
    try:
        got = find_numbers(text)
    except ValidationError:
        assert has_surrogate
        return
    assert not has_surrogate
    _check_mentions(text, got)
