"""Validators hold under disguise (issue 30, item 3).

Invariance: whatever a field's validator rejects in plain form it also rejects, in every string
field of a SafetyEvent and a DirectorSafetySignal (ids included), after each disguise:

* ``zero_width``  -- zero-width / format characters inserted anywhere;
* ``tags``        -- invisible tag characters (U+E0000..U+E007F) between the secret's characters;
* ``compat``      -- characters replaced by full-width or other compatibility forms (any code point
                     whose NFKC form is the character);
* ``split``       -- the secret split by spaces, dots or one other character (one separator kind
                     per disguise, inserted between any characters; see SPLIT_SEPARATORS);
* ``mixed``       -- split by two or three separator kinds mixed;
* ``lookalike``   -- capitals written as Latin small capitals or regional-indicator letters,
                     digits as the decimal digits of another script;
* ``base64``      -- a long base64 / base64url run broken by dots or spaces;
* ``webhook``     -- a chat-service webhook URL carrying its token in the path (plain, under the
                     other disguises, and with its path written as a server still reads it:
                     ``//``, ``/./``, ``/x/../``, backslashes, ``%2F``).

One Hypothesis property per disguise class; each example checks every field, through the
constructor and through the payload validator. Their time budget is ``DISGUISE_SHARE`` of
``DIRECTOR_FAST_FUZZ_SECONDS`` each (tests/_fuzz.py; the seed is printed on failure).

Documented limit, kept out of ``split``: the *value* of a ``key: value`` pair or of ``Bearer
<credential>`` split by spaces reads as prose ("Password: correct horse" cannot be told from
"Password: required for admins"), and a ``$``, ``<``, ``{`` or ``%`` put just before a value makes
it read as a template (``${X}``); spaces may split the key, ``=`` assignments split anywhere.

Innocent classes stay accepted: long file paths and long hex digests (SHA-256, git SHA-1, MD5,
SHA-512) in every field that can hold them. Events stored by the previous version still load
(tests/fixtures/stored_safety_events.json, written by main's build with
tests/fixtures/make_stored_safety_events.py).
"""

from __future__ import annotations

import base64
import json
import string
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from _fuzz import run_until, total_seconds
from director_fast.errors import ValidationError
from director_fast.safety import event as se
from director_fast.safety import protocol as sp
from director_fast.safety.tenant import tenant_safety_violation
from director_fast.types.results import HaltTraceAttribution
from test_safety_validators import SECRETS

HERE = Path(__file__).resolve().parent
#: fraction of the fuzz budget for each property of this file (10 properties; 1.2 s each by default)
DISGUISE_SHARE = 0.04

BASE = dict(hook_id="agent.tool", hook_scope="agent", policy_decision="warn", halt_reason="r",
            tenant_safe_explanation="Review the safety decision.")
TRACE = dict(fact_source="kb:1", retrieval_path="evidence_index.search", scorer_path="scorer.review",
             token_offset=3, threshold=0.5, causal_contribution=0.2)
GOOD_EVENT = se.SafetyEvent.from_policy_decision(**BASE, trace_attribution=HaltTraceAttribution(**TRACE))
GOOD_PAYLOAD = GOOD_EVENT.to_dict()
GOOD_SIGNAL = sp.director_safety_signal_from_event(GOOD_EVENT, producer_id="runtime-alpha").to_transport_dict()


# ---- every string field ------------------------------------------------------------------------
def _event_kw(field: str, value: str) -> dict:
    if field in ("request_id", "tenant_id", "hook_id", "halt_reason", "tenant_safe_explanation"):
        return {field: value}
    if field == "event_id":
        return {"event_id": "sevt_" + value}
    if field == "evidence_ref":
        return {"evidence_refs": ("kb:1", value)}
    if field == "attribute_value":
        return {"attributes": {"note": value}}
    if field == "attribute_key":
        return {"attributes": {value: "x"}}
    if field.startswith("trace."):
        return {"trace_attribution": HaltTraceAttribution(**{**TRACE, field[6:]: value})}
    raise AssertionError(field)


EVENT_FIELDS = ["event_id", "request_id", "tenant_id", "hook_id", "halt_reason", "tenant_safe_explanation",
                "evidence_ref", "attribute_value", "attribute_key", "trace.fact_source",
                "trace.retrieval_path", "trace.scorer_path"]
SIGNAL_FIELDS = ["signal_id", "producer_id", "framework", "extension_value", "extension_key"]
FIELDS = EVENT_FIELDS + SIGNAL_FIELDS


def _signal_kw(field: str, value: str) -> dict:
    return {"signal_id": {"signal_id": "dsp_" + value}, "producer_id": {"producer_id": value},
            "framework": {"framework": value}, "extension_value": {"extensions": {"note": value}},
            "extension_key": {"extensions": {value: "x"}}}[field]


def _raises(fn) -> bool:
    try:
        fn()
    except ValidationError:
        return True
    return False


def rejected(field: str, value: str) -> bool:
    """True when the field's validators reject ``value`` -- through the constructor and through the
    payload validator (both must agree)."""
    if field in EVENT_FIELDS:
        kw = _event_kw(field, value)
        ctor = _raises(lambda: se.SafetyEvent.from_policy_decision(**{**BASE, **kw}))
        payload = dict(GOOD_PAYLOAD)
        for k, v in kw.items():
            payload[k] = v.to_dict() if k == "trace_attribution" else list(v) if isinstance(v, tuple) else v
        via_payload = _raises(lambda: se.validate_safety_event_payload(payload))
    else:
        kw = _signal_kw(field, value)
        ctor = _raises(lambda: sp.director_safety_signal_from_event(GOOD_EVENT, **{"producer_id": "runtime-alpha", **kw}))
        via_payload = _raises(lambda: sp.validate_director_safety_signal({**GOOD_SIGNAL, **kw}))
    assert ctor == via_payload, (field, value, ctor, via_payload)
    return ctor


def assert_rejected_everywhere(plain: str, disguised: str) -> None:
    for field in FIELDS:
        assert rejected(field, plain), ("plain form accepted", field, plain)
        assert rejected(field, disguised), ("disguise accepted", field, disguised, plain)


# ---- the secrets ---------------------------------------------------------------------------------
def _webhook_urls(draw) -> str:
    def tok(alphabet, lo, hi):
        return draw(st.text(alphabet=alphabet, min_size=lo, max_size=hi))
    up_dig = string.ascii_uppercase + string.digits
    alnum = string.ascii_letters + string.digits
    b64url = alnum + "_-"
    hx = "0123456789abcdef"
    guid = "-".join(tok(hx, n, n) for n in (8, 4, 4, 4, 12))
    return draw(st.sampled_from([
        f"https://hooks.slack.com/services/T{tok(up_dig, 8, 10)}/B{tok(up_dig, 8, 10)}/{tok(alnum, 24, 24)}",
        f"https://hooks.slack.com/workflows/T{tok(up_dig, 8, 10)}/A{tok(up_dig, 8, 10)}/{tok(hx, 18, 18)}/{tok(alnum, 24, 24)}",
        f"https://discord.com/api/webhooks/{tok(string.digits, 17, 19)}/{tok(b64url, 68, 68)}",
        f"https://ptb.discordapp.com/api/webhooks/{tok(string.digits, 17, 19)}/{tok(b64url, 60, 68)}",
        f"https://acme.webhook.office.com/webhookb2/{guid}@{guid}/IncomingWebhook/{tok(hx, 32, 32)}/{guid}",
        f"https://outlook.office.com/webhook/{guid}@{guid}/IncomingWebhook/{tok(hx, 32, 32)}/{guid}",
        f"https://prod-27.westus.logic.azure.com:443/workflows/{tok(hx, 32, 32)}/triggers/manual/paths/invoke",
        f"https://chat.googleapis.com/v1/spaces/{tok(alnum, 11, 11)}/messages",
        f"https://api.telegram.org/bot{tok(string.digits, 9, 10)}:{tok(b64url, 35, 35)}/sendMessage",
        f"https://hooks.zapier.com/hooks/catch/{tok(string.digits, 6, 8)}/{tok(alnum, 6, 7)}/",
        f"https://maker.ifttt.com/trigger/deploy/with/key/{tok(b64url, 22, 22)}",
    ]))


webhooks = st.composite(_webhook_urls)()


@st.composite
def random_secrets(draw) -> str:
    """Random credential-shaped values: base64 / base64url keys, vendor-prefixed tokens."""
    raw = draw(st.binary(min_size=24, max_size=60))
    kind = draw(st.sampled_from(["b64", "b64url", "ghp", "akia", "sk", "hf"]))
    if kind == "b64":
        return base64.b64encode(raw).decode()
    if kind == "b64url":
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")
    alnum = string.ascii_letters + string.digits
    tail = "".join(alnum[b % 62] for b in raw)
    if kind == "ghp":
        return "ghp_" + tail[:36].ljust(36, "Q")
    if kind == "akia":
        return "AKIA" + "".join((string.ascii_uppercase + string.digits)[b % 36] for b in raw[:15]) + "7"
    if kind == "sk":
        return "sk-proj-" + tail[:30] + "aZ9"
    return "hf_" + tail[:34].ljust(34, "x")


def _plain_reason(secret: str) -> str | None:
    return tenant_safety_violation(secret)


secrets = st.one_of(st.sampled_from(SECRETS), random_secrets(), webhooks).filter(lambda s: _plain_reason(s) is not None)


# ---- the disguises -------------------------------------------------------------------------------
ZERO_WIDTH = sorted(
    {chr(c) for c in range(0x80, 0x10000) if unicodedata.category(chr(c)) == "Cf"}
    | {"\u115f", "\u1160", "\u3164", "\uffa0", "\u034f", "\ufe0f", "\U000e0001", "\U000e007f"}
)
_COMPAT: dict[str, list[str]] = {}
for _cp in range(0x80, 0x110000):
    if 0xD800 <= _cp <= 0xDFFF:
        continue
    _k = unicodedata.normalize("NFKC", chr(_cp))
    if len(_k) == 1 and _k.isascii() and _k.isprintable():
        _COMPAT.setdefault(_k, []).append(chr(_cp))
#: separators of the ``split`` class besides space and '.': punctuation (except the template
#: characters, see the module docstring) and non-ASCII dots, bullets and dashes
SPLIT_OTHERS = [c for c in string.punctuation if c not in "<${%."] + ["\u00b7", "\u2022", "\u2027", "\u2014", "\u3001"]


def _insert(draw, text: str, chars: st.SearchStrategy[str], gaps: list[int]) -> str:
    chosen = sorted(draw(st.lists(st.sampled_from(gaps), min_size=1, max_size=len(gaps), unique=True)), reverse=True)
    out = text
    for g in chosen:
        out = out[:g] + draw(chars) + out[g:]
    return out


def zero_width(draw, text: str) -> str:
    return _insert(draw, text, st.sampled_from(ZERO_WIDTH), list(range(len(text) + 1)))


def compat(draw, text: str) -> str:
    flags = draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
    assume(any(f and c in _COMPAT for f, c in zip(flags, text)))
    return "".join(draw(st.sampled_from(_COMPAT[c])) if f and c in _COMPAT else c for f, c in zip(flags, text))


def _space_limit(secret: str) -> int:
    """Gaps a space may split: all, except after the ':' of a ``key: value`` pair or after
    ``Bearer`` when the secret is such an assignment (the documented limit)."""
    reason = _plain_reason(secret) or ""
    if "(S1" not in reason and "(S2" not in reason:
        return len(secret)
    ends = [len(secret)]
    low = secret.lower()
    if "bearer" in low:
        ends.append(low.index("bearer") + 6)
    for i, c in enumerate(secret):
        if c == ":" and not secret.startswith("//", i + 1) and not secret.startswith("=", i + 1):
            if "=" not in secret[:i]:
                ends.append(i)
            break
    return min(ends)


def split(draw, text: str) -> str:
    kind = draw(st.sampled_from(["space", "dot", "other"]))
    sep = " " if kind == "space" else "." if kind == "dot" else draw(st.sampled_from(SPLIT_OTHERS))
    assume(sep not in text)
    limit = _space_limit(text) if sep == " " else len(text)
    gaps = list(range(1, min(limit, len(text) - 1) + 1))
    assume(gaps)
    return _insert(draw, text, st.just(sep), gaps)


def tags(draw, text: str) -> str:
    """Invisible tag characters (U+E0000..U+E007F) between the secret's characters (a new user's
    bypass: they fold to the letters they encode)."""
    return _insert(draw, text, st.integers(0xE0000, 0xE007F).map(chr), list(range(1, len(text))))


THREE_KIND_LIMIT = "-_./+:="


def mixed(draw, text: str) -> str:
    """The secret split by two or three separator kinds mixed ("sk-ab12.cd34 ef56...",
    "AKIAGZ-GSYEBA_NND4YZ.0E"): each chosen gap between two letters or digits gets one of them
    (all used)."""
    pool = [" ", "."] + SPLIT_OTHERS
    kinds = draw(st.lists(st.sampled_from(pool), min_size=2, max_size=3, unique=True))
    # three kinds: the views keep the characters of one secret alphabet (base64, base64url, dotted
    # tokens, URLs) and remove all other kinds; a third separator taken from those alphabets
    # ("-_./+:=") is the documented limit
    assume(len(kinds) < 3 or not any(k in THREE_KIND_LIMIT for k in kinds))
    assume(not any(k in text for k in kinds))
    limit = _space_limit(text) if " " in kinds else len(text)
    gaps = [g for g in range(1, min(limit, len(text) - 1) + 1) if text[g - 1].isalnum() and text[g].isalnum()]
    assume(len(gaps) >= len(kinds))
    chosen = sorted(draw(st.lists(st.sampled_from(gaps), min_size=len(kinds), max_size=len(gaps), unique=True)),
                    reverse=True)
    seps = kinds + [draw(st.sampled_from(kinds)) for _ in chosen[len(kinds):]]
    out = text
    for g, sep in zip(chosen, draw(st.permutations(seps))):
        out = out[:g] + sep + out[g:]
    return out


#: look-alikes of capitals and digits the fold reads as ASCII: Latin small capitals and
#: regional-indicator letters (by name), decimal digits of other scripts (category Nd)
_CAPITAL_LOOKALIKES: dict[str, list[str]] = {}
_DIGIT_LOOKALIKES: dict[str, list[str]] = {}
for _cp in range(0x80, 0x20000):
    _ch = chr(_cp)
    _name = unicodedata.name(_ch, "")
    for _lead in ("LATIN LETTER SMALL CAPITAL ", "REGIONAL INDICATOR SYMBOL LETTER "):
        if _name.startswith(_lead) and len(_name) == len(_lead) + 1:
            _CAPITAL_LOOKALIKES.setdefault(_name[-1], []).append(_ch)
    if unicodedata.category(_ch) == "Nd":
        _DIGIT_LOOKALIKES.setdefault(str(unicodedata.decimal(_ch)), []).append(_ch)


def lookalike(draw, text: str) -> str:
    """Capitals written as small capitals or regional-indicator letters ("ᴀᴋɪᴀ..."), digits as
    another script's decimal digits ("٧"): some of them, chosen at random."""
    table = {**_CAPITAL_LOOKALIKES, **_DIGIT_LOOKALIKES}
    flags = draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
    assume(any(f and c in table for f, c in zip(flags, text)))
    return "".join(draw(st.sampled_from(table[c])) if f and c in table else c for f, c in zip(flags, text))


DISGUISES = {"zero_width": zero_width, "compat": compat, "split": split, "tags": tags, "mixed": mixed,
             "lookalike": lookalike}


def _run(prop, name: str) -> None:
    run_until(total_seconds() * DISGUISE_SHARE, prop, name)


_settings = settings(max_examples=25, deadline=None, database=None,
                     suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("name", sorted(DISGUISES))
def test_disguised_secret_rejected_in_every_field(name):
    @_settings
    @given(secret=secrets, data=st.data())
    def prop(secret, data):
        assert_rejected_everywhere(secret, DISGUISES[name](data.draw, secret))

    _run(prop, f"disguise {name}")


def test_long_base64_run_broken_by_dots_or_spaces_rejected_in_every_field():
    @_settings
    @given(raw=st.binary(min_size=30, max_size=240), url=st.booleans(), sep=st.sampled_from([" ", "."]),
           data=st.data())
    def prop(raw, url, sep, data):
        run = (base64.urlsafe_b64encode(raw).decode().rstrip("=") if url else base64.b64encode(raw).decode())
        assume(tenant_safety_violation(run) is not None)
        every = data.draw(st.integers(4, 80))
        broken = sep.join(run[i:i + every] for i in range(0, len(run), every))
        assume(broken != run)
        assert_rejected_everywhere(run, broken)

    _run(prop, "disguise base64")


#: ways to write a URL path's '/' that a server still reads as '/'
PATH_FORMS = ["//", "/./", "/x/../", "\\", "%2F", "%2f", "%5C"]


def path_forms(draw, url: str) -> str:
    """The URL with some of the '/' of its path (after the host) written another way a server
    reads the same: doubled, with "." or "x/.." segments, a backslash, %2F / %5C."""
    host_end = url.index("/", url.index("//") + 2)
    slashes = [i for i in range(host_end, len(url)) if url[i] == "/"]
    chosen = draw(st.lists(st.sampled_from(slashes), min_size=1, max_size=len(slashes), unique=True))
    out = url
    for i in sorted(chosen, reverse=True):
        out = out[:i] + draw(st.sampled_from(PATH_FORMS)) + out[i + 1:]
    return out


def test_webhook_urls_rejected_in_every_field_plain_and_disguised():
    @_settings
    @given(url=webhooks, disguise=st.sampled_from(sorted(DISGUISES) + ["path"]), data=st.data())
    def prop(url, disguise, data):
        assert tenant_safety_violation(url) == "chat webhook URL (V7)" or tenant_safety_violation(url)
        form = path_forms(data.draw, url) if disguise == "path" else DISGUISES[disguise](data.draw, url)
        assert_rejected_everywhere(url, form)

    _run(prop, "disguise webhook")


@pytest.mark.parametrize("url", [
    "https://hooks.slack.com/services/T024BE7LD/B01234ABC/abcdEFGHijklMNOPqrstUVWX",
    "https://discord.com/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyz",
    "https://acme.webhook.office.com/webhookb2/3f2504e0-4f89-11d3-9a0c-0305e82c3301@72f988bf-86f1",
    "https://outlook.office.com/webhook/3f2504e0-4f89-11d3-9a0c-0305e82c3301/IncomingWebhook/ab",
    "https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage",
])
def test_each_webhook_service_is_a_v7_value(url):
    assert tenant_safety_violation(url) == "chat webhook URL (V7)"


@pytest.mark.parametrize("text", [
    "Post alerts to the team's Slack webhook (hooks.slack.com/services/...).",
    "Discord webhooks live under discord.com/api/webhooks/<id>/<token>.",
    "The Teams connector was removed.",
])
def test_webhook_mentions_without_a_token_pass(text):
    assert tenant_safety_violation(text) is None


# ---- disguises a breaker found accepted (ninth session) --------------------------------------------
SLACK = "https://hooks.slack.com/services/T024BE7LD/B01234ABC/abcdEFGHijklMNOPqrstUVWX"
UUID = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
BREAKER_FOUND = {
    # two separator kinds mixed
    "sk-ab12.cd34 ef56GH78ij90KL12mn34OP56": "sk-",
    "AKIA IOSF.ODNN 7EXA.MPLE": "akia",
    "ghp_16C7e42F.292c6912E7710c83 8a9f0Q2x8mZk": "ghp_",
    "sk-proj-Ab12/Cd34 Ef56Gh78Ij90Kl12": "split",
    # defanged, with a port, a versioned path, a fully qualified host
    "https://hooks[.]slack[.]com/services/T024BE7LD/B01234ABC/abcdEFGHijklMNOPqrstUVWX": "V7",
    "hxxps://hooks(dot)slack(dot)com/services/T024BE7LD/B01234ABC/abcdEFGHijklMNOPqrstUVWX": "V7",
    "hxxps://deploy:Tr0ub4dor3@git[.]example[.]com/repo.git": "V4",
    "https://hooks.slack.com:443/services/T024BE7LD/B01234ABC/abcdEFGHijklMNOPqrstUVWX": "V7",
    "https://discord.com/api/v10/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyz": "V7",
    "https://discordapp.com:443/api/v9/webhooks/123456789012345678/abcdefghijklmnop": "V7",
    "https://hooks.slack.com./services/T024BE7LD/B01234ABC/abcdEFGHijklMNOPqrstUVWX": "V7",
    # "password" in other languages and scripts
    "contraseña=Sommer2024!": "contrasena", "passwort: Sommer2024!": "passwort",
    "Kennwort = geheim123": "kennwort", "mot_de_passe=Sommer2024": "motdepasse",
    "wachtwoord: Zomer2024!": "wachtwoord", "senha=Verao2024": "senha", "şifre: Yaz2024!": "sifre",
    "hasło=Lato2024!": "password", "пароль=Sommer2024!": "password", "ПАРОЛЬ: Sommer2024!": "password",
    "парола=Sommer2024!": "password", "密码: Sommer2024!": "password", "密碼=Sommer2024!": "password",
    "パスワード: Sommer2024!": "password", "비밀번호=Sommer2024!": "password",
    "كلمة المرور: Sommer2024!": "password", "पासवर्ड=Sommer2024!": "password",
    # Vault, Heroku, Sentry
    "hvs.CAESIJlU6jV3k2Xf9wQeR7tYbN1mZ0pLsKdHgFcVxWaA": "hvs.",
    "hvs.CAESIJlU6jV3k2Xf9wQe R7tYbN1mZ0pLsKdHgFcVxWaA": "hvs.",
    "HEROKU_API_KEY=" + UUID: "Heroku", "heroku_key: " + UUID: "Heroku",
    "HEROKU_TOKEN " + UUID: "Heroku", "heroku api key " + UUID.upper(): "Heroku",
    "https://0123456789abcdef0123456789abcdef@o123.ingest.sentry.io/456": "key in a URL",
    "SENTRY_DSN=https://9f86d081884c7d659a2feaa0c55ad015@o4504.ingest.us.sentry.io/4504123": "V4",
    # lower-case bodies of Anthropic / OpenAI project keys
    "sk-ant-api03-abcdefghij0123456789abcdefghij0123456789": "sk-ant-",
    "sk-proj-abcdefghij0123456789abcdefghij0123456789": "sk-proj-",
}
# found accepted by the tenth session's reviewer (all accepted by main's rules, 74b9383)
SLACK_DOC = "hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"  # a low-entropy token
BREAKER_FOUND.update({
    # three or more separator kinds
    "AKIAGZ-GSYEBA_NND4YZ.0E": "akia", "AKIA:IOSF=ODNN-7EXA_MPLE": "akia",
    "sk-proj-Ab12/Cd34 Ef56.Gh78Ij90Kl12": "split", "ghp_16C7e42F.292c6912E7710c83 8a9f0Q2x8mZk,Ab:Cd": "ghp_",
    # webhook paths written another way a server reads the same
    "https://" + SLACK_DOC.replace("/services/", "//services/"): "V7",
    "https://" + SLACK_DOC.replace("/services/", "/./services/"): "V7",
    "https://" + SLACK_DOC.replace("/services/", "/x/../services/"): "V7",
    "https://" + SLACK_DOC.replace("/", "\\"): "V7",
    "https://" + SLACK_DOC.replace("/", "%2F"): "V7",
    "https://discord.com/api/webhooks//123456789012345678/" + "a" * 68: "V7",
    # look-alike capitals and digits
    "\u1d00\u1d0b\u026a\u1d00\u026a\u1d0f\ua731\ua730\u1d0f\u1d05\u0274\u0274" "7" "\u1d07x\u1d00\u1d0d\u1d18\u029f\u1d07": "akia",
    "\u1d18\u1d00\ua731\ua731\u1d21\u1d0f\u0280\u1d05=hunter2": "password",
    "AKIAIOSFODNN\u0667EXAMPLE": "akia", "AKIAIOSFODNN\u096dEXAMPLE": "akia",
    "".join(chr(0x1F1E6 + ord(c) - 65) if c.isalpha() else c for c in "AKIAIOSFODNN7EXAMPLE"): "akia",
    # bidi controls (format characters: dropped like zero-width ones; already rejected, kept as rows)
    "AKIA\u202eIOSFODNN7EXAMPLE": "akia", "\u2067pwd=hunter2\u2069": "pwd",
})


@pytest.mark.parametrize("value", sorted(BREAKER_FOUND))
def test_disguises_found_by_the_breaker_are_rejected_in_every_field(value):
    why = tenant_safety_violation(value)
    assert why is not None and BREAKER_FOUND[value] in why, (value, why)
    for field in FIELDS:
        assert rejected(field, value), (field, value)


INNOCENT_FOUND = [
    # space-separated log lines
    "2026-12-06 08:47:17 INFO worker 3 started pid 4412",
    "2026-12-06 08:47:17,123 WARN [pool-2] token refresh took 312 ms for session 7",
    "Dec  6 08:47:17 host sshd[4412]: Accepted publickey for deploy from 10.0.0.5 port 52314 ssh2",
    "2026-12-06 08:47:17.123456 INFO uvicorn.access 127.0.0.1:52314 - \"GET /healthz HTTP/1.1\" 200",
    # subresource-integrity hashes
    "sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC",
    'integrity="sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="',
    "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==",
    "sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC crossorigin=anonymous",
    # quoted template placeholders
    'api_key: "{{ api_key }}"', "token=\"<your-token-here>\"", "Authorization: Bearer <your-token-here>",
    "Authorization: Bearer ${API_TOKEN_V2}", "Bearer {{ bearer_token }}", "${API_KEY}", "<your-token-here>",
    '"{{ api_key }}"', 'password: "${DB_PASSWORD}"', "api_key: {{ api_key }}", "API_KEY=${API_KEY}",
    "secret_key = '%(SECRET_KEY)s'",
    # near misses of the new rules
    "Discord webhooks live under discord.com/api/v10/webhooks/<id>/<token>.",
    "The Heroku app id is " + UUID + ".", "heroku: " + UUID, "sk-proj-customer-onboarding-pipeline",
    "https://git@github.com/acme/app.git", "See https://docs.example.com/a[.]b for the defang notation.",
]
# rejected by main's rules (74b9383), found by the tenth session's reviewer
INNOCENT_FOUND += [
    # an AWS prefix at the start of a path segment, glued across '/' (and '_')
    "/var/var/acca0000/InvoiceProcessor", "/srv/hf_cache/models2024/InvoiceProcessorTransformer",
    "/opt/dapi/service2024/InvoiceProcessorHandlers", "acca0000_InvoiceProcessor",
    # S1: a value that is a path, a small count in a key=value list, a state, a scheme, an
    # algorithm, a cookie attribute
    "pwd=/srv/app", "pass=3 fail=1", "auth=oauth2", "token=expired", "api_key=missing", "password=disabled",
    "sig=ed25519", "cookie: SameSite=Lax", "auth=oauth2 enabled for the tenant", "pwd=./build now",
    "tests: pass=120 fail=0 skip=3", "token=expired after 30 minutes",
    # V6: wheel names, public SSH keys and their fingerprints, API object ids
    "numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.whl",
    "scikit_learn-1.5.0-cp311-cp311-macosx_12_0_arm64.whl",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl deploy@build-01",
    "256 SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s deploy@build-01 (ED25519)",
    "chatcmpl-8xYzAbCdEfGhIjKlMnOpQrStUvWxYz12", "msg_01XFDUDYJgAACzvnptvVoYEL and toolu_01A09q90qw90lq917835lq9",
    # V6, split: prose joined to short ids once spaces are removed
    "YouTube video dQw4w9WgXcQ was flagged", "Stripe customer cus_NffrFeUfNV2Hib",
    "see https://grafana.acme.io/d/Xk9pQ2mZk/api-latency for the spike",
    "Latency dashboard: https://grafana.acme.io/d/Xk9pQ2mZk/api-latency",
    # V7: a bare marker in prose (no token)
    "hooks.slack.com/services/ returned 404",
]


@pytest.mark.parametrize("text", INNOCENT_FOUND)
def test_innocent_classes_found_by_the_breaker_are_accepted(text):
    assert tenant_safety_violation(text) is None, (text, tenant_safety_violation(text))
    for field in ("halt_reason", "tenant_safe_explanation", "evidence_ref", "attribute_value",
                  "trace.fact_source", "extension_value"):
        assert not rejected(field, text), (field, text)


# ---- innocent classes ------------------------------------------------------------------------------
WORDS = ["var", "lib", "director", "tenants", "acme-corp", "evidence", "reports", "summary", "home", "ops",
         "deploy", "releases", "models", "claim-verifier-minilm-l6", "checkpoints", "logs", "audit", "2024",
         "Q3", "eu-west-1", "build", "cache", "site-packages", "director_fast", "safety", "event.py", "v1.2.3",
         "README.md", "config.yaml", "data", "shards", "shard-00042-of-00128.parquet", "tmp", "pytest-of-root",
         "usr", "share", "Documents", "Invoice_2024-03.pdf", "node_modules", "@types", "index.d.ts", "src",
         "InvoiceProcessor", "HttpClientConnectionTimeoutV2Exception", "snapshots", "backup-2024-05-01T10-00-00Z"]
HEX = "0123456789abcdef"


@st.composite
def long_paths(draw) -> str:
    parts = draw(st.lists(st.sampled_from(WORDS) | st.text(alphabet=HEX, min_size=8, max_size=12)
                          | st.text(alphabet=HEX, min_size=40, max_size=40), min_size=4, max_size=14))
    root = draw(st.sampled_from(["/", "~/", "C:\\", "./", "s3://bucket/", "gs://acme-ml/", "file:///"]))
    sep = "\\" if root == "C:\\" else "/"
    return root + sep.join(parts)


@st.composite
def hex_digests(draw) -> str:
    n = draw(st.sampled_from([32, 40, 64, 128]))
    digest = draw(st.text(alphabet=HEX, min_size=n, max_size=n))
    prefix = draw(st.sampled_from(["", "sha256:", "sha1:", "md5:", "git ", "commit ", "digest=", "sha256=",
                                   "registry.example.com/app@sha256:", "Build ", "checksum ", "kb:"]))
    return prefix + digest


def _fits(field: str, value: str) -> bool:
    limits = {"request_id": 128, "tenant_id": 128, "producer_id": 128, "framework": 128, "halt_reason": 256,
              "attribute_key": 64, "extension_key": 64, "hook_id": 128}
    if field in ("event_id", "signal_id"):
        return False  # ids are ASCII identifiers, not paths
    if field in ("attribute_key", "extension_key", "hook_id") and not (
            all(c.isalnum() and c.isascii() or c in "_.:/-" for c in value) and (value[0].isalnum() or value[0] == "_")):
        return False
    return len(value) <= limits.get(field, 512)


@pytest.mark.parametrize("kind", ["paths", "digests"])
def test_long_paths_and_hex_digests_stay_accepted(kind):
    @_settings
    @given(value=long_paths() if kind == "paths" else hex_digests())
    def prop(value):
        assert tenant_safety_violation(value) is None, value
        for field in FIELDS:
            if _fits(field, value):
                assert not rejected(field, value), (field, value)

    _run(prop, f"innocent {kind}")


# ---- stored events of the previous version ---------------------------------------------------------------
def test_events_stored_by_the_previous_version_still_load():
    stored = json.loads((HERE / "fixtures" / "stored_safety_events.json").read_text(encoding="utf-8"))
    assert len(stored["events"]) >= 5 and len(stored["signals"]) == len(stored["events"])
    for payload in stored["events"]:
        assert se.validate_safety_event_payload(payload).to_dict() == payload
    for payload in stored["signals"]:
        assert sp.validate_director_safety_signal(payload).to_transport_dict() == payload


def test_generated_ids_always_pass():
    # hex tails (the generated form) are never read as secrets, even when one starts like a
    # vendor prefix ("acca" + 16 characters with a digit is an AWS account-key shape)
    for tail in ("acca" + "0123456789abcdef0123456789ab", "ab" * 16, "0" * 32, "dead" * 8):
        ev = se.SafetyEvent.from_policy_decision(**BASE, event_id="sevt_" + tail)
        assert se.validate_safety_event_payload(ev.to_dict()) == ev
        sig = sp.director_safety_signal_from_event(ev, producer_id="p", signal_id="dsp_" + tail)
        assert sp.validate_director_safety_signal(sig.to_transport_dict()).to_json() == sig.to_json()
