"""Tenant-safety validators for SafetyEvent and DirectorSafetySignal strings.

They decide whether a string may travel in a tenant-safe record. Free text is checked for
credential-shaped *values* and *assignments*, not for words: "password reset policy", "Secret
Santa", "bearer of bad news", "The user prompt was ambiguous" and "JWT expiry" are operator prose
and pass; ``pwd=hunter2``, ``postgres://app:hunter2@db/app`` or an AWS secret key do not, whatever
their disguise. Two roles exist:

* ``"text"``: every string value (attribute and extension values, ``halt_reason``,
  ``tenant_safe_explanation``, evidence refs, trace strings, ``hook_id``, ``request_id``,
  ``tenant_id``, ``producer_id``, ``framework``, and the part of ``event_id`` / ``signal_id``
  after its ``sevt_`` / ``dsp_`` prefix);
* ``"key"``: attribute / extension keys -- the text checks plus the key-name rules K1..K5.

**Fold (detection only).** The string is first folded to ASCII: NFKD compatibility forms
(fullwidth ``ｐ`` -> ``p``, ligatures, math letters), case folding (``ß`` -> ``ss``), marks removed
(``é`` -> ``e``), format characters (zero-width spaces and joiners, soft hyphen, BOM, ...) dropped,
Unicode look-alikes mapped (Cyrillic ``а`` -> ``a``, Greek ``Ο`` -> ``O``; from Unicode's
confusables data), Latin small capitals and regional-indicator letters read as the capitals they
show (``ᴀᴋɪᴀ`` -> ``AKIA``), decimal digits of every script as their value (``٧`` -> ``7``), invisible
tag characters read as the ASCII they spell; bidirectional controls (a right-to-left override) are
format characters and are dropped; any other code point becomes a separator. The table is generated offline by ``scripts/gen_safety_fold.py``. Only the
detectors see the folded copy: payloads and canonical JSON are never changed. Pure-ASCII strings
skip the fold. The word for "password" in scripts that do not fold to ASCII (``пароль``,
``парола``, ``hasło``, ``密码``, ``密碼``, ``パスワード``, ``비밀번호``, ``كلمة المرور``, ``كلمة السر``,
``पासवर्ड``, ``סיסמה``, ``รหัสผ่าน``; NFC spellings; the most-spoken languages and the EU's whose
word is not English or ASCII after the fold) folds to ``password``.

**Normalise (detection only).** Defanged URLs read as URLs (``[.]``, ``(.)``, ``{.}``,
``[dot]``, ``(dot)``, ``{dot}`` -> ``.``; ``[:]`` -> ``:``; ``[/]`` -> ``/``; ``hxxp`` at a word
start -> ``http``). A subresource-integrity hash (``sha256-``, ``sha384-``, ``sha512-``) or an
OpenSSH key fingerprint (``SHA256:``...) followed by the base64 of exactly that digest's length,
padded or not, reads as a 64-digit hex digest.

**Value detectors** (any role, in this priority):

V1 JWTs (``eyJ...`` ``.`` ``...`` ``.``).
V2 PEM private-key headers (``-----BEGIN ... PRIVATE KEY``, spaces optional) and base64 DER
   bodies without the header (``MII`` + 20 base64 characters).
V3 vendor token formats (GitHub ``ghp_``/``github_pat_``, GitLab ``glpat-``, Slack ``xox?-``,
   OpenAI/Anthropic ``sk-``, Stripe ``sk_live_``, AWS ``AKIA``/``ASIA``, Google ``AIza``/``ya29.``,
   Hugging Face ``hf_``, npm, PyPI, SendGrid, Shopify, Databricks, DigitalOcean, Grafana, Vault and
   more): the prefix after a non-token character and a tail of the vendor's length and alphabet
   (``sk-ant-`` / ``sk-proj-`` also with a lower-case tail that has a digit; AWS key ids are read
   upper case: 16+ letters and digits with a capital and a digit, never two lower-case letters
   in a row, so ``acca0000InvoiceProcessor`` is a name). Heroku API keys: a
   UUID within 48 characters after ``heroku`` (not after a letter) when the characters between
   (identifier characters, blanks, ``:``, ``=``, quotes) name a key (``key``, ``token``,
   ``secret``, ``auth``, ``pass``, ``cred``): ``HEROKU_API_KEY=<uuid>``, ``heroku api key <uuid>``.
V4 passwords in URLs (``scheme://user:password@host``) and keys as a URL's user name (>= 16 of
   ``[A-Za-z0-9_-]`` with a letter and a digit before ``@``: Sentry DSNs).
V5 ``data:...;base64,`` URIs and standard base64 runs of >= 200 characters (unless made of
   words, as defined for V6, with lower-case letters: joined prose).
V7 chat-service webhook URLs, which carry their token in the path: Slack
   (``hooks.slack.com/services/``, ``/workflows/``, ``/triggers/``), Discord
   (``discord.com/api/webhooks/``, ``discordapp.com``), Microsoft Teams / Office 365
   (``*.webhook.office.com/webhookb2/``, ``outlook.office.com/webhook/``), Power Automate
   (``logic.azure.com/workflows/``), Google Chat (``chat.googleapis.com/v1/spaces/``),
   Telegram (``api.telegram.org/bot``), Zapier, IFTTT and Flock hooks -- followed by a path with
   >= 8 letters or digits (a mention such as ``hooks.slack.com/services/...`` passes). The host
   may end in ``.`` and carry a port (``:443``); the path is read as a server reads it (``\\``,
   ``%2F`` and ``%5C`` are ``/``, ``//`` is one ``/``, ``.`` and ``x/..`` segments are resolved)
   and may hold one version segment the marker does not (``discord.com/api/v10/webhooks/``).
V6 high-entropy runs: >= 32 characters of ``[A-Za-z0-9+/=_-]`` with at least 3 of the classes
   upper / lower / digit / symbol, a letter beyond ``f`` (hex digests and UUIDs are not secrets)
   and Shannon entropy >= 4.0 bits per character -- unless made of words (>= 3/4 of the letters in
   alphabetic runs of >= 4 letters or short words: slash paths, identifiers, wheel file names) or,
   once what is not a secret is set aside, shorter than 32 characters. Set aside: lower-case hex
   digests of 32/40/64/128 digits and other hex ids, SSH public key bodies (base64 that decodes
   to a key type name: ``AAAAC3NzaC1lZDI1NTE5...``), the id after an LLM API object prefix
   (``chatcmpl-``, ``msg_``, ``toolu_``, ``resp_``...).

**Assignments** (any role; the leftmost one):

S1 a secret-like key followed by ``=``, ``:``, ``:=`` or ``=>`` and a credential-like value.
   Keys are matched on their letters whatever the case or separators: ``password``, ``passwd``,
   ``passphrase``, ``secret``, ``token``, ``credential(s)``, ``cookie``, ``authorization``,
   ``bearer``, ``jwt``, ``session``/``sessionid``, ``connectionstring``, ``*key`` compounds
   (``apikey``, ``accesskey``, ``accountkey``, ``privatekey``, ...) as endings of the key, and
   ``pwd``, ``pw``, ``pass``, ``auth``, ``oauth``, ``sid``, ``dsn``, ``sig``, ``psk``, ``pat`` as its
   last part. A value is not a credential when it is empty, shorter than 3, a template or variable
   (``<...>``, ``$X``, ``${X}``, ``{{x}}``, ``%(x)s``), a mask (``****``, ``xxxx``), a placeholder
   word (``redacted``, ``null``, ``none``, ``required``...), a number of < 4 digits (any number of
   <= 9 digits after ``token``: a count), or -- after ``: `` without quotes -- a single plain word
   shorter than 16 letters ("Password: required"). Nor is a value that *names* something instead
   of holding it: a state (``expired``, ``missing``, ``disabled``, ``revoked``...), an
   authentication scheme or protocol (``oauth2``, ``saml``, ``ldap``, ``mfa``...) or an algorithm
   (``ed25519``, ``rsa``, ``sha256``, ``hs256``, ``bcrypt``...) from a closed list, matched whole;
   a path (``./``, ``../``, ``~/``, a drive ``C:\\``, or ``/`` and a top-level directory:
   ``/srv/app``, ``/home/...``, ``/var/...``); a cookie attribute after a cookie key
   (``cookie: SameSite=Lax``). Anything else after ``=`` is a credential: ``password=hunter2``,
   ``pass=correcthorsebattery``, ``token=9f8a7c...``. "Password" in other languages is a key too:
   ``contrasena`` (``contraseña``), ``motdepasse``, ``passwort``, ``kennwort``, ``wachtwoord`` as
   endings, ``senha``, ``sifre`` (``şifre``), ``haslo`` as the last part, and the words the fold
   reads as ``password``. Session keys need a random-looking value
   (>= 16 characters, two of upper / lower / digit). ``Authorization: Basic|Bearer|Token ...``
   needs a credential of >= 8 characters that is not all lower-case letters. Also ``Bearer``
   followed by a credential of >= 16 characters with two of upper / lower / digit. A template
   (``Bearer <your-token-here>``, ``Bearer ${TOKEN}``) is no credential.
S2 a prompt or message key (``prompt(s)``, ``messages``, ``instructions``, ``user_input``,
   ``completion(s)``, ``transcript(s)``) assigned a value by the same value rules, or a JSON
   array / object (``messages=[{...}]``).

**Split secrets** (any role). A secret broken up by one kind of separator -- ``AKIA IOSF ODNN
7EXA MPLE``, ``eyJhbGciOi.JIUzI1...``, a long base64 run broken by dots or spaces,
``p.a.s.s.w.o.r.d=hunter2`` -- or by two or more kinds mixed (``sk-ab12.cd34 ef56...``,
``AKIAGZ-GSYEBA_NND4YZ.0E``) is read as a whole: when the string itself passes, the value
detectors (V1..V7) and the assignments (S1, S2) run again on each *view* of it without one of its
characters that are not letters or digits (each such character in turn), then without each pair
of those that stand somewhere between two letters or digits (a separator that splits a secret
does), then without all of those but the ones of an alphabet a secret may be written in (none;
``:`` ``=``; those with ``-`` ``_``, without and with ``.``, with ``.`` ``/``; those with ``+``
``/``). Word starts and digest
boundaries also count where a separator was removed, so the joined pieces read as the secret did
-- except where a ``/`` or ``\\`` was removed: a token prefix at the start of a path segment
(``/srv/hf_cache/...``) starts no token. A value that started with a path (``pwd=./build``) is
judged in the string itself. In the view without spaces, an ``=`` value ends at the first
removed space when it read a named value or a path before it or another ``key=`` follows
(``auth=oauth2 enabled``, ``pass=3 fail=1``); two or more whole words joined to a single id are
prose (``YouTube video dQw4w9WgXcQ was flagged``) and set aside; a webhook path that runs across
a removed space needs two segments (``hooks.slack.com/services/ returned 404`` is prose). Joined prose stays prose: its letters join into long alphabetic tokens ("made of
words" for V5 / V6). In the view without spaces an assignment's value after ``:`` or ``Bearer``
ends where a space was (``Password: required for admins`` is prose; the value of ``key: value``
split by spaces cannot be told from prose and is not joined), and a removed ``$``, ``<``, ``{``
or ``%`` between the ``:`` / ``=`` and a value (inside its quotes included) reads as a template. Reasons end in ``, split)``, e.g.
``"vendor token format 'akia' (V3, split)"``.

**Key names** (key role only):

K1 keys naming a credential (the S1 key rules; trailing payload parts such as ``_value``,
   ``_text``, ``_data`` are ignored): ``authorization``, ``pwd``, ``dsn``, ``session``,
   ``api_key``, ``client_secret``, ``access_token``; ``secret_id``, ``api_key_id``,
   ``token_offset``, ``max_tokens``, ``password_policy`` are fine.
K2 keys naming private content: last part ``prompt(s)``, ``messages``, ``instructions``,
   ``input(s)``, ``query``, ``conversation(s)``, ``utterance(s)``, ``response(s)``, ``output(s)``,
   ``completion(s)``, ``transcript(s)`` or run-together forms (``systemprompt``, ``userinput``).
K3 media (``image``, ``photo``, ``video``, ``audio``, ``screenshot``, ``recording``, ``selfie``,
   ``biometric``, ``media``...), K4 sensor payloads (``sensor``, ``lidar``, ``telemetry``) as the
   last part; ``image_count``, ``sensor_id`` are fine.
K5 raw payloads: ``raw`` with a payload part (``raw_text``) or alone, and keys that are only a
   payload word (``payload``, ``data``, ``body``, ``content``, ``text``, ``blob``...).

Every detector runs in C++ (``cpp/src/safety_rules.cpp``) in one pass over the folded string;
every scan is capped or starts where no earlier scan of its kind went, so the time is linear in
the input however hostile it is. The readable reference is ``tests/_safety_oracle.py``; Hypothesis
tests check that both give the same reason for arbitrary strings.

Thread-safety: stateless; all functions may be called from any thread.
"""

from __future__ import annotations

import re

from director_fast._core import _safety_tenant_violation as _violation
from director_fast._fields import FieldTypeError
from director_fast.errors import ValidationError

__all__ = ["TenantSafetyError", "check_tenant_safe", "check_text", "tenant_safety_violation"]


class TenantSafetyError(ValidationError):
    """A string that the tenant-safety validators forbid (a credential-shaped value or assignment,
    or a key naming credentials, private content, media, sensor or raw payloads). A
    :class:`~director_fast.errors.ValidationError` (``ValueError``)."""


_CTRL = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")


def tenant_safety_violation(text: str, *, role: str = "text") -> str | None:
    """Return why ``text`` breaks a tenant-safety rule (``None`` when it is safe).

    Args:
        text: the string to check (any length; time is linear in it).
        role: ``"key"`` for attribute / extension keys, ``"text"`` for everything else.

    Returns:
        ``None`` or a reason such as ``"secret assigned to 'password' (S1)"``.

    Raises:
        FieldTypeError: ``text`` is not a ``str`` (a ``ValidationError`` / ``TypeError``).
    """
    if not isinstance(text, str):
        raise FieldTypeError(f"tenant_safety_violation: expected a str, got {type(text).__name__}")
    return _violation(text, role == "key")


def check_tenant_safe(text: str, where: str, *, role: str = "text") -> None:
    """Raise :class:`TenantSafetyError` naming ``where`` when ``text`` breaks a rule."""
    reason = _violation(text, role == "key")
    if reason is not None:
        raise TenantSafetyError(f"{where}: not tenant-safe: {reason}")


def check_text(text: str, where: str, role: str = "text") -> None:
    """Raise unless ``text`` is free of control characters / lone surrogates and tenant-safe.

    ``where`` names the field in the error. Nothing is cached: every call checks the text.

    Raises:
        ValidationError: a control character (U+0000..U+001F, U+007F) or lone surrogate.
        TenantSafetyError: a tenant-safety rule fires.
    """
    if not text.isprintable() and _CTRL.search(text):
        raise ValidationError(f"{where}: contains a control character or lone surrogate")
    reason = _violation(text, role == "key")
    if reason is not None:
        raise TenantSafetyError(f"{where}: not tenant-safe: {reason}")
