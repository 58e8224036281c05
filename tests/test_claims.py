"""director_fast.verify.claims: units of an assistant answer and their kinds."""

from __future__ import annotations

import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from director_fast.verify.claims import CLAIM_KINDS, ClaimUnit, split_claims
from director_fast.errors import InputTypeError, ValidationError


def kinds(text: str) -> list[tuple[str, str]]:
    return [(u.kind, u.text) for u in split_claims(text)]


def check_units(text: str, units: list[ClaimUnit]) -> None:
    prev = 0
    for u in units:
        assert text[u.start:u.end] == u.text
        assert u.text and u.text == u.text.strip()
        assert prev <= u.start < u.end <= len(text)
        assert u.kind in CLAIM_KINDS
        prev = u.end


# ------------------------------------------------------------------------------------------
# one table per kind: each text is exactly one unit of that kind

PLEASANTRY = [
    "Yes.", "Sure!", "No.", "Of course!", "Great question!", "Thanks for reaching out!",
    "Hi there!", "Hello Anna!", "Happy to help.", "I hope this helps!", "You're welcome, Maria!",
    "No problem.", "Have a great day, Mr. Smith!", "Enjoy your trip!", "😊",
    "Thank you for your question.", "Hope that helps 🙂", "**Absolutely!**", "Okay",
    "Yes, of course!",
]

CLAIM = [
    # prefixes of chat phrases are not chat phrases
    "Thanks to the new policy, refunds take 5 days.",
    "Sure Foods was founded in 1990.",
    "We hope to open in May 2026.",
    "Great Britain has four nations.",
    "Welcome packs are free for members.",
    "Hello Kitty products are sold on the second floor.",
    "Enjoy free breakfast every morning.",
    "Happy hour starts at 5 pm.",
    "Thank you notes are left in every room.",
    "Hi-Fi systems are in every room.",
    "Well-known chefs cook here.",
    "Right now, the shop is closed.",
    "No parking is available on site.",
    # offers that assert something, or carry a checkable number/address
    "Feel free to bring your dog.",
    "Please contact reception to book a massage.",
    "You can contact reception by email.",
    "Please call 555-0100 for details.",
    "Let me know by 5 pm if you want the room.",
    "Please email support@example.com for details.",
    "Visit example.com for more information.",
    "We are happy to offer free parking.",
    "I'm happy to report that the shop is open.",
    # abstention / self-reference look-alikes
    "I don't know, but probably yes.",
    "The information desk doesn't have wheelchairs.",
    "I have no doubt the shop is open.",
    "The test results don't show any infection.",
    "I can't offer discounts.",
    "I don't have information about the 2024 prices.",
    "I'm an AI assistant built in 2023.",
]

# a trailing "?" does not hide a statement: tag questions and rhetorical ones are claims
QUESTION_LIKE_CLAIMS = [
    "Acme employs 9,000 people, doesn't it?", "Pets are allowed, is there anything else?",
    "Since Acme employs 9,000 people, what else do you need?", "Did you know Acme employs 9,000 people?",
    "Do you know that parking is free for 3 hours?", "The office opens at 7, right?",
]


@pytest.mark.parametrize("text", QUESTION_LIKE_CLAIMS)
def test_statements_ending_in_a_question_mark_are_claims(text):
    assert [u.kind for u in split_claims(text)] == ["claim"]


QUESTION = [
    "Is the pool heated?", "Would you like me to book the 9:00 class?",
    "Can I help with anything else?", "What time would you like to arrive?",
    'Do you need parking?"', "Really?!", "(Are you travelling with pets?)",
    "**Is there anything else?**", "Is there anything else I can help you with?",
]

OFFER = [
    "Let me know if you have other questions.", "Feel free to ask if you need anything else.",
    "Don't hesitate to reach out.", "If you have any other questions, just ask.",
    "I'd be happy to help with anything else.", "You may want to call reception to confirm.",
    "Please contact our support team for details.", "Just ask!", "You can always reach out.",
    "For more information, please visit our website.", "I'm here if you need anything else.",
    "If you have questions about parking, check the website.",
    "Feel free to contact us for further assistance.",
    "I recommend checking with the front desk directly.",
]

SELF_REFERENCE = [
    "I am an AI assistant.", "I'm a virtual assistant for Example Corp.",
    "I was trained by Example Corp.", "My name is Ava.", "I can't give medical advice.",
    "I don't have personal opinions.", "I don't have access to the internet.", "I'm not a doctor.",
    "As an AI assistant.", "This is an automated response.",
    "I'm designed to answer questions about Example Corp.",
]

ABSTENTION = [
    "I don't have information about that.",
    "I couldn't find anything about pets in the documents.",
    "The information I have doesn't mention weekend opening.",
    "I'm not sure.", "I don't know.",
    "There is no information about pets in the documents.",
    "The documents say nothing about pets.",
    "I don't have access to that information.",
    "I'm not able to confirm the parking rules.",
    "That information isn't available to me.",
    "I have no information about the shuttle.",
    "Nothing in the documents mentions pets.",
    "The provided context does not specify the check-out time.",
]


@pytest.mark.parametrize("kind,text", [("pleasantry", t) for t in PLEASANTRY]
                         + [("claim", t) for t in CLAIM]
                         + [("question", t) for t in QUESTION]
                         + [("offer", t) for t in OFFER]
                         + [("self_reference", t) for t in SELF_REFERENCE]
                         + [("abstention", t) for t in ABSTENTION])
def test_kind_table(kind, text):
    units = split_claims(text)
    check_units(text, units)
    assert [(u.kind, u.text) for u in units] == [(kind, text)]


def test_tables_are_big_enough():
    for table in (PLEASANTRY, CLAIM, QUESTION, OFFER, SELF_REFERENCE, ABSTENTION):
        assert len(table) >= 8


def test_kinds_constant():
    assert CLAIM_KINDS == ("claim", "pleasantry", "offer", "question", "self_reference",
                           "abstention")


# ------------------------------------------------------------------------------------------
# particles


@pytest.mark.parametrize("text,kind,rest", [
    ("No, the help desk is closed on public holidays.", "claim",
     "the help desk is closed on public holidays."),
    ("Yes, the shop is open on Sundays.", "claim", "the shop is open on Sundays."),
    ("Certainly: the museum is free.", "claim", "the museum is free."),
    ("Unfortunately, the clinic is closed on Sundays.", "claim", "the clinic is closed on Sundays."),
    ("Good news: the museum is free on Sundays.", "claim", "the museum is free on Sundays."),
    ("Of course, Absolutely, the pool is heated.", "claim", "the pool is heated."),
    ("I'm sorry, but the clinic is closed.", "claim", "the clinic is closed."),
    ("Hi Anna, the room is ready.", "claim", "the room is ready."),
    ("Hello Mr. Smith, the room is ready.", "claim", "the room is ready."),
    ("**Yes**, the shop is open.", "claim", "the shop is open."),
    ("Well — the shop is open.", "claim", "the shop is open."),
    ("Happy to help — the pool opens at 7 in the morning.", "claim", "the pool opens at 7 in the morning."),
    ("Glad you asked: the pool is heated.", "claim", "the pool is heated."),
    ("As an AI language model, I cannot browse the internet.", "self_reference",
     "I cannot browse the internet."),
    ("I'm sorry, I don't have any details on parking at the clinic.", "abstention",
     "I don't have any details on parking at the clinic."),
    ("Unfortunately, I couldn't find details on the shuttle.", "abstention",
     "I couldn't find details on the shuttle."),
    ("Sure, which date works for you?", "question", "which date works for you?"),
])
def test_particles_stripped(text, kind, rest):
    units = split_claims(text)
    check_units(text, units)
    assert len(units) == 1
    u = units[0]
    assert (u.kind, u.text) == (kind, rest)
    assert u.start == len(text) - len(rest) and u.end == len(text)


def test_help_desk_offsets():
    text = "No, the help desk is closed on public holidays."
    assert split_claims(text) == [ClaimUnit("the help desk is closed on public holidays.", 4,
                                            len(text), "claim")]


@pytest.mark.parametrize("text", ["Yes.", "No.", "Sure!", "OK.", "Absolutely!", "Yes!!",
                                  "Of course.", "Yes, of course!"])
def test_bare_particle_is_pleasantry(text):
    assert split_claims(text) == [ClaimUnit(text, 0, len(text), "pleasantry")]


@pytest.mark.parametrize("text,expected", [
    ("Sure! The shop opens at 9.", [("pleasantry", "Sure!"), ("claim", "The shop opens at 9.")]),
    ("Sure! the shop opens at 9.", [("pleasantry", "Sure!"), ("claim", "the shop opens at 9.")]),
    ("No. The help desk is closed.", [("pleasantry", "No."), ("claim", "The help desk is closed.")]),
    ("Yes, of course! the desk is open.", [("pleasantry", "Yes, of course!"),
                                           ("claim", "the desk is open.")]),
    ("Great question! The answer is 42.", [("pleasantry", "Great question!"),
                                           ("claim", "The answer is 42.")]),
    ("No. 5 bus stops here.", [("claim", "No. 5 bus stops here.")]),
    ("Right now, the shop is closed.", [("claim", "Right now, the shop is closed.")]),
])
def test_particle_sentences(text, expected):
    units = split_claims(text)
    check_units(text, units)
    assert [(u.kind, u.text) for u in units] == expected


# ------------------------------------------------------------------------------------------
# clauses


@pytest.mark.parametrize("text,expected", [
    # split: the right side has its own subject and finite verb
    ("Refunds take 5 days, and gift cards are not refundable.",
     ["Refunds take 5 days", "gift cards are not refundable."]),
    ("The pool is open until 10 pm, and the gym is open 24 hours.",
     ["The pool is open until 10 pm", "the gym is open 24 hours."]),
    ("The room has a TV and the bathroom has a tub, but the balcony is small.",
     ["The room has a TV", "the bathroom has a tub", "the balcony is small."]),
    ("It accepts cash and cards are accepted too.", ["It accepts cash", "cards are accepted too."]),
    # a plural noun that looks like a verb starts a clause before its own verb
    ("Delivery is free over £50, and returns are free too.", ["Delivery is free over £50", "returns are free too."]),
    ("Lessons last an hour and charges apply for late cancellation.",
     ["Lessons last an hour", "charges apply for late cancellation."]),
    ("Parking is free but it's often full.", ["Parking is free", "it's often full."]),
    ("The spa opens at 9, and Maria runs the front desk.",
     ["The spa opens at 9", "Maria runs the front desk."]),
    ("The pool is open; the gym is closed.", ["The pool is open", "the gym is closed."]),
    ("The cafe is open, and there is a terrace.", ["The cafe is open", "there is a terrace."]),
    # no split: no subject on the right, no verb on the left, subordinate or bracketed
    ("The shop opens at 9 and closes at 5.", ["The shop opens at 9 and closes at 5."]),
    ("The café serves lunch and opens at noon.", ["The café serves lunch and opens at noon."]),
    ("The desk opens at 9 and is open until 5.", ["The desk opens at 9 and is open until 5."]),
    ("The shop opens at 08:30 and closes at 18:00.",
     ["The shop opens at 08:30 and closes at 18:00."]),
    # "am" after a number is a time, not a verb (second reviewer)
    ("Breakfast is served between 7 and 10 am.", ["Breakfast is served between 7 and 10 am."]),
    ("The hotel and the spa are open.", ["The hotel and the spa are open."]),
    ("Breakfast is served from 7 and lunch from 12.",
     ["Breakfast is served from 7 and lunch from 12."]),
    ("Children under 12 and seniors over 65 are free.",
     ["Children under 12 and seniors over 65 are free."]),
    ("The fee is waived if you stay 3 nights and the room is booked directly.",
     ["The fee is waived if you stay 3 nights and the room is booked directly."]),
    ("The museum, which opened in 1990, and the park are both free.",
     ["The museum, which opened in 1990, and the park are both free."]),
    ("The pool (heated and the sauna is too) is open.",
     ["The pool (heated and the sauna is too) is open."]),
    ("The desk is open but not on Sundays.", ["The desk is open but not on Sundays."]),
    ("Cats, dogs and birds are allowed.", ["Cats, dogs and birds are allowed."]),
])
def test_clause_splitting(text, expected):
    units = split_claims(text)
    check_units(text, units)
    assert [u.text for u in units] == expected
    assert all(u.kind == "claim" for u in units)


def test_abstention_with_but():
    assert kinds("I don't have details on parking, but the clinic is downtown.") == [
        ("abstention", "I don't have details on parking"), ("claim", "the clinic is downtown.")]
    assert kinds("I'm not sure, however parking is usually free.") == [
        ("claim", "I'm not sure, however parking is usually free.")]
    assert kinds("I couldn't find the price, so it is probably free.") == [
        ("claim", "I couldn't find the price, so it is probably free.")]


def test_self_reference_then_claim():
    assert kinds("As an AI, I don't have feelings, but the shop opens at 9.") == [
        ("self_reference", "I don't have feelings"), ("claim", "the shop opens at 9.")]


@pytest.mark.parametrize("text,expected", [
    # pinned outputs at the edges of the splitter's cheap exits (particle look-ahead, chat-word
    # filter, "and"/"but" pre-check, comma + "so", Latin-letter count)
    ("Hi Anna Maria Smith, the room is ready.", [("claim", "the room is ready.")]),
    ("Thank you for getting in touch Anna Smith, the room is ready.",
     [("claim", "the room is ready.")]),
    ("Thank you for getting in touch, Anna.",
     [("pleasantry", "Thank you for getting in touch, Anna.")]),
    ("Good morning, Mr. Smith!", [("pleasantry", "Good morning, Mr. Smith!")]),
    ("Hello Mr. Smith. The room is ready.",
     [("pleasantry", "Hello Mr. Smith."), ("claim", "The room is ready.")]),
    ("The shop is open ‘and’ it is closed.", [("claim", "The shop is open ‘and’ it is closed.")]),
    ("The shop is open -and- it is closed.",
     [("claim", "The shop is open"), ("claim", "it is closed.")]),
    ("The shop is open AND it is closed.",
     [("claim", "The shop is open"), ("claim", "it is closed.")]),
    ("Brandon runs the shop and the café.", [("claim", "Brandon runs the shop and the café.")]),
    ("Paint, brushes and decorating supplies are in aisle 9.",
     [("claim", "Paint, brushes and decorating supplies are in aisle 9.")]),
    ("The museum is free and “the park is too” and it is open.",
     [("claim", "The museum is free and “the park is too”"), ("claim", "it is open.")]),
    ("I couldn't find the price, so I can't tell you whether it is free.",
     [("abstention", "I couldn't find the price, so I can't tell you whether it is free.")]),
    ("I don't know so the shop is open.", [("abstention", "I don't know so the shop is open.")]),
    ("As an AI language model, I cannot browse the internet and I don't have feelings.",
     [("self_reference", "I cannot browse the internet"),
      ("self_reference", "I don't have feelings.")]),
    ("The cafe is open. Кафе открыто.",
     [("claim", "The cafe is open."), ("claim", "Кафе открыто.")]),
])
def test_cheap_exit_edges(text, expected):
    units = split_claims(text)
    check_units(text, units)
    assert [(u.kind, u.text) for u in units] == expected


# ------------------------------------------------------------------------------------------
# markdown


def test_markdown_lists_headings_tables_code():
    text = ("# Opening hours\n\n"
            "- Monday to Friday: 9 to 5. Closed on weekends.\n"
            "* Parking is free\n"
            "+ Dogs are welcome\n"
            "1. Bring your ID\n"
            "2) Arrive early\n"
            "- [x] Pool cleaned\n"
            "> Quoted: the gym is open.\n\n"
            "| Day | Hours |\n"
            "|---|:---:|\n"
            "| Mon | 9-17 |\n\n"
            "```python\nprint('The shop is closed.')\n```\n"
            "~~~\nThe spa is closed.\n~~~\n"
            "---\n"
            "Done.")
    units = split_claims(text)
    check_units(text, units)
    assert [u.text for u in units] == [
        "Opening hours", "Monday to Friday: 9 to 5.", "Closed on weekends.", "Parking is free",
        "Dogs are welcome", "Bring your ID", "Arrive early", "Pool cleaned",
        "Quoted: the gym is open.", "Day | Hours", "Mon | 9-17", "Done."]
    # a table's first row is its header: column names, no claim
    assert [u.text for u in units if u.kind != "claim"] == ["Day | Hours"]
    assert {u.kind for u in units} == {"claim", "pleasantry"}


@pytest.mark.parametrize("previous, row, kind", [
    ("", "| Service | Price |", "pleasantry"),                      # the first line of the answer
    ("Here are our prices:", "| Service | Price |", "pleasantry"),  # a text line before it
    ("|---|---|", "| Full service | Included |", "claim"),           # a body row after the separator
    ("| Basic | NOK 650 |", "| Full service | Included |", "claim"),  # after another body row
    ("", "| Full service | NOK 1,200 |", "claim"),                  # a first row with a number is judged
])
def test_a_table_row_is_the_header_only_when_no_table_line_precedes_it(previous, row, kind):
    # a stream judges the row alone, with the sentence before it as `previous`
    assert [u.kind for u in split_claims(row, previous=previous)] == [kind]


def test_a_whole_table_answer_splits_as_a_stream_sees_it():
    text = "Prices:\n\n| Service | Price |\n|---|---|\n| Basic service | NOK 650 |\n| Full service | NOK 1,200 |"
    assert [(u.kind, u.text) for u in split_claims(text)] == [
        ("pleasantry", "Prices"), ("pleasantry", "Service | Price"),
        ("claim", "Basic service | NOK 650"), ("claim", "Full service | NOK 1,200")]


def test_heading_closing_hashes_and_kinds():
    assert kinds("## Parking ##\n### Thanks for asking!") == [
        ("claim", "Parking"), ("pleasantry", "Thanks for asking!")]


def test_list_item_kinds():
    assert kinds("- Sure!\n- Let me know if you need anything else.\n- Is parking free?") == [
        ("pleasantry", "Sure!"), ("offer", "Let me know if you need anything else."),
        ("question", "Is parking free?")]


def test_unclosed_fence_is_not_code():
    text = "```\nThe shop is closed on Sundays."
    assert kinds(text) == [("claim", "The shop is closed on Sundays.")]


def test_inline_triple_backticks_are_not_a_fence():
    text = "```x``` is code.\nThe pool is open."
    assert [u.text for u in split_claims(text)] == ["```x``` is code.", "The pool is open."]


def test_crlf_lines_and_fences():
    text = "- Parking is free\r\n```\r\nThe spa is closed.\r\n```\r\nThe gym is open.\r\n"
    units = split_claims(text)
    check_units(text, units)
    assert [u.text for u in units] == ["Parking is free", "The gym is open."]


def test_only_code_and_rules():
    assert split_claims("```\nx = 1\n```\n\n---\n|---|---|\n") == []


# ------------------------------------------------------------------------------------------
# whole answers


def test_typical_chat_answer():
    text = ("Hi there! Thanks for reaching out. The pool is open until 10 pm, and the gym is "
            "open 24 hours. Let me know if you have other questions.")
    units = split_claims(text)
    check_units(text, units)
    assert [(u.kind, u.text) for u in units] == [
        ("pleasantry", "Hi there!"), ("pleasantry", "Thanks for reaching out."),
        ("claim", "The pool is open until 10 pm"), ("claim", "the gym is open 24 hours."),
        ("offer", "Let me know if you have other questions.")]


def test_multiline_answer():
    text = ("Great question!\n\nThe clinic opens at 8:00. I don't have information about "
            "parking, though.\n\nI hope this helps!")
    assert kinds(text) == [
        ("pleasantry", "Great question!"), ("claim", "The clinic opens at 8:00."),
        ("abstention", "I don't have information about parking, though."),
        ("pleasantry", "I hope this helps!")]


def test_emoji_only_unit_is_pleasantry():
    assert kinds("Which room did you book? 🙂") == [
        ("question", "Which room did you book?"), ("pleasantry", "🙂")]


# ------------------------------------------------------------------------------------------
# language, validation, size


@pytest.mark.parametrize("text", [
    "Der Laden öffnet um 9 Uhr und schließt um 18 Uhr. Ja, Parken ist kostenlos.",
    "Le magasin ouvre à 9h et ferme à 18h. Oui, le parking est gratuit.",
    "店は9時に開きます。駐車場は無料です。",
    "Магазин открывается в 9 утра. Да.",
    "Pinecrest 周一至周五 7:00 至 19:00 营业。",  # a Latin name in a Chinese sentence: Han characters weigh two letters
    "Pinecrest 월요일부터 금요일까지 영업합니다.",
])
def test_non_english_all_claims_and_one_warning(text, caplog):
    with caplog.at_level(logging.WARNING, logger="director_fast.claims"):
        units = split_claims(text)
    check_units(text, units)
    assert units and all(u.kind == "claim" for u in units)
    recs = [r for r in caplog.records if r.name == "director_fast.claims"]
    assert len(recs) == 1 and "English" in recs[0].getMessage()


def test_english_logs_nothing(caplog):
    with caplog.at_level(logging.WARNING, logger="director_fast.claims"):
        split_claims("Sure! The shop opens at 9 and it is open on Sundays. Yes.")
        split_claims("Our Tokyo office (東京) opens at 9.")  # a name in its own script stays English
    assert not [r for r in caplog.records if r.name == "director_fast.claims"]


@pytest.mark.parametrize("bad", [None, 3, b"bytes", ["a"]])
def test_type_error_names_text(bad):
    with pytest.raises(InputTypeError, match="text"):
        split_claims(bad)


def test_lone_surrogate():
    with pytest.raises(ValidationError, match="text"):
        split_claims("The pool is open \ud800.")


@pytest.mark.parametrize("text", ["", " ", "\n\n\t ", "\u3000"])
def test_blank(text):
    assert split_claims(text) == []


def test_unit_is_frozen():
    u = split_claims("The pool is open.")[0]
    with pytest.raises(AttributeError):
        u.kind = "offer"  # type: ignore[misc]


def test_large_input_runs():
    base = ("Hi there! The pool is open until 10 pm, and the gym is open 24 hours; dogs are "
            "welcome. - Parking is free\n| a | b |\n|---|---|\n```\ncode\n```\nI don't have "
            "details on parking, but the clinic is downtown. Let me know if you need more.\n")
    text = (base * (200_000 // len(base) + 1))[:200_000]
    units = split_claims(text)
    check_units(text, units)
    assert len(units) > 1000
    for pathological in ("and " * 50_000, "Yes, " * 40_000, "|" * 200_000, "a" * 200_000,
                         "```\n" * 50_000, "The shop is open and " * 10_000):
        check_units(pathological, split_claims(pathological))


# ------------------------------------------------------------------------------------------
# properties

_FRAGMENTS = st.sampled_from([
    "Yes, ", "No. ", "Sure! ", "Hi Anna, ", "As an AI, ", "I'm sorry, but ", "the shop is open",
    " and ", ", but ", "; ", " it is closed", "I don't know", "Let me know", "?", "!", ".", "\n",
    "- ", "1. ", "# ", "| a | b |\n", "|---|---|\n", "```\n", "~~~\n", "> ", "**", "😊", "é",
    "店", "\u2028", "\r\n", "  ", "Mr. ", "gift cards are", "$5", "(", ")", '"',
])
_TEXT = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=120),
    st.lists(st.one_of(_FRAGMENTS, st.text(alphabet=st.characters(blacklist_categories=("Cs",)),
                                           max_size=6)), max_size=25).map("".join),
)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_units_are_spans_in_order(text):
    units = split_claims(text)
    check_units(text, units)
    if not text.strip():
        assert units == []


# ---- chat styles of other models: compound chat, emphasis, short English sentences -----------

@pytest.mark.parametrize("text,kinds", [
    ("I hope you both have a lovely swim, and don't hesitate to ask if there's anything else I can "
     "help with!", ["offer"]),
    ("Hope that clears it up, and happy invoicing!", ["pleasantry"]),
    ("Great question — and thank you for the work you do!", ["pleasantry"]),
    ("Hey, thanks so much for asking — that's a really thoughtful question! 💙", ["pleasantry", "pleasantry"]),
    ("That isn't covered in the information I have, so I can't confirm either way.", ["abstention"]),
    ("I'd recommend asking the support team directly so procurement gets an accurate answer.", ["offer"]),
    ("Registered non-profits get **30% off Growth and Scale** (Starter isn't eligible).", ["claim"]),
    # traps: a compound with a fact in it stays a claim
    ("Enjoy your swim, and the pool closes at 9 pm.", ["pleasantry", "claim"]),
    ("Hope that helps, and the sauna costs £6.", ["claim"]),
    ("I hope you enjoy it, and we hope to open in May.", ["claim"]),
])
def test_chat_styles(text, kinds):
    got = [u.kind for u in split_claims(text)]
    assert got == kinds, [(u.kind, u.text) for u in split_claims(text)]


def test_short_plain_english_sentences_are_recognised_as_english(caplog):
    caplog.set_level("WARNING")
    split_claims("I'd recommend asking the support team directly so procurement gets an accurate answer.")
    assert "do not look like English" not in caplog.text


@pytest.mark.parametrize("text,claim", [
    ("No, not yet — the Care Plan has a minimum term of 12 months.", "the Care Plan has a minimum term of 12 months."),
    ("Not really, the shop opens at 9.", "the shop opens at 9."),
])
def test_hedged_answer_particles_are_stripped(text, claim):
    assert [(u.kind, u.text) for u in split_claims(text)] == [("claim", claim)]


@pytest.mark.parametrize("text,kind", [
    ("Would you like to know that the shop opens at 9 am?", "claim"),
    ("Is there anything else, given that the shop opens at 9 am?", "claim"),
    ("Anything else I can help with, given the shop opens at 9 am?", "claim"),
    ("Would you like me to book the 9:00 class?", "question"),
])
def test_questions_that_carry_a_statement_are_claims(text, kind):
    assert [u.kind for u in split_claims(text)] == [kind]


def test_but_after_a_subordinate_clause_still_splits_off_its_own_claim():
    from director_fast.verify.claims import split_claims

    units = split_claims("I don't know whether we deliver on Sundays, but standard delivery costs £4.95.")
    assert [(u.kind, u.text) for u in units] == [("abstention", "I don't know whether we deliver on Sundays"),
                                                ("claim", "standard delivery costs £4.95.")]
    # an "and" inside the condition still joins it
    assert len(split_claims("If you are over 65 and you live locally, you get a discount.")) == 1
