"""Tenant-safety (privacy) rules for SafetyEvent and DirectorSafetySignal text.

The rules decide whether a string may travel in a tenant-safe record. They match *words*, not
substrings: a text is split into words at every non-alphanumeric character, at lower->upper case
changes (``accessToken`` -> ``access``, ``token``) and between letters and digits, and the words are
compared in lower case. Two roles exist:

* ``"key"``: attribute / extension keys (identifiers naming a value);
* ``"text"``: every other string (attribute values, ``halt_reason``, ``tenant_safe_explanation``,
  evidence refs, trace strings, ``hook_id``, producer / framework names).

Rules (``R1``..``R8``; each has an accepted near-miss and a rejected case in
``tests/test_safety_event_privacy.py``):

R1 credential words, any role: ``password(s)``, ``passwd``, ``passphrase``, ``secret(s)``,
   ``credential(s)``, ``apikey``, ``privatekey``, ``clientsecret``, ``bearer``, ``jwt``, ``cookie(s)`` --
   unless the
   next word makes it a reference (``id``, ``ids``, ``ref``, ``refs``, ``reference``, ``name``,
   ``arn``). Rejects ``secret=xyz``, ``client_secret``; accepts ``secretary``, ``secret_id``.
R2 key pairs, any role: ``private``/``api``/``secret``/``access``/``ssh``/``signing``/
   ``encryption``/``client``/``master`` followed by ``key(s)`` (unless a reference word follows).
   The same pairs written as one word (``secretkey``, ``accesskey``, ``sshkey``, ``signingkey``,
   ``encryptionkey``, ``masterkey``, ``clientkey``) are rejected on their own.
   Rejects ``api_key``, ``Private Key``, ``secretkey``; accepts ``key_id``, ``api_key_id``,
   ``primary key``, ``secretkey_id``.
R3 tokens, any role: ``token`` / ``tokens`` directly after a credential qualifier (``access``,
   ``auth``, ``api``, ``bearer``, ``refresh``, ``id``, ``session``, ``oauth``, ``csrf``, ``xsrf``,
   ``personal``, ``security``, ``service``, ``github``, ``slack``, ``jwt``, ``identity``) is
   rejected; a bare singular ``token`` is rejected unless a position word follows (``offset``,
   ``index``, ``count``, ``position``, ``id``, ``budget``, ``limit``, ``usage``, ``length``, ...
   or a number) or a counting word precedes (``per``, ``each``, ``every``, ``first``, ``last``,
   ``next``, ``max``, ``min`` or a number). Plural ``tokens`` without a qualifier is a count.
   Qualifier + token written as one word (``accesstoken``, ``authtoken``, ``apitoken``,
   ``refreshtoken``, ``bearertoken``, ``idtoken``, ``sessiontoken``, ``oauthtoken``, ``csrftoken``...)
   is rejected. Assignment form, any role and whatever the neighbours: ``token`` then ``:`` or
   ``=`` (at most 8 ASCII spaces around it) then a value whose first 64 characters before a space,
   ``,`` or ``;`` hold a non-digit (``token=hunter2``; ``token: 5`` is a position).
   Rejects ``token``, ``access_token``, ``auth_token``, ``api_token``, ``accessToken``,
   ``accesstoken``, ``retry 2 token=hunter2``; accepts ``token_offset``, ``token_index``,
   ``token_count``, ``max_tokens``, ``5 tokens``, ``token: 5``.
R4 private prompts, text role: ``prompt(s)``/``completion(s)``/``transcript(s)`` preceded by a
   content qualifier (``raw``, ``private``, ``system``, ``user``, ``full``, ``original``,
   ``hidden``, ``secret``, ``input``, ``customer``, ``verbatim``, ``confidential``,
   ``unredacted``), followed by a content word (``text``, ``content(s)``, ``body``, ``payload``,
   ``value``, ``data``, ``string``, ``dump``), or followed by ``:`` / ``=`` (an assignment).
   Key role: any of those words unless followed by a metadata word (``id``, ``ref``, ``hash``,
   ``digest``, ``version``, ``count``, ``tokens``, ``length``, ``template``...).
   Qualifier + prompt written as one word (``systemprompt``, ``rawprompt``, ``userprompt``,
   ``privateprompt``, ``fullprompt``, ``hiddenprompt``, ``originalprompt``, ``inputprompt``,
   ``secretprompt``) is rejected in text, and as a key unless a metadata word follows.
   Rejects ``system prompt``, ``systemprompt``, ``prompt_text``, ``prompt: hi``, key ``prompt``;
   accepts ``rephrase the prompt``, key ``prompt_id``, ``prompt_tokens``, ``systemprompt_id``.
R5 raw payloads, any role: ``raw`` followed by a content noun (``prompt``, ``completion``,
   ``payload``, ``text``, ``content``, ``response``, ``output``, ``input``, ``data``, ``body``,
   ``message``, ``bytes``, ``audio``, ``image``, ``video``, ``frame``, ``reading``, ``media``,
   ``query``, ``transcript``, ``request``, ``document``, ``sensor``...); key role also rejects a
   key that is only ``raw``. Rejects ``raw_text``, ``raw prompt``; accepts ``rawhide``,
   ``raw_score``.
R6 private media, key role: ``image(s)``, ``photo(s)``, ``picture(s)``, ``video(s)``, ``audio``,
   ``screenshot(s)``, ``recording(s)``, ``selfie(s)``, ``biometric(s)``, ``media`` unless a
   metadata word follows (``id``, ``ref``, ``hash``, ``count``, ``type``, ``format``, ``mime``,
   ``size``, ``width``, ``height``, ``duration``); text role: such a word preceded by
   ``private``/``personal``/``user``/``customer``/``unredacted``/``raw`` or followed by
   ``data``/``bytes``/``payload``/``blob``/``base64``/``dump``/``file``. Rejects key ``image``,
   ``user photo``; accepts key ``image_count``, text ``image content policy``.
R7 sensor payloads: key role: ``sensor(s)``/``lidar``/``telemetry`` unless a metadata word
   follows (``id``, ``ref``, ``type``, ``kind``, ``name``, ``count``, ``status``); text role:
   followed by ``reading(s)``/``data``/``payload``/``dump``/``frame(s)``/``sample(s)``/
   ``value(s)``/``stream``/``feed``/``capture``. Rejects key ``sensor_reading``, text
   ``sensor data``; accepts ``sensor_id``, ``sensor offline``.
R8 credential shapes, any role (whatever the words): JWTs (``eyJ...`` ``.`` ``...`` ``.``), PEM
   private-key headers, well-known API-key prefixes (``sk-``, ``sk_live_``, ``ghp_``,
   ``github_pat_``, ``glpat-``, ``xox?-``, ``AKIA``, ``AIza``...) followed by >= 12 key
   characters, ``data:...;base64,`` URIs, base64 runs of >= 200 characters, and HTTP Basic
   credentials (``Authorization: Basic`` then >= 8 base64 characters, not all lower-case letters:
   ``Authorization: Basic dXNlcjpwYXNz`` is rejected, "authorization: basic understanding" is not). Shapes and the R4
   assignment form are matched ASCII case-insensitively (a non-ASCII letter never completes one).

The rules run in C++ (``cpp/src/safety_rules.cpp``): one pass for the shapes, one for the
assignment form and one tokenizing pass into words, each linear in the input length (runs are
scanned from their start only, or up to a fixed cap), so hostile input costs O(n). Inputs are also
length-limited by the callers (see ``director_fast.core.safety_event``). The original regex
implementation is kept as the test oracle (``tests/_safety_oracle.py``); a Hypothesis differential
test checks that both give the same reason for arbitrary strings.

Thread-safety: stateless; all functions may be called from any thread.
"""

from __future__ import annotations

import re

from director_fast._core import _safety_tenant_violation as _violation
from director_fast.core._fields import FieldTypeError
from director_fast.errors import ValidationError

__all__ = ["TenantSafetyError", "check_tenant_safe", "check_text", "tenant_safety_violation"]


class TenantSafetyError(ValidationError):
    """A string that the tenant-safety rules forbid (credential, private prompt, media, sensor
    payload, raw payload). A :class:`~director_fast.errors.ValidationError` (``ValueError``)."""


_CTRL = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")


def tenant_safety_violation(text: str, *, role: str = "text") -> str | None:
    """Return why ``text`` breaks a tenant-safety rule (``None`` when it is safe).

    Args:
        text: the string to check (any length; time is linear in it).
        role: ``"key"`` for attribute / extension keys, ``"text"`` for everything else.

    Returns:
        ``None`` or a reason such as ``"credential word 'secret' (R1)"``.

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
