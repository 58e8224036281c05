"""Pure-Python reference (oracle) of the tenant-safety rules R1..R8 -- tests only.

This is the original regex implementation of ``director_fast.core.tenant_safety`` (rules documented
there and in docs/safety_events.md); the library now runs the C++ implementation
(``director_fast._core._safety_tenant_violation``) and tests/test_safety_fast.py checks with
Hypothesis that both give the same answer (the same reason text) for arbitrary strings.

Shapes (R8) and prompt assignments (R4) are matched ASCII case-insensitively (``re.ASCII``):
non-ASCII letters never complete a credential shape.
"""

from __future__ import annotations

import re

from director_fast.errors import ValidationError
from director_fast.core.tenant_safety import TenantSafetyError

__all__ = ["check_text", "tenant_safety_violation"]


# Cheap superset test: if none of these stems occurs (case-insensitively), no rule can fire.
_STEMS = (
    "pass", "secret", "credential", "token", "bearer", "jwt", "cookie", "key", "prompt",
    "completion", "transcript", "raw", "image", "photo", "picture", "video", "audio", "screenshot",
    "recording", "selfie", "biometric", "media", "sensor", "lidar", "telemetry", "eyj", "sk-", "sk_",
    "rk_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github", "glpat", "xox", "akia", "asia", "aiza",
    "data:", "begin", "authorization",
)


def _trie_pattern(words: tuple[str, ...]) -> str:
    """A prefix-trie alternation of literal stems (faster in ``re`` than a flat alternation)."""
    root: dict = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        if "" in node:
            return ""
        alts = [re.escape(ch) + emit(child) for ch, child in sorted(node.items())]
        return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"

    return emit(root)


# Cheap superset test on lower-cased text: if no stem occurs, no rule can fire.
_PREFILTER_LC = re.compile(_trie_pattern(_STEMS))
_CTRL = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")


_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_B64 = "A-Za-z0-9_\\-"
_SHAPES = re.compile(
    rf"(?<![{_B64}])eyJ[{_B64}]{{6,}}+\.[{_B64}]{{6,}}+\."  # JWT header.payload.
    r"|-----BEGIN [A-Z ]{0,40}PRIVATE KEY"
    rf"|(?<![{_B64}])(?:sk-|sk_live_|sk_test_|rk_live_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-"
    rf"|xox[abpsr]-|AKIA|ASIA|AIza)[{_B64}]{{12,}}+"
    r"|(?<![A-Za-z])data:[^,;\s]{0,100};base64,"
    r"|(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{200}",
    re.IGNORECASE | re.ASCII,
)
_ASSIGN = re.compile(
    r"(?<![A-Za-z0-9])(?:prompt|prompts|completion|completions|transcript)\s{0,8}[:=]",
    re.IGNORECASE | re.ASCII,
)

_BASIC_AUTH = re.compile(
    r"(?<![A-Za-z0-9])authorization\s{0,8}[:=]\s{0,8}basic\s{1,8}([A-Za-z0-9+/]+)",
    re.IGNORECASE | re.ASCII,
)


def _basic_auth(text: str) -> bool:
    """HTTP Basic credentials: a run of >= 8 base64 characters after "Authorization: Basic" with
    at least one character that is not a lower-case letter (prose like "basic understanding" is
    not a credential)."""
    return any(len(m.group(1)) >= 8 and re.search("[^a-z]", m.group(1)) for m in _BASIC_AUTH.finditer(text))


_TOKEN_ASSIGN = re.compile(
    r"(?<![A-Za-z0-9])token\s{0,8}[:=]\s{0,8}(?=[^\s,;]{0,63}[^\s,;0-9])",
    re.IGNORECASE | re.ASCII,
)
_TOKEN_COMPOUND = frozenset(
    {"accesstoken", "accesstokens", "authtoken", "authtokens", "apitoken", "apitokens", "bearertoken",
     "refreshtoken", "refreshtokens", "idtoken", "sessiontoken", "oauthtoken", "csrftoken", "xsrftoken",
     "githubtoken", "slacktoken"}
)
_KEY_COMPOUND = frozenset(
    {"secretkey", "secretkeys", "accesskey", "accesskeys", "privatekeys", "sshkey", "sshkeys", "signingkey",
     "encryptionkey", "masterkey", "clientkey"}
)
_PROMPT_COMPOUND = frozenset(
    {"rawprompt", "systemprompt", "systemprompts", "userprompt", "userprompts", "privateprompt", "fullprompt",
     "hiddenprompt", "originalprompt", "inputprompt", "secretprompt"}
)
_REF = frozenset({"id", "ids", "ref", "refs", "reference", "name", "arn"})
_CREDENTIAL = frozenset(
    {"password", "passwords", "passwd", "passphrase", "secret", "secrets", "credential",
     "credentials", "apikey", "apikeys", "privatekey", "bearer", "jwt", "jwts", "cookie", "cookies",
     "clientsecret", "clientsecrets"}
)
_KEY_QUAL = frozenset(
    {"private", "api", "secret", "access", "ssh", "signing", "encryption", "client", "master"}
)
_TOKEN_QUAL = frozenset(
    {"access", "auth", "api", "bearer", "refresh", "id", "session", "oauth", "csrf", "xsrf",
     "personal", "security", "service", "github", "slack", "jwt", "identity"}
)
_TOKEN_POS_AFTER = frozenset(
    {"offset", "offsets", "index", "indices", "idx", "count", "counts", "position", "positions",
     "pos", "id", "ids", "budget", "limit", "limits", "usage", "length", "len", "number", "num",
     "rate", "latency", "logprob", "logprobs", "probability", "prob", "level", "window", "span"}
)
_TOKEN_POS_BEFORE = frozenset({"per", "each", "every", "first", "last", "next", "max", "min", "nth"})
_PROMPT_WORDS = frozenset({"prompt", "prompts", "completion", "completions", "transcript", "transcripts"})
_PROMPT_QUAL = frozenset(
    {"raw", "private", "system", "user", "full", "original", "hidden", "secret", "input",
     "customer", "verbatim", "confidential", "unredacted"}
)
_CONTENT_AFTER = frozenset(
    {"text", "content", "contents", "body", "payload", "value", "data", "string", "dump"}
)
_PROMPT_META = frozenset(
    {"id", "ids", "ref", "refs", "hash", "digest", "version", "count", "tokens", "length", "len",
     "template", "policy", "type", "kind"}
)
_RAW_CONTENT = frozenset(
    {"prompt", "prompts", "completion", "completions", "payload", "payloads", "text", "content",
     "contents", "response", "responses", "output", "outputs", "input", "inputs", "data", "body",
     "message", "messages", "bytes", "audio", "image", "images", "video", "videos", "frame",
     "frames", "reading", "readings", "media", "query", "queries", "transcript", "transcripts",
     "request", "requests", "document", "documents", "sensor", "html", "json", "log", "logs",
     "string", "user", "photo", "photos"}
)
_MEDIA = frozenset(
    {"image", "images", "photo", "photos", "picture", "pictures", "video", "videos", "audio",
     "screenshot", "screenshots", "recording", "recordings", "selfie", "selfies", "biometric",
     "biometrics", "media"}
)
_MEDIA_META = frozenset(
    {"id", "ids", "ref", "refs", "hash", "digest", "count", "type", "format", "mime", "size",
     "width", "height", "duration", "kind"}
)
_MEDIA_QUAL = frozenset({"private", "personal", "user", "customer", "unredacted", "raw"})
_MEDIA_PAYLOAD = frozenset({"data", "bytes", "payload", "blob", "base64", "dump", "file", "files"})
_SENSOR = frozenset({"sensor", "sensors", "lidar", "telemetry"})
_SENSOR_META = frozenset({"id", "ids", "ref", "refs", "type", "kind", "name", "count", "status"})
_SENSOR_PAYLOAD = frozenset(
    {"reading", "readings", "data", "payload", "dump", "frame", "frames", "sample", "samples",
     "value", "values", "stream", "feed", "capture", "raw"}
)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _word_violation(words: list[str], key: bool) -> str | None:
    n = len(words)
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < n else ""
        prev = words[i - 1] if i else ""
        if w in _CREDENTIAL:
            if nxt not in _REF:
                return f"credential word {w!r} (R1)"
        elif w in _TOKEN_COMPOUND:
            return f"credential token {w!r} (R3)"
        elif w in _KEY_COMPOUND:
            if nxt not in _REF:
                return f"credential key {w!r} (R2)"
        elif w == "key" or w == "keys":
            if prev in _KEY_QUAL and nxt not in _REF:
                return f"credential key {prev!r} {w!r} (R2)"
        elif w == "token" or w == "tokens":
            if prev in _TOKEN_QUAL:
                return f"credential token {prev!r} {w!r} (R3)"
            if w == "token" and not (
                nxt in _TOKEN_POS_AFTER or nxt.isdigit() or prev in _TOKEN_POS_BEFORE or prev.isdigit()
            ):
                return "bare 'token' that is not a text position (R3)"
        if w in _PROMPT_COMPOUND:
            if not key or nxt not in _PROMPT_META:
                return f"{'key naming prompt content' if key else 'private prompt content'} {w!r} (R4)"
        elif w in _PROMPT_WORDS:
            if key:
                if nxt not in _PROMPT_META:
                    return f"key naming prompt content {w!r} (R4)"
            elif prev in _PROMPT_QUAL or nxt in _CONTENT_AFTER:
                return f"private prompt content {w!r} (R4)"
        elif w == "raw":
            if nxt in _RAW_CONTENT or (key and n == 1):
                return f"raw payload {('raw ' + nxt).strip()!r} (R5)"
        elif w in _MEDIA:
            if key:
                if nxt not in _MEDIA_META:
                    return f"key naming private media {w!r} (R6)"
            elif prev in _MEDIA_QUAL or nxt in _MEDIA_PAYLOAD:
                return f"private media {w!r} (R6)"
        elif w in _SENSOR:
            if key:
                if nxt not in _SENSOR_META:
                    return f"key naming a sensor payload {w!r} (R7)"
            elif nxt in _SENSOR_PAYLOAD:
                return f"sensor payload {w!r} {nxt!r} (R7)"
    return None


def tenant_safety_violation(text: str, *, role: str = "text") -> str | None:
    """Return why ``text`` breaks a tenant-safety rule (``None`` when it is safe).

    Args:
        text: the string to check (any length; callers bound lengths).
        role: ``"key"`` for attribute / extension keys, ``"text"`` for everything else.
    """
    if len(text) < 200 and not _PREFILTER_LC.search(text.lower()):
        return None  # no stem and too short for a base64 run: no rule can fire
    m = _SHAPES.search(text)
    if m is not None or _basic_auth(text):
        return "credential-shaped or payload-shaped value (R8)"
    if role != "key" and _ASSIGN.search(text):
        return "prompt assignment (R4)"
    if _TOKEN_ASSIGN.search(text):
        return "credential token assignment (R3)"
    return _word_violation(_words(text), role == "key")


def check_tenant_safe(text: str, where: str, *, role: str = "text") -> None:
    """Raise :class:`TenantSafetyError` naming ``where`` when ``text`` breaks a rule."""
    reason = tenant_safety_violation(text, role=role)
    if reason is not None:
        raise TenantSafetyError(f"{where}: not tenant-safe: {reason}")


def check_text(text: str, where: str, role: str = "text") -> None:
    """Raise unless ``text`` is free of control characters / lone surrogates and tenant-safe."""
    if _CTRL.search(text):
        raise ValidationError(f"{where}: contains a control character or lone surrogate")
    check_tenant_safe(text, where, role=role)
