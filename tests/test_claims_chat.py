"""split_claims on the reply styles of chat models: closings and wishes, framing lines, suggestions,
source tags, hedge/attribution openers and markdown labels. Every example is invented here."""

from __future__ import annotations

import pytest

from director_fast.verify.claims import split_claims


def kinds(text: str) -> list[tuple[str, str]]:
    return [(u.text, u.kind) for u in split_claims(text)]


def claims(text: str) -> list[str]:
    return [u.text for u in split_claims(text) if u.kind == "claim"]


# ---- 1. chat units -----------------------------------------------------------------------------

@pytest.mark.parametrize("text,kind", [
    ("Enjoy the concert, and feel free to ask if you need anything else.", "offer"),
    ("Enjoy the ride!", "pleasantry"),
    ("Enjoy, and just shout if anything else comes up!", "offer"),
    ("Just shout if you get stuck.", "offer"),
    ("Give us a shout whenever you like.", "offer"),
    ("Hope we can sort it out quickly — anything else I can help with?", "offer"),
    ("Hope we can get you back on the road soon!", "pleasantry"),
    ("No problem at all!", "pleasantry"),
    ("No trouble at all.", "pleasantry"),
    ("Thanks so much for supporting the bakery, and have a lovely evening!", "pleasantry"),
    ("If you're unsure which size fits, I'd suggest contacting the shop.", "offer"),
    ("For parking details, it would be best to contact the venue directly before your visit.",
     "offer"),
    ("In case the form won't load, it's worth asking reception.", "offer"),
])
def test_closings_wishes_and_suggestions_are_not_claims(text, kind):
    assert kinds(text) == [(text, kind)]


@pytest.mark.parametrize("text,kind", [
    # what a support agent says while working, and refusals: nothing asserted about the world
    ("Let me check that for you.", "pleasantry"),
    ("Let me look into that.", "pleasantry"),
    ("One moment please.", "pleasantry"),
    ("I understand your frustration.", "pleasantry"),
    ("I apologise for the inconvenience.", "pleasantry"),
    ("Ride safe!", "pleasantry"),
    ("Thank you for contacting Nordwind Bikes support.", "pleasantry"),
    ("I can help you with that.", "offer"),
    ("I'm afraid I can't help with that.", "abstention"),
    ("I can't share that.", "abstention"),
])
def test_support_agent_furniture_and_refusals_are_not_claims(text, kind):
    assert kinds(text) == [(text, kind)]


@pytest.mark.parametrize("text", [
    "I can help you with refunds.",     # says what the service covers
    "I cannot give refunds.",           # a policy, not a refusal to answer
    "Let me check: the shop opens at 9.",
    "Support is open 24/7.",
])
def test_furniture_lookalikes_that_state_something_stay_claims(text):
    assert claims(text)


@pytest.mark.parametrize("text,kind", [
    ("Our hours are:", "pleasantry"),
    ("Here are the prices:", "pleasantry"),
    ("Our opening hours are as follows:", "pleasantry"),
    ("Prices:", "pleasantry"),
    ("Example:", "pleasantry"),
    ("Membership is free and covers:", "claim"),   # states something before its list
    ("Dogs are welcome:", "claim"),
    ("The shop is closed:", "claim"),
])
def test_a_line_that_presents_a_list_is_not_a_claim(text, kind):
    units = split_claims(text + "\n- Weekdays: 09:00-18:00")
    assert units[0].kind == kind and units[-1].kind == "claim"


@pytest.mark.parametrize("text", [
    # a suggestion that carries a checkable fact stays a claim
    "You can email desk@plumtree.example; messages are answered within 3 working days.",
    "It may be worth emailing desk@plumtree.example to ask about the rest.",
    "Since the kiosk shuts on Sundays, it's best to call ahead.",  # "since" asserts
    "If you cancel late, you lose the deposit.",
    "For groups, please contact reception to book the sauna.",
    "Enjoy the free breakfast in the lounge!",  # an object that asserts something
    "Enjoy the crossing to Fernholm on the new boat.",
    "Refunds take a week — anything else I can help with?",
    "We hope to open the second studio in spring.",
])
def test_suggestions_and_wishes_that_state_a_fact_stay_claims(text):
    assert all(k == "claim" for _, k in kinds(text)) and claims(text)


@pytest.mark.parametrize("text,claim", [
    ("Hope you enjoy it, the spa is closed on Mondays.", "the spa is closed on Mondays."),
    ("Oh no, the lift is out of order until Friday.", "the lift is out of order until Friday."),
    ("Enjoy your stay, and the sauna is open late on Thursdays.",
     "the sauna is open late on Thursdays."),
    ("Feel free to call, the desk is staffed all day.", "the desk is staffed all day."),
])
def test_a_wish_followed_by_a_clause_keeps_the_clause_as_a_claim(text, claim):
    assert claims(text) == [claim]
    u = next(u for u in split_claims(text) if u.kind == "claim")
    assert text[u.start:u.end] == u.text


@pytest.mark.parametrize("text", [
    "Oh no, I'm so sorry to hear that — long queues can be exhausting!",
    "Oh no, sorry to hear that!",
    "Hope that helps, and have a great day!",
])
def test_sympathy_clauses_stay_chat(text):
    assert not claims(text)


def test_framing_line_above_a_list_is_not_a_claim():
    text = "Here's how the two plans compare:\n\n- **Lite** – 5 GB of storage.\n- **Pro** – 50 GB."
    got = kinds(text)
    assert got[0] == ("Here's how the two plans compare", "pleasantry")
    assert [k for _, k in got[1:]] == ["claim", "claim"]
    assert kinds("Joining the club gets you:\n* a locker\n* two guest passes")[0][1] == "pleasantry"
    assert kinds("The annual pass includes:\n| Pool | Gym |")[0][1] == "pleasantry"
    # what follows is never looked at: a stream classifies the line before the list arrives
    assert kinds("Joining the club gets you:")[0][1] == "pleasantry"
    assert kinds("Here's how they compare:\n\nThe Lite plan has 5 GB.")[0][1] == "pleasantry"


@pytest.mark.parametrize("text", [
    "Dogs are not allowed in:\n- the sauna",           # a negation is content
    "Here's how booking works with Dr Lowe:\n- call",  # a name is content
    "The sauna is closed on:\n- Sundays",              # not a lead-in shape
    "Members get 3 guest passes:\n- weekdays only",    # a digit
    # found by a reviewer: lines that state something before their colon
    "Members park free and also get:\n- two guest passes",
    "Membership is free and covers:\n- the gym",
    "Parking is free for members, and so are the following:\n- towels",
    "Parking is always free, see the details:",
])
def test_lines_ending_in_a_colon_that_assert_stay_claims(text):
    assert split_claims(text)[0].kind == "claim"


# ---- 2. source tags ----------------------------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("The bakery opened in 1998 (about.md). Ann Lee runs it [team.md].",
     ["The bakery opened in 1998", "Ann Lee runs it"]),
    ("Lockers cost £2 a day (source: lockers.md).", ["Lockers cost £2 a day"]),
    ("The sauna seats 12 [1].", ["The sauna seats 12"]),
    ("Parking is free after 18:00 [2, 3].", ["Parking is free after 18:00"]),
    ("Bikes go free【4】.", ["Bikes go free"]),
    ("[^1] Towels are provided.", ["Towels are provided."]),
    ("The gym opens at 06:00 [1], and the pool opens at 07:00 [2].",
     ["The gym opens at 06:00", "the pool opens at 07:00"]),
])
def test_source_tags_are_trimmed_from_claims(text, expected):
    units = [u for u in split_claims(text) if u.kind == "claim"]
    assert [u.text for u in units] == expected
    assert all(text[u.start:u.end] == u.text for u in units)


def test_a_unit_of_only_source_tags_is_dropped():
    assert split_claims("(source: fees.md)") == []
    assert kinds("Lockers cost £2.\n\n[1] [2]") == [("Lockers cost £2.", "claim")]
    assert kinds("Feel free to call us [2].") == [("Feel free to call us", "offer")]


@pytest.mark.parametrize("text", [
    "The sauna (see below) is open.",   # a parenthesis that is not a source
    "Room [B] is on the left.",
    "Opening year [2004] is on the plaque.",  # four digits: not a citation number
])
def test_brackets_that_are_not_source_tags_stay(text):
    assert claims(text) == [text]


# ---- 3. hedge and attribution openers ----------------------------------------------------------

@pytest.mark.parametrize("text,claim", [
    ("As far as I can see, the studio has no lift.", "the studio has no lift."),
    ("As far as I can tell from our venue notes, there's no cloakroom.", "there's no cloakroom."),
    ("According to our fees page, a lesson costs £30.", "a lesson costs £30."),
    ("From what I can find, the café shuts at 16:00.", "the café shuts at 16:00."),
    ("Based on the information I have, dogs are welcome on the terrace.",
     "dogs are welcome on the terrace."),
    ("Yes, as far as I know, the pool is heated.", "the pool is heated."),
    ("To my knowledge, the hall seats 200.", "the hall seats 200."),
])
def test_openers_are_dropped_from_the_claim(text, claim):
    u = [u for u in split_claims(text) if u.kind == "claim"]
    assert [x.text for x in u] == [claim] and u[0].start == text.index(claim)


@pytest.mark.parametrize("text", [
    "According to the 2021 survey, most members cycle.",  # the opener holds a number
    "According to Dr Lowe, the brace takes 9 months.",    # attribution to a named person
    "Based on weight, parcels cost £4 to £9.",            # not an opener shape
])
def test_openers_with_content_stay(text):
    assert claims(text) == [text]


def test_opener_before_an_abstention():
    assert kinds("As far as I can tell, I don't have any details on that.") == [
        ("I don't have any details on that.", "abstention")]


# ---- 4. markdown labels ------------------------------------------------------------------------

@pytest.mark.parametrize("text,claim", [
    ("**Short answer:** the annual plan is cheaper.", "the annual plan is cheaper."),
    ("**How it works:** members book a slot online.", "members book a slot online."),
    ("__Note__: the studio is shut in August.", "the studio is shut in August."),
    ("**Quick answer:** yes, the sauna is mixed.", "the sauna is mixed."),
    ("- **Storage:** both plans include 10 GB.", "both plans include 10 GB."),
])
def test_framing_labels_are_dropped(text, claim):
    assert claims(text) == [claim]


@pytest.mark.parametrize("text", [
    "**Sunday:** 9:00–13:00",                           # the label is the subject
    "**Cost for 8 guests:** £90 covers up to 6.",       # the label holds a number
    "**Pro Plan:** you get unlimited seats.",           # the label names something
    "**Refund:** when you cancel, it is prorated.",     # no clause of its own follows
])
def test_labels_that_carry_content_stay(text):
    assert claims(text) == [text]


def test_source_tags_do_not_count_as_words_of_the_language_check(caplog):
    text = ("For room bookings, email desk@oakfold.example; facilities lead Nia Brook looks after key cards"
            " [ops.md].")
    with caplog.at_level("WARNING", logger="director_fast.claims"):
        assert claims(text) == ["For room bookings, email desk@oakfold.example",
                                "facilities lead Nia Brook looks after key cards"]
    assert not caplog.records


@pytest.mark.parametrize("text,kind", [
    ("Any other questions, just shout!", "offer"),
    ("Just shout!", "offer"),
    ("More questions? Just shout.", None),  # a question and an offer: no claim either way
    ("The reception team should be able to put you in touch with the right person.", "offer"),
    ("I'm so sorry.", "pleasantry"),
    ("Love the enthusiasm!", "pleasantry"),
    ("A couple of things to check first:", "pleasantry"),
    ("Some points to note:", "pleasantry"),
])
def test_more_chat_units(text, kind):
    got = kinds(text)
    if kind is None:
        assert not claims(text), got
    else:
        assert got[0][1] == kind, got


@pytest.mark.parametrize("text", [
    "Just shout at the desk if the sauna is too hot.",  # an instruction with content
    "Love the view from Room 4!",                       # a name and a digit: checkable
    "Three things to know: the pool opens at 7.",       # a digit after the colon
])
def test_chat_look_alikes_stay_claims(text):
    assert claims(text), kinds(text)


@pytest.mark.parametrize("text,expected", [
    ("Bear in mind the plan has a minimum term of 12 months.", ["the plan has a minimum term of 12 months."]),
    ("Just remember that children under 8 need an adult.", ["children under 8 need an adult."]),
    ("Please note that parking is free after 6 pm.", ["parking is free after 6 pm."]),
    ("Remember to bring your membership card.", ["Remember to bring your membership card."]),  # an instruction
])
def test_reminder_openers_are_dropped(text, expected):
    assert claims(text) == expected


@pytest.mark.parametrize("text", [
    # found by a second reviewer: a gerund subject with a finite verb states something
    "Visiting the gallery costs nothing.", "Calling us costs nothing.",
])
def test_a_gerund_subject_is_no_offer(text):
    assert claims(text) == [text]


@pytest.mark.parametrize("text", [
    "It's a good idea to tell the branch if you're running late.",
    "It's worth letting reception know before you arrive.",
])
def test_advice_to_tell_someone_is_an_offer(text):
    assert kinds(text) == [(text, "offer")]
