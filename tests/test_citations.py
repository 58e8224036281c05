"""Citation checks against query rows (seed 002, issue 7)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from director_fast.diagnostics.citations import (
    CITATION_REPAIRS,
    CITATION_SCOPES,
    CITATION_VERDICTS,
    CitationCheck,
    CitationReport,
    check_citations,
    strip_markers,
)
from director_fast.errors import ConfigError, InputTypeError, ValidationError
from _concurrency import run_threads

COMPANIES = [
    {"name": "Acme", "city": "Cairo", "country": "Egypt", "revenue": 2500, "hq": "Giza"},
    {"name": "Beta Corp", "city": "Paris", "country": "France", "revenue": "25000", "hq": "Lyon"},
]


def one(answer, rows=COMPANIES, **kw) -> CitationCheck:
    report = check_citations(answer, rows, **kw)
    assert len(report.checks) == 1
    return report.checks[0]


# ------------------------------------------------------------------ seed examples and verdicts


def test_seed_numeric_example_2500():
    c = one('Acme earns 2,500 [ref:revenue="2,500"].', [{"name": "Acme", "revenue": 2500}])
    assert (c.verdict, c.repair, c.variable, c.asserted_value) == (
        "confirmed",
        "numeric",
        "revenue",
        "2,500",
    )
    assert c.observed_values == ("2500",) and c.observed_total == 1


def test_2500_is_not_25000():
    c = one('It earns 2,500 [ref:revenue="2,500"].', [{"revenue": 25000}])
    assert c.verdict == "refuted" and c.repair is None
    assert c.observed_values == ("25000",)


def test_seed_cairo_egypt_token_coverage():
    c = one('Acme sits in Cairo, Egypt [ref:city="Cairo, Egypt"].')
    assert c.verdict == "confirmed" and c.repair == "token_coverage"
    assert c.repair_variables == ("city", "country")
    assert c.scope == "record" and c.scope_label == "Acme"
    # reversed order is covered as well
    c = one('Acme sits in Egypt/Cairo [ref:city="Egypt / Cairo"].')
    assert c.repair == "token_coverage" and c.repair_variables == ("city", "country")


def test_seed_merged_markers_are_unverifiable():
    c = one('Acme is in Cairo, Egypt [ref:city,country="Cairo, Egypt"].')
    assert c.verdict == "unverifiable" and c.problem == "merged_fields"
    assert c.variable is None and c.asserted_value == "Cairo, Egypt"
    c = one('Acme [ref:city="Cairo", country="Egypt"].')
    assert c.verdict == "unverifiable" and c.problem == "merged_fields"
    assert c.asserted_value is None
    assert c.marker == 'city="Cairo", country="Egypt"'


def test_seed_result_set_observed_values_one_per_record():
    rows = [{"code": "ACT"}, {"code": "ACM"}]
    c = one('One of them is ACM [ref:code="ACM"].', rows)
    assert c.scope == "result_set" and c.scope_label is None
    assert c.observed_values == ("ACT", "ACM") and c.observed_total == 2
    assert c.verdict == "confirmed" and c.repair == "exact"


def test_cited_without_value():
    c = one("Beta Corp [ref:name] is large.")
    assert c.verdict == "cited" and c.asserted_value is None and c.repair is None
    assert c.scope == "record" and c.observed_values == ("Beta Corp",)


def test_exact_and_case_or_whitespace():
    assert one('Acme is in Cairo [ref:city="Cairo"].').repair == "exact"
    c = one('Acme is in CAIRO [ref:city="  cairo "].')
    assert c.verdict == "confirmed" and c.repair == "case_or_whitespace"
    c = one("O’Brien [ref:who=\"o'brien\"]", [{"who": "O’Brien"}])
    assert c.repair == "case_or_whitespace"


def test_refuted_and_contradicted():
    report = check_citations(
        'Acme is in Rome [ref:city="Rome"]. Acme [ref:name] is big.', COMPANIES
    )
    assert [c.verdict for c in report.checks] == ["refuted", "cited"]
    assert report.contradicted == (report.checks[0],)
    assert report.checks[0].observed_values == ("Cairo",)


def test_unresolved_when_no_row_binds():
    c = one('Acme has 12 staff [ref:employees="12"].')
    assert c.verdict == "unresolved" and c.variable is None
    assert c.observed_values == () and c.observed_total == 0
    # scoped record binds nothing (value None) although the key exists
    rows = [{"name": "Acme", "ceo": None}, {"name": "Beta", "ceo": "Ann"}]
    c = one('Acme is led by Ann [ref:ceo="Ann"].', rows)
    assert c.verdict == "unresolved" and c.scope == "record"
    assert c.verdict != "refuted"


def test_mis_pointed_is_never_an_acceptance():
    c = one('Acme is in Giza [ref:city="Giza"].')
    assert c.verdict == "unverifiable" and c.repair == "mis_pointed"
    assert c.repair_variables == ("hq",)
    assert c not in check_citations('Acme is in Giza [ref:city="Giza"].', COMPANIES).contradicted


def test_model_re_aimed_normalisations():
    rows = [{"head_quarters": "Cairo", "employeeCount": 12, "city": "Cairo"}]
    for marker in ('HeadQuarters="Cairo"', 'head-quarters="cairo"', '?head_quarters="Cairo"'):
        c = one(f"It is in Cairo [ref:{marker}].", rows)
        if marker.startswith("?"):
            assert c.repair == "model_re_aimed"
        assert c.verdict == "confirmed" and c.repair == "model_re_aimed", marker
        assert c.variable == "head_quarters" and c.repair_variables == ("head_quarters",)
    c = one('It has 12 [ref:employee_counts="12"].', rows)
    assert (c.verdict, c.repair, c.variable) == ("confirmed", "model_re_aimed", "employeeCount")
    # re-aimed but the value disagrees: not refuted (the marker's own variable binds nothing)
    c = one('It has 13 [ref:employee_counts="13"].', rows)
    assert c.verdict == "unresolved" and c.repair is None
    # cited-only marker re-aimed
    c = one("It is big [ref:EmployeeCount].", rows)
    assert (c.verdict, c.repair, c.variable) == ("cited", "model_re_aimed", "employeeCount")


def test_re_aim_ambiguous_is_unresolved():
    rows = [{"city_name": "Cairo", "cityName": "Cairo"}]
    c = one('It is in Cairo [ref:CityName="Cairo"].', rows)
    assert c.verdict == "unresolved"


# ------------------------------------------------------------------ numeric rung


@pytest.mark.parametrize(
    "asserted, observed",
    [
        ("2,500", 2500),
        ("2.5", "2.50"),
        ("$2,500", 2500),
        ("€2,500", "2500"),
        ("2,500 €", 2500),
        ("EUR 2,500.00", 2500),
        ("25%", 25),
        ("-2,500", -2500),
        ("−2,500", "-2500"),
        ("-$5", -5),
        ("2 500", 2500),
        ("2'500", 2500),
        ("1,234,567", 1234567),
        (".5", 0.5),
        ("2500", 2500.0),
        ("3.75", Decimal("3.750")),
    ],
)
def test_numeric_equal(asserted, observed):
    c = one(f'x [ref:v="{asserted}"]', [{"v": observed}])
    assert c.verdict == "confirmed" and c.repair in ("numeric", "exact"), (asserted, observed)


@pytest.mark.parametrize(
    "asserted, observed",
    [
        ("2,500", 25000),
        ("€2,500", "$2,500"),
        ("25%", "$25"),
        ("-2,500", 2500),
        ("2.5", 25),
        ("1e3", 1000),
        ("true", 1),
    ],
)
def test_numeric_not_equal(asserted, observed):
    c = one(f'x [ref:v="{asserted}"]', [{"v": observed}])
    assert c.verdict == "refuted", (asserted, observed)


# ---- issue 30: one number parser (find_numbers), magnitudes, refuted only when both were read

_INVOICE = [{"invoice": "INV-7", "amount": 2500}]


@pytest.mark.parametrize("asserted, amount", [
    ("2.5k", 2500), ("2.5K", 2500), ("2.5 k", 2500), ("2.5 K", 2500), ("2.5 thousand", 2500),
    ("$2.5k", 2500), ("USD 2.5k", 2500), ("€2.5 thousand", 2500), ("2,500", 2500), ("2 500", 2500),
    ("2500.00", 2500), ("$2.5m", 2_500_000), ("2.5m", 2_500_000), ("2.5M", 2_500_000),
    ("2.5 million", 2_500_000), ("2.5mn", 2_500_000), ("2.5bn", 2_500_000_000),
    ("2.5 bn", 2_500_000_000), ("2.5 billion", 2_500_000_000), ("£2.5bn", 2_500_000_000),
    ("$2,500,000", 2_500_000), (".5", 0.5),
])
def test_magnitudes_are_read(asserted, amount):
    c = one(f'INV-7 totals {asserted} [ref:amount="{asserted}"].', [{"invoice": "INV-7", "amount": amount}])
    assert (c.verdict, c.repair) == ("confirmed", "numeric"), asserted


@pytest.mark.parametrize("asserted", ["3k", "2.6k", "2.5 thousand dollars more", "25k", "2.5m", "2.5bn",
                                      "$2.4k", "2,600", "-2.5k"])
def test_both_read_and_different_is_refuted(asserted):
    c = one(f'INV-7 totals {asserted} [ref:amount="{asserted}"].', _INVOICE)
    if asserted == "2.5 thousand dollars more":  # words around the number: not one number
        assert c.verdict in ("refuted", "unverifiable")
        return
    assert c.verdict == "refuted", asserted


@pytest.mark.parametrize("asserted, observed, problem", [
    ("2.500,00 €", 2500, "ambiguous_number_format"),  # 2500 in a decimal-comma locale
    ("2.500,00", "2,500.00", "ambiguous_number_format"),
    ("25,00", 2500, "ambiguous_number_format"),
    ("2,50", 250, "ambiguous_number_format"),
    ("2,500", "2,5", "observed_ambiguous_number_format"),
    ("2.5 m", 2_500_000, "ambiguous_number_format"),  # metres or millions
    ("2.5k", "about two and a half grand", "observed_unreadable_number"),
    ("2.5k", "n/a", "observed_unreadable_number"),
    ("2..5k", 2500, "unreadable_number"),
    ("$ 2.5 k 3", 2500, "unreadable_number"),
])
def test_what_cannot_be_read_is_unverifiable(asserted, observed, problem):
    c = one(f'INV-7 totals [ref:amount="{asserted}"].', [{"invoice": "INV-7", "amount": observed}])
    assert (c.verdict, c.problem) == ("unverifiable", problem), asserted


def test_text_values_are_still_refuted():
    assert one('INV-7 [ref:invoice="INV-8"].', _INVOICE).verdict == "refuted"
    assert one('x [ref:city="Giza"].', [{"city": "Cairo"}]).verdict == "refuted"


def test_non_ascii_values():
    rows = [{"city": "Zürich", "price": "€2,500", "name": "Café Größe"}]
    assert one('In Zürich [ref:city="Zürich"].', rows).repair == "exact"
    assert one('In ZÜRICH [ref:city="zürich"].', rows).repair == "case_or_whitespace"
    # decomposed ü (NFD) against composed
    assert one('In Zu\u0308rich [ref:city="Zu\u0308rich"].', rows).repair == "case_or_whitespace"
    assert one('It costs 2500 [ref:price="2500"].', rows).repair == "numeric"
    assert one('It costs €2,500 [ref:price="€2,500"].', rows).repair == "exact"
    assert one('It is Café Größe [ref:name="CAFÉ GRÖSSE"].', rows).repair == "case_or_whitespace"


def test_bool_float_list_and_binding_values():
    rows = [
        {
            "ok": True,
            "ratio": 0.25,
            "tags": ["red", "blue"],
            "city": {"type": "literal", "value": "Cairo"},
        }
    ]
    assert one('x [ref:ok="true"]', rows).verdict == "confirmed"
    assert one('x [ref:ratio="0.250"]', rows).repair == "numeric"
    c = one('x [ref:tags="blue"]', rows)
    assert c.verdict == "confirmed" and c.observed_values == ("red", "blue")
    assert one('x [ref:city="Cairo"]', rows).repair == "exact"


# ------------------------------------------------------------------ scopes


def test_record_scope_uses_named_record_not_any_row():
    # "Paris" holds in the result set, but the sentence names Acme: refuted.
    c = one('Acme is in Paris [ref:city="Paris"].')
    assert c.scope == "record" and c.scope_label == "Acme"
    assert c.verdict == "refuted" and c.observed_values == ("Cairo",)


def test_assertion_does_not_choose_its_own_record():
    # "Paris" is unique to Beta's row, but it is the asserted value: it must not scope the check.
    c = one('The city is Paris [ref:city="Paris"].')
    assert c.scope == "result_set" and c.verdict == "confirmed"


def test_inherited_record_and_reset():
    answer = (
        'Acme is an old firm. Its city is Cairo [ref:city="Cairo"]. '
        'Revenue is 2,500 [ref:revenue="2,500"].\n'
        'Beta Corp is newer. It is in Lyon [ref:city="Lyon"].'
    )
    report = check_citations(answer, COMPANIES)
    scopes = [(c.scope, c.scope_label) for c in report.checks]
    assert scopes == [
        ("inherited_record", "Acme"),
        ("result_set", None),  # inheritance reaches back one sentence only
        ("inherited_record", "Beta Corp"),
    ]
    assert report.checks[1].observed_values == ("2500", "25000")
    assert report.checks[2].verdict == "unverifiable" and report.checks[2].repair == "mis_pointed"


def test_two_records_named_is_result_set():
    c = one('Acme and Beta Corp are in Paris [ref:city="Paris"].')
    assert c.scope == "result_set"


def test_id_fields_and_longest_match():
    rows = [
        {"id": "NY-1", "city": "New York", "pop": 8},
        {"id": "YK-2", "city": "York", "pop": 0.2},
    ]
    c = one('New York has 8 [ref:pop="8"].', rows)
    assert c.scope == "record" and c.scope_label == "New York"
    c = one('NY-1 has 8 [ref:pop="8"].', rows, id_fields=["id"])
    assert c.scope_label == "NY-1" and c.verdict == "confirmed"
    # with id_fields=["id"], the city name no longer identifies
    c = one('York has 8 [ref:pop="8"].', rows, id_fields=["id"])
    assert c.scope == "result_set"


def test_max_observed_cap():
    rows = [{"n": i} for i in range(25)]
    c = one('x [ref:n="7"]', rows, max_observed=3)
    assert c.observed_values == ("0", "1", "2") and c.observed_total == 25
    assert c.verdict == "confirmed"
    c = one('x [ref:n="7"]', rows, max_observed=0)
    assert c.observed_values == () and c.observed_total == 25


# ------------------------------------------------------------------ marker grammar and stripping


def test_escaped_quotes_and_brackets_in_value():
    rows = [{"quote": 'He said "hi" [loudly]', "path": "C:\\temp"}]
    c = one(r'x [ref:quote="He said \"hi\" [loudly]"] y', rows)
    assert c.asserted_value == 'He said "hi" [loudly]' and c.repair == "exact"
    c = one(r'x [ref:path="C:\\temp"]', rows)
    assert c.asserted_value == "C:\\temp" and c.repair == "exact"


@pytest.mark.parametrize(
    "text, problem",
    [
        ("a [ref:] b", "malformed: empty marker"),
        ('a [ref:x=""] b', "malformed: empty value"),
        ("a [ref:x=Cairo] b", "malformed: value must be double-quoted"),
        ('a [ref:x="Cairo] b', "malformed: unbalanced quote"),
        ("a [ref:x b", "malformed: no closing bracket"),
        ('a [ref:x="a" "b"] b', "malformed: unexpected token"),
        ("a [ref:head quarters] b", "malformed: unexpected token"),
    ],
)
def test_malformed_markers_reported(text, problem):
    report = check_citations(text, COMPANIES)
    assert len(report.checks) == 1
    c = report.checks[0]
    assert c.verdict == "unverifiable" and c.problem == problem
    assert "[ref:" not in report.answer


def test_stripping_spacing():
    cases = {
        'Acme is in Cairo [ref:city="Cairo"].': "Acme is in Cairo.",
        "Acme [ref:name] is big.": "Acme is big.",
        "[ref:name] Acme leads.": "Acme leads.",
        "A [ref:a][ref:b] b": "A b",
        "A [ref:a] [ref:b].": "A.",
        "A[ref:a]. B": "A. B",
        "Line one [ref:a]\nLine two": "Line one\nLine two",
        "no markers here": "no markers here",
        "[re[ref:x]f:y] z": "z",
        "": "",
    }
    for src, expected in cases.items():
        assert strip_markers(src) == expected, src
        assert check_citations(src, COMPANIES).answer == expected


def test_several_markers_per_sentence_in_order():
    report = check_citations(
        'Acme [ref:name] is in Cairo [ref:city="Cairo"], Egypt [ref:country="Egypt"].',
        COMPANIES,
    )
    assert [c.marker for c in report.checks] == ["name", 'city="Cairo"', 'country="Egypt"']
    assert [c.verdict for c in report.checks] == ["cited", "confirmed", "confirmed"]
    assert all(c.scope == "record" for c in report.checks)


# ------------------------------------------------------------------ serialisation, events, errors


def test_to_dict_camel_case_and_round_trip():
    report = check_citations(
        'Acme is in Cairo, Egypt [ref:city="Cairo, Egypt"]. x [ref:a="1", b="2"]', COMPANIES
    )
    d = report.checks[0].to_dict()
    assert d == {
        "marker": 'city="Cairo, Egypt"',
        "variable": "city",
        "assertedValue": "Cairo, Egypt",
        "verdict": "confirmed",
        "repair": "token_coverage",
        "repairVariables": ["city", "country"],
        "observedValues": ["Cairo"],
        "observedTotal": 1,
        "scope": "record",
        "scopeLabel": "Acme",
    }
    assert "scopeLabel" not in check_citations("x [ref:name]", COMPANIES).checks[0].to_dict()
    for c in report.checks:
        assert CitationCheck.from_dict(json.loads(json.dumps(c.to_dict()))) == c
    assert report.to_dict()["answer"] == report.answer


@pytest.mark.parametrize(
    "payload",
    [
        {"verdict": "cited"},
        {"marker": "x", "verdict": "maybe"},
        {"marker": "x", "verdict": "cited", "scope": "galaxy"},
        {"marker": "x", "verdict": "cited", "repair": "guess"},
        {"marker": "x", "verdict": "cited", "observedTotal": -1},
        {"marker": "x", "verdict": "cited", "observedValues": [1]},
    ],
)
def test_from_dict_rejects(payload):
    with pytest.raises(ValidationError):
        CitationCheck.from_dict(payload)


def test_constants():
    assert CITATION_VERDICTS == ("cited", "confirmed", "refuted", "unverifiable", "unresolved")
    assert set(CITATION_REPAIRS) >= {"exact", "numeric", "token_coverage", "mis_pointed"}
    assert CITATION_SCOPES == ("record", "inherited_record", "result_set")


def test_safety_event_decisions_carry_no_values():
    secret_value = "Zanzibar-77"
    rows = [{"name": "Acme", "city": secret_value}]
    refuted = check_citations('Acme is in Rome [ref:city="Rome"].', rows)
    ev = refuted.to_safety_event(request_id="req-1", tenant_id="t-1")
    assert (ev.hook_scope, ev.policy_decision, ev.halt_reason) == (
        "agent",
        "block",
        "citation_refuted",
    )
    assert ev.evidence_refs == ("citation:0",) and ev.observed_score == 0.0
    blob = json.dumps(ev.to_dict())
    assert secret_value not in blob and "Rome" not in blob and "city" not in blob
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in ev.attributes.items())
    assert refuted.to_safety_event(refuted_decision="warn").policy_decision == "warn"
    ok = check_citations(f'Acme is in it [ref:city="{secret_value}"].', rows).to_safety_event()
    assert (ok.policy_decision, ok.halt_reason, ok.observed_score) == (
        "allow",
        "citations_consistent",
        1.0,
    )
    warn = check_citations("x [ref:nope]", rows).to_safety_event()
    assert (warn.policy_decision, warn.halt_reason) == ("warn", "citation_unverified")
    with pytest.raises(ConfigError):
        refuted.to_safety_event(refuted_decision="shrug")


def test_safety_event_validates_in_director_ai():
    validate = pytest.importorskip("director_ai.core.safety_event").validate_safety_event_payload
    ev = check_citations('Acme is in Rome [ref:city="Rome"].', COMPANIES).to_safety_event()
    validate(ev.to_dict())


def test_input_errors():
    with pytest.raises(InputTypeError):
        check_citations(b"x", COMPANIES)  # type: ignore[arg-type]
    with pytest.raises(InputTypeError, match=r"rows\[1\]"):
        check_citations("x", [{"a": 1}, "row"])  # type: ignore[list-item]
    with pytest.raises(InputTypeError):
        check_citations("x", {"a": 1})  # type: ignore[arg-type]
    with pytest.raises(ConfigError) as exc:
        check_citations("x", [], max_observed=-1)
    assert exc.value.field == "max_observed"
    with pytest.raises(InputTypeError):
        check_citations("x", [], id_fields="id")  # type: ignore[arg-type]
    # generators of rows are accepted
    assert check_citations('x [ref:a="1"]', (r for r in [{"a": 1}])).checks[0].verdict == (
        "confirmed"
    )


def test_no_rows_everything_unresolved():
    report = check_citations('x [ref:a="1"] y [ref:b]', [])
    assert [c.verdict for c in report.checks] == ["unresolved", "unresolved"]


def test_thread_safety_same_result_across_threads():
    answer = 'Acme is in Cairo, Egypt [ref:city="Cairo, Egypt"]. Its revenue is 2,500 [ref:revenue="2,500"].'
    expected = check_citations(answer, COMPANIES)
    results = []

    def work():
        for _ in range(50):
            results.append(check_citations(answer, COMPANIES))

    assert not run_threads(work) and len(results) == 200 and all(r == expected for r in results)


# ------------------------------------------------------------------ properties

_text = st.lists(
    st.sampled_from(list('ab [ref:]="\\,.\n Zü€') + ["[ref:", "[ref:x]", '"]', "[ref:name]"]),
    max_size=30,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_text)
def test_strip_is_idempotent_and_never_crashes(text):
    once = strip_markers(text)
    assert strip_markers(once) == once
    assert "[ref:" not in once
    report = check_citations(text, COMPANIES)
    assert report.answer == once
    assert all(c.verdict in CITATION_VERDICTS for c in report.checks)
    if "[ref:" not in text:
        assert report.checks == () and once == text


_value = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    min_size=1,
    max_size=20,
)
# a record's name must stay inside one sentence when written into prose: no line breaks or
# other control / separator characters (a newline inside a name splits the sentence, and the
# second half may then genuinely name another row)
_name = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")),
    min_size=1,
    max_size=20,
)
# names are unique: two rows of one name make the record scope ambiguous (a separate case)
_rows = st.lists(
    st.fixed_dictionaries({"name": _name, "v": _value, "w": _value}), min_size=1, max_size=5,
    unique_by=lambda r: r["name"],
)


def _escape(v: str) -> str:
    return v.replace("\\", "\\\\").replace('"', '\\"')


@settings(max_examples=200, deadline=None)
@given(_rows, st.data())
def test_verbatim_value_from_scoped_row_is_exact(rows, data):
    # a row named like a word of the sentence ("IT" for "it") scopes the citation to that row
    assume(all(r["name"].strip().casefold() not in ("it", "has") for r in rows))
    ri = data.draw(st.integers(0, len(rows) - 1))
    value = rows[ri]["v"]
    prose = data.draw(st.sampled_from(["", rows[ri]["name"] + " has "]))
    c = one(f'{prose}it [ref:v="{_escape(value)}"].', rows)
    assert c.asserted_value == value
    assert c.verdict == "confirmed" and c.repair == "exact"
    if c.scope == "record":
        assert c.observed_values == (value,)


def _words(s):
    import re

    return re.findall(r"\w+", s.casefold())


@settings(max_examples=200, deadline=None)
@given(_rows, _value)
def test_ladder_never_accepts_a_value_in_no_row(rows, asserted):
    from director_fast.diagnostics.citations import _cow, _numeric_equal

    row_values = [v for r in rows for v in r.values()]
    for v in row_values:
        if _cow(v) == _cow(asserted):
            return
        if _numeric_equal(asserted, v):
            return
        if _words(asserted) and set(_words(asserted)) <= set(_words(v)):
            return
    all_words = {w for v in row_values for w in _words(v)}
    if _words(asserted) and set(_words(asserted)) <= all_words:
        return  # could be covered by two fields
    c = one(f'x [ref:v="{_escape(asserted)}"].', rows)
    assert c.verdict in ("refuted", "unverifiable", "unresolved")
    assert c.verdict != "confirmed"
    assert c.repair in (None, "mis_pointed")


def test_report_is_frozen():
    report = check_citations("x [ref:name]", COMPANIES)
    assert isinstance(report, CitationReport)
    with pytest.raises(AttributeError):
        report.answer = "y"  # type: ignore[misc]


def test_non_unique_longer_surface_blocks_shorter_identifier():
    rows = [
        {"city": "New York", "pop": 8},
        {"city": "New York", "pop": 9},
        {"city": "York", "pop": 0.2},
    ]
    # "New York" names two rows; "York" inside it must not name the York row
    c = one('New York has 8 [ref:pop="8"].', rows)
    assert c.scope == "result_set" and c.verdict == "confirmed"
    # an excluded (asserted) surface also consumes its words
    rows = [{"name": "A1", "city": "New York"}, {"name": "B2", "city": "York"}]
    c = one('The city is New York [ref:city="New York"].', rows)
    assert c.scope == "result_set" and c.verdict == "confirmed"


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_row_values_confirm_nothing(bad):
    c = one('It earns nan [ref:revenue="nan"].', [{"revenue": bad}])
    assert c.verdict != "confirmed"
    c = one('It earns inf [ref:revenue="inf"].', [{"revenue": bad}])
    assert c.verdict != "confirmed"


def test_row_keys_and_value_types_are_checked():
    import numpy as np

    from director_fast.errors import InputTypeError

    with pytest.raises(InputTypeError, match=r"rows\[0\]: variable names must be str"):
        check_citations('v [ref:1="2"].', [{1: 2}])
    with pytest.raises(InputTypeError, match="object is not understood"):
        check_citations('Revenue was 5 [ref:revenue="5"].', [{"revenue": object()}])
    got = check_citations('Revenue was 5 [ref:revenue="5"].', [{"revenue": np.int64(5)}])
    assert got.checks[0].verdict == "confirmed"
