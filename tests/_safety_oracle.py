"""Pure-Python reference (oracle) of the tenant-safety validators -- tests only.

The library runs the C++ implementation (``director_fast._core._safety_tenant_violation``,
cpp/src/safety_rules.cpp); tests/test_safety_fast.py checks with Hypothesis that both give the same
answer (the same reason text) for arbitrary strings. This file is the readable statement of the
rules (documented in ``director_fast.safety.tenant`` and docs/safety_events.md):

1. fold the text for detection (NFKC/casefold/look-alikes/dropped format characters, from the
   generated table tests/_safety_fold_table.py; code points it does not map become ``\\x80``;
   LOCAL_WORDS become "password"), then normalise it (defanged URLs, SRI digests);
2. value detectors on the folded text, in priority order V1..V4, V7 (chat webhook URLs), V5, V6;
3. assignments ``key = value`` / ``key: value`` with a secret-like key (S1) or a prompt / message
   key (S2), and ``Bearer <credential>`` (S1), the leftmost one;
4. split secrets: 2 and 3 again on each view of the text without one of its non-alphanumeric
   characters (in code-point order), then without each pair of those that stand somewhere between
   two letters or digits, then without all of those but the ones a KEEP_SETS entry keeps, word
   starts and digest boundaries counted where one was removed;
5. key role only: sensitive key names (K1..K5).
"""

from __future__ import annotations

import base64
import math
import re
import string

from director_fast.errors import ValidationError
from director_fast.safety.tenant import TenantSafetyError
from _safety_fold_table import FOLD

__all__ = ["check_text", "fold", "tenant_safety_violation"]

OTHER = "\x80"
_CTRL = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")

ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
B64URL = ALNUM | frozenset("_-")
B64 = ALNUM | frozenset("+/=_-")
B64STD = ALNUM | frozenset("+/")
IDCH = ALNUM | frozenset("_.-")
WS = frozenset(" \t\n\v\f\r")
QUOTES = frozenset("\"'`")
STOP = frozenset(",;&)]}\"'`")


def fold(text: str) -> str:
    """The detection copy of ``text``: ASCII, with ``\\x80`` for code points that map to no ASCII."""
    return "".join(c if ord(c) < 0x80 else FOLD.get(ord(c), OTHER) for c in text)


#: "password" in scripts the fold does not read as ASCII (NFC spellings, lower case); the
#: validators' fold reads each as "password"
LOCAL_WORDS = ("пароль", "парола", "hasło", "密码", "密碼", "パスワード", "비밀번호", "كلمة المرور",
               "كلمة السر", "पासवर्ड", "סיסמה", "รหัสผ่าน")


def _local_lower(c: str) -> str:
    o = ord(c)
    if 0x41 <= o <= 0x5A or 0x410 <= o <= 0x42F:
        return chr(o + 0x20)
    if 0x400 <= o <= 0x40F:
        return chr(o + 0x50)
    return "\u0142" if o == 0x141 else c


def fold_words(text: str) -> str:
    """The fold, with the LOCAL_WORDS (matched left to right, Cyrillic / ASCII / L-stroke capitals
    lowered) read as "password"."""
    if text.isascii():
        return text
    low = "".join(_local_lower(c) for c in text)
    out, done, i = [], 0, 0
    while i < len(text):
        w = next((w for w in LOCAL_WORDS if low.startswith(w, i)), None)
        if w is None:
            i += 1
            continue
        out.append(fold(text[done:i]) + "password")
        i += len(w)
        done = i
    out.append(fold(text[done:]))
    return "".join(out)


_DEFANG = (("[.]", "."), ("(.)", "."), ("{.}", "."), ("[dot]", "."), ("(dot)", "."), ("{dot}", "."),
           ("[:]", ":"), ("[/]", "/"), ("[://]", "://"))
_SRI = (("sha256-", 43, 1), ("sha384-", 64, 0), ("sha512-", 86, 2),
        ("sha256:", 43, 1), ("sha384:", 64, 0), ("sha512:", 86, 2))  # SRI, OpenSSH fingerprints


def normalise(t: str) -> str:
    """Defanged URLs read as URLs ("[.]" -> ".", "hxxp" at a word start -> "http", ...); the base64
    of a subresource-integrity digest or an OpenSSH key fingerprint (sha256-/sha384-/sha512- or
    SHA256:/..., and exactly that digest's length, padded or not) becomes 64 '0's (a hex digest,
    set aside)."""
    out, i, n = [], 0, len(t)
    low = t.lower()
    while i < n:
        c = t[i]
        word_start = i == 0 or t[i - 1] not in ALNUM
        if c in "[({":
            d = next(((a, b) for a, b in _DEFANG if low.startswith(a, i)), None)
            if d is not None:
                out.append(d[1])
                i += len(d[0])
                continue
        elif c in "hH" and word_start and low.startswith("hxxp", i):
            out.append("http")
            i += 4
            continue
        elif c in "sS" and word_start:
            d = next(((a, b, pd) for a, b, pd in _SRI if low.startswith(a, i)), None)
            if d is not None:
                j = i + len(d[0])
                r = 0
                while j + r < n and r <= d[1] and t[j + r] in B64STD:
                    r += 1
                e, pad = j + r, 0
                while e < n and t[e] == "=" and pad <= d[2]:
                    e += 1
                    pad += 1
                if r == d[1] and pad in (0, d[2]) and (e >= n or t[e] not in B64):
                    out.append(t[i:j] + "0" * 64)
                    i = e
                    continue
        out.append(c)
        i += 1
    return "".join(out)


# ---- V1..V5 shapes --------------------------------------------------------------------------
_JWT = re.compile(r"(?=eyJ[A-Za-z0-9_-]{6,}+\.[A-Za-z0-9_-]{6,}+\.)", re.I | re.A)
_PEM = re.compile(r"-----BEGIN[A-Z ]{0,41}?PRIVATE ?KEY", re.I | re.A)
_DER = re.compile(r"(?<![A-Za-z0-9+/])MII[A-Za-z0-9+/]{20}", re.A)
_DATA = re.compile(r"(?<![A-Za-z])data:[^,;\s]{0,100};base64,", re.I | re.A)
_B64_200 = re.compile(r"[A-Za-z0-9+/]{200,}", re.A)

_U, _L, _D = "U", "L", "D"
_ALNUM_S, _B64URL_S = "".join(sorted(ALNUM)), "".join(sorted(B64URL))
# (prefix matched ASCII case-insensitively after a character that is not [A-Za-z0-9_-], tail
# characters, minimum tail length, classes the tail must contain); the tail is read up to 256.
# "aws": letters and digits without two lower-case letters in a row (AWS key ids are upper case;
# a single lower-case letter stands for a look-alike alphabet without that capital: small capitals
# have no X), so "acca0000InvoiceProcessor" is a name, not a key id.
VENDOR = [
    ("sk-", B64URL, 20, "ULD"), ("sk-ant-", B64URL, 20, "D"), ("sk-proj-", B64URL, 20, "D"),
    ("sk_live_", ALNUM, 16, ""), ("sk_test_", ALNUM, 16, ""),
    ("rk_live_", ALNUM, 16, ""), ("rk_test_", ALNUM, 16, ""), ("whsec_", ALNUM, 24, ""),
    ("ghp_", ALNUM, 30, ""), ("gho_", ALNUM, 30, ""), ("ghu_", ALNUM, 30, ""), ("ghs_", ALNUM, 30, ""),
    ("ghr_", ALNUM, 30, ""), ("github_pat_", B64URL, 40, ""), ("glpat-", B64URL, 20, ""),
    ("gldt-", B64URL, 20, ""), ("glrt-", B64URL, 20, ""), ("glptt-", B64URL, 20, ""),
    ("xoxa-", B64URL, 10, "D"), ("xoxb-", B64URL, 10, "D"), ("xoxp-", B64URL, 10, "D"),
    ("xoxo-", B64URL, 10, "D"), ("xoxs-", B64URL, 10, "D"), ("xoxr-", B64URL, 10, "D"),
    ("xoxe-", B64URL, 10, "D"), ("xapp-", B64URL, 20, "D"),
    ("akia", "aws", 16, "UD"), ("asia", "aws", 16, "UD"), ("abia", "aws", 16, "UD"), ("acca", "aws", 16, "UD"),
    ("aiza", B64URL, 30, ""), ("ya29.", B64URL, 20, ""), ("gocspx-", B64URL, 20, ""),
    ("hf_", ALNUM, 30, ""), ("npm_", ALNUM, 30, ""), ("pypi-age", B64URL, 40, ""),
    ("sg.", B64URL | frozenset("."), 40, ""), ("key-", ALNUM, 32, "D"),
    ("shpat_", ALNUM, 32, ""), ("shpss_", ALNUM, 32, ""), ("shpca_", ALNUM, 32, ""), ("shppa_", ALNUM, 32, ""),
    ("dapi", ALNUM, 32, "D"), ("dop_v1_", ALNUM, 40, ""), ("doo_v1_", ALNUM, 40, ""),
    ("glc_", B64URL, 32, ""), ("glsa_", B64URL, 32, ""), ("nrak-", ALNUM, 27, ""),
    ("pmak-", B64URL, 40, ""), ("lin_api_", ALNUM, 40, ""), ("hvs.", B64URL, 24, ""),
    ("hvb.", B64URL, 24, ""), ("age-secret-key-1", ALNUM, 50, ""), ("sq0atp-", B64URL, 22, ""),
    ("sq0csp-", B64URL, 40, ""), ("atatt3", B64URL, 100, ""), ("ltai", ALNUM, 12, "D"),
    ("pul-", ALNUM, 40, ""), ("dp.pt.", ALNUM, 40, ""), ("xkeysib-", B64URL, 60, ""),
    ("figd_", B64URL, 40, ""), ("ntn_", ALNUM, 40, ""), ("sntrys_", B64URL, 60, ""),
    ("rzp_live_", ALNUM, 14, ""), ("flwseck-", B64URL, 32, ""),
]
_TAIL_CAP = 256


def _has_classes(s: str, need: str) -> bool:
    return (("U" not in need or any("A" <= c <= "Z" for c in s))
            and ("L" not in need or any("a" <= c <= "z" for c in s))
            and ("D" not in need or any("0" <= c <= "9" for c in s)))


def _in_tail(t: str, j: int, k: int, tail_set) -> bool:
    if tail_set == "aws":
        return t[k] in ALNUM and not (t[k].islower() and k > j and t[k - 1].islower())
    return t[k] in tail_set


def _word_start(t: str, i: int, brk: frozenset[int]) -> bool:
    return i == 0 or t[i - 1] not in B64URL or i in brk


def _vendor(t: str, brk: frozenset[int]) -> str | None:
    low = t.lower()
    for i in range(len(t)):
        if not _word_start(t, i, brk):
            continue
        for prefix, tail_set, min_tail, need in VENDOR:
            if not low.startswith(prefix, i):
                continue
            j = i + len(prefix)
            k = j
            while k < len(t) and k - j < _TAIL_CAP and _in_tail(t, j, k, tail_set):
                k += 1
            if k - j >= min_tail and _has_classes(t[j:k], need):
                return prefix
    return None


def _url_password(t: str) -> int:
    """The first URL whose user info is a password (1: ``user:pass@``) or a key (2: >= 16 of
    [A-Za-z0-9_-] with a letter and a digit, e.g. a Sentry DSN); 0 when none."""
    for m in re.finditer("://", t):
        i = m.start()
        if i == 0 or t[i - 1] not in ALNUM:
            continue
        j = i + 3
        colon = -1
        while j < len(t) and j - (i + 3) < 256 and t[j] not in WS and t[j] not in "/?#@\"'<>" + OTHER:
            if t[j] == ":" and colon < 0:
                colon = j
            j += 1
        if j >= len(t) or t[j] != "@":
            continue
        if colon >= 0:
            if colon + 1 < j:
                return 1
            continue
        user = t[i + 3:j]
        if (len(user) >= 16 and set(user) <= B64URL and any(ch.isalpha() for ch in user)
                and any(ch.isdigit() for ch in user)):
            return 2
    return 0


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", re.A)
_HEROKU_BETWEEN = IDCH | WS | frozenset(":=\"'")


def _heroku(t: str, brk: frozenset[int]) -> bool:
    """"heroku" (not after a letter), then within 48 characters of identifier characters, blanks,
    ':', '=', quotes that name a key (key, token, secret, auth, pass, cred), a UUID."""
    low = t.lower()
    for m in re.finditer("heroku", low):
        i = m.start()
        if i > 0 and t[i - 1].isalpha() and t[i - 1] in ALNUM and i not in brk:
            continue
        named = False
        q = i + 6
        while q < len(t) and q - (i + 6) <= 48:
            if named and _UUID.match(t, q) and (q == 0 or t[q - 1] not in ALNUM or q in brk):
                e = q + 36
                if e >= len(t) or t[e] not in ALNUM or e in brk:
                    return True
            if t[q] not in _HEROKU_BETWEEN:
                break
            named = named or any(low.startswith(w, q) for w in ("key", "token", "secret", "auth", "pass", "cred"))
            q += 1
    return False


# ---- V6 high-entropy runs -------------------------------------------------------------------
_RUN = re.compile(r"[A-Za-z0-9+/=_-]{32,}", re.A)
_SEG = re.compile(r"[+/=_-]")
_ALPHA_TOK = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
_DIGEST_LENS = (32, 40, 64, 128)
_HEX = frozenset("0123456789abcdef")


def _entropy_ok(run: str) -> bool:
    n = len(run)
    counts = [0] * 128
    for c in run:
        counts[ord(c)] += 1
    s = 0.0
    for c in counts:
        if c:
            s += c * math.log2(c)
    return n * math.log2(n) - s >= 4.0 * n


_TIME_PIECE = re.compile(r"[0-9]{2,}[TZ][0-9]*", re.A)  # "01T10", "00Z" of an ISO time in a name


#: the object ids of LLM APIs whose random part is an id, not a credential: the piece after one
#: of these and '-', '_' or a removed separator is an id ("chatcmpl-<29>", "msg_<24>", "toolu_<24>")
ID_PREFIXES = frozenset("chatcmpl cmpl msg msgbatch toolu resp asst thread ftjob".split())
_B64_VALUE = {c: i for i, c in enumerate(string.ascii_uppercase + string.ascii_lowercase + string.digits + "+/")}


def _ssh_key_body(s: str) -> bool:
    """``s`` starts the base64 of an SSH public key blob: 00 00 00 L (7 <= L <= 40), then a key
    type name starting "ssh-", "ecdsa", "sk-ss" or "sk-ec" (the first 12 characters decoded)."""
    if len(s) < 12 or any(c not in _B64_VALUE for c in s[:12]):
        return False
    b = base64.b64decode(s[:12])
    return b[:3] == b"\0\0\0" and 7 <= b[3] <= 40 and (b[4:8] == b"ssh-" or b[4:9] in (b"ecdsa", b"sk-ss", b"sk-ec"))


_WORD_PIECE = re.compile(r"(?:[A-Z]?[a-z]{2,}+)++", re.A)  # possessive: linear, like the C++ scan


def _word_piece(p: str) -> bool:
    """A whole word: ([A-Z]?[a-z]{2,})+ ("video", "YouTube") or a lower-case short word."""
    return bool(_WORD_PIECE.fullmatch(p)) or (p.islower() and p.isalpha() and p in SHORT_WORDS)


def _mask_joined_words(run: str, start: int, brk: frozenset[int], out: list[str]) -> None:
    """In a view, the pieces of ``run`` between removed separators (``brk``) and symbols: when two
    or more are whole words and the others of two or more characters are one piece, the words
    (prose, or a URL's host and path, joined to one id: "YouTube video dQw4w9WgXcQ was flagged",
    "see grafana.acme.io/d/Xk9pQ2mZk/api-latency for the spike") become '+' in ``out``."""
    pieces, seg = [], 0
    for k in range(len(run) + 1):
        sym = k < len(run) and run[k] in "+/=_-"
        if k == len(run) or sym or (k > seg and start + k in brk):
            pieces.append((seg, k))
            seg = k + 1 if sym else k
    words = [(a, e) for a, e in pieces if _word_piece(run[a:e])]
    others = [(a, e) for a, e in pieces if (a, e) not in words and e - a >= 2]
    if len(words) >= 2 and len(others) == 1:
        for a, e in words:
            for k in range(a, e):
                if out[k] == run[k]:
                    out[k] = "+"


def _digest_mask(run: str, start: int, brk: frozenset[int] | None, sbrk: frozenset[int] = frozenset()) -> str:
    """``run`` (at ``start`` in the text; ``brk``: where a view removed a separator, None for the
    text itself; ``sbrk``: where it removed a space) with, per piece (pieces end at symbols and
    removed separators): '-' for digests (lower-case hex of 32/40/64/128) and SSH public key
    bodies (to the end of the run or a removed space); '+' for hex ids (>= 8 lower-case hex digits with a digit), times ("01T10", "00Z"),
    the piece after an ID_PREFIXES piece and '-' / '_' / a removed separator, and prose words
    joined to one id (``_mask_joined_words``)."""
    out = list(run)
    seg, id_next, key_body = 0, False, False
    view = brk is not None
    brk = brk or frozenset()
    for k in range(len(run) + 1):
        sym = k < len(run) and run[k] in "+/=_-"
        if not (k == len(run) or sym or (start + k in brk and k > seg)):
            continue
        piece = run[seg:k]
        if seg > 0 and start + seg in sbrk:
            key_body = False
        if not key_body and _ssh_key_body(run[seg:]):
            key_body = True
        is_id = False
        if key_body:
            out[seg:k] = "-" * len(piece)
            if sym:
                out[k] = "-"
        elif len(piece) in _DIGEST_LENS and set(piece) <= _HEX:
            out[seg:k] = "-" * len(piece)  # a digest: set aside
        elif id_next or (len(piece) >= 8 and set(piece) <= _HEX and not piece.isalpha()) or _TIME_PIECE.fullmatch(piece):
            out[seg:k] = "+" * len(piece)  # an id, a hex id (a short commit or build hash) or a time
        else:
            is_id = (run[k] in "-_" if sym else k < len(run)) and piece in ID_PREFIXES
        id_next = is_id
        seg = k + 1 if sym else k
    if view:
        _mask_joined_words(run, start, brk, out)
    return "".join(out)


# short words that count as words (prose, path components, file extensions: "of", "the", "var", "pdf")
SHORT_WORDS = frozenset(
    'of to in on at by is it as an or be we no up us id ok io db eu the and for not are was all any per via new old out run log app api var lib usr bin etc opt tmp src dev srv sys doc img net web www com org pdf csv txt tsv yml cfg ini png jpg gif svg zip tgz tar gz xz md py js ts rs go cc cpp hpp so dll exe dat sql xml htm xls ppt crt ico sh whl jar war apk iso bak env pid mp ops ml gs ai qa ci cd '
    # Python wheel tags ("cp311-cp311-manylinux_2_17_x86_64", "abi3", "win_amd64")
    'cp pp abi arm amd win'.split()
)


def _made_of_words(masked: str) -> bool:
    """>= 3/4 of the letters in words -- alphabetic tokens of >= 4 letters or SHORT_WORDS (paths,
    identifiers, prose)."""
    total = long = 0
    for s in _SEG.split(masked):
        for tok in _ALPHA_TOK.findall(s):
            total += len(tok)
            if len(tok) >= 4 or tok.lower() in SHORT_WORDS:
                long += len(tok)
    return total > 0 and 4 * long >= 3 * total


def _base64_run(run: str, start: int, brk: frozenset[int] | None, sbrk: frozenset[int] = frozenset()) -> bool:
    """V5 on a run of >= 200 of [A-Za-z0-9+/]: >= 200 characters besides digests and hex ids, not
    made of words or without lower-case letters (joined prose is made of words)."""
    masked = _digest_mask(run, start, brk, sbrk)
    if sum(c == m for c, m in zip(run, masked)) < 200:
        return False
    return not _made_of_words(masked) or not any(c.islower() for c in run)


def _high_entropy(run: str, start: int = 0, brk: frozenset[int] | None = None,
                  sbrk: frozenset[int] = frozenset()) -> bool:
    masked = _digest_mask(run, start, brk, sbrk)
    kept = "".join(c for c, m in zip(run, masked) if c == m)  # digests and hex ids set aside
    if len(kept) < 32:
        return False
    if not any(c.isalpha() and c.lower() > "f" for c in run):
        return False  # hex alphabet (digests, UUIDs)
    classes = (any(c.isupper() for c in kept) + any(c.islower() for c in kept)
               + any(c.isdigit() for c in kept) + any(c in "+/=_-" for c in kept))
    if classes < 3 or not _entropy_ok(kept):
        return False
    return not _made_of_words(masked)


# ---- V7 chat-service webhooks ---------------------------------------------------------------
# (marker matched ASCII case-insensitively anywhere): the URL carries its token in the path
# (host, path): the host may end in '.' and carry a port (":443"); the path may hold one version
# segment "v<1-3 digits>/" the marker does not ("discord.com/api/v10/webhooks/")
WEBHOOKS = (
    ("hooks.slack.com", "/services/"), ("hooks.slack.com", "/workflows/"), ("hooks.slack.com", "/triggers/"),
    ("discord.com", "/api/webhooks/"), ("discordapp.com", "/api/webhooks/"), ("webhook.office.com", "/webhookb2/"),
    ("outlook.office.com", "/webhook/"), ("outlook.office365.com", "/webhook/"), ("logic.azure.com", "/workflows/"),
    ("chat.googleapis.com", "/v1/spaces/"), ("api.telegram.org", "/bot"), ("hooks.zapier.com", "/hooks/catch/"),
    ("maker.ifttt.com", "/trigger/"), ("api.flock.com", "/hooks/sendmessage/"),
)
_HOOK_TAIL = ALNUM | frozenset("_-./@:")
_VERSION = re.compile(r"[vV][0-9]{1,3}/", re.A)
_HOOK_PATH_CAP = 384


def _host_end(low: str, i: int, host: str) -> int:
    """The end of ``host`` at i with an optional final '.' and ":port", or -1."""
    if not low.startswith(host, i):
        return -1
    j = i + len(host)
    if low.startswith(".", j):
        j += 1
    if low.startswith(":", j):
        d = 0
        while j + 1 + d < len(low) and d <= 5 and low[j + 1 + d] in "0123456789":
            d += 1
        if not 1 <= d <= 5:
            return -1
        j += 1 + d
    return j


def _path_end(u: str, path: str) -> int:
    """The end of ``path`` at the start of the normalised path u (one version segment the marker
    does not hold may come between), or -1."""
    low = u.lower()
    j = 0
    skipped = False
    k = 0
    while k < len(path):
        if j < len(low) and low[j] == path[k]:
            j += 1
            k += 1
            continue
        m = _VERSION.match(low, j) if not skipped and k > 0 and path[k - 1] == "/" else None
        if m is None:
            return -1
        skipped = True
        j = m.end()
    return j


def _hook_path(t: str, j: int) -> tuple[str, list[int]]:
    """The URL path from j as a server reads it (at most 384 characters of [A-Za-z0-9_./@:-],
    '\\', "%2F" / "%5C"): '\\' and the escapes are '/', a run of '/' is one, a "." segment is
    dropped and a ".." segment drops itself and the segment before it; with the position in t of
    each character."""
    out: list[str] = []
    pos: list[int] = []

    def end_segment():
        text = "".join(out)
        seg = text.rfind("/") + 1
        last = text[seg:]
        if last not in (".", ".."):
            return
        keep = seg
        if last == ".." and seg >= 2:
            keep = text.rfind("/", 0, seg - 1) + 1
        del out[keep:], pos[keep:]

    k = j
    while k < len(t) and k - j < _HOOK_PATH_CAP:
        c, adv = t[k], 1
        if c == "%" and t[k + 1:k + 3].lower() in ("2f", "5c") and k + 2 < len(t):
            c, adv = "/", 3
        elif c == "\\":
            c = "/"
        elif c not in _HOOK_TAIL:
            break
        if c == "/":
            end_segment()
            if out and out[-1] == "/":
                k += adv
                continue
        out.append(c)
        pos.append(k)
        k += adv
    end_segment()
    return "".join(out), pos


def _webhook(t: str, sbrk: frozenset[int] = frozenset()) -> bool:
    """A webhook marker, then a path (``_hook_path``) with >= 8 letters or digits in its first 256
    characters after the marker; in a view without spaces (``sbrk``: where they were), a path that
    runs across a removed space must hold two segments ('/' between letters or digits)."""
    low = t.lower()
    if len(t) < 20 or not any(c in t for c in "/\\%"):
        return False
    for i in range(len(t)):
        for host, path in WEBHOOKS:
            j = _host_end(low, i, host)
            if j < 0:
                continue
            u, pos = _hook_path(t, j)
            s = _path_end(u, path)
            if s < 0:
                continue
            tail = range(s, min(len(u), s + 256))
            alnum = sum(u[k] in ALNUM for k in tail)
            crosses = any(pos[k] in sbrk for k in tail)
            segments = any(u[k] == "/" and k > s and u[k - 1] in ALNUM and k + 1 < len(u) and u[k + 1] in ALNUM
                           for k in tail)
            if alnum >= 8 and (not crosses or segments):
                return True
    return False


def _value_shape(t: str, brk: frozenset[int] | None = None, sbrk: frozenset[int] = frozenset(),
                 tokbrk: frozenset[int] = frozenset()) -> str | None:
    """The first value shape of ``t`` (a view when ``brk``, where it removed separators, is given)."""
    runs_brk = brk
    brk = brk or frozenset()
    if any(_word_start(t, m.start(), tokbrk) for m in _JWT.finditer(t)):
        return "JWT (V1)"
    if _PEM.search(t) or _DER.search(t):
        return "PEM private key (V2)"
    v = _vendor(t, tokbrk)
    if v is not None:
        return f"vendor token format {v!r} (V3)"
    if _heroku(t, brk):
        return "Heroku API key (V3)"
    url = _url_password(t)
    if url:
        return "password in a URL (V4)" if url == 1 else "key in a URL (V4)"
    if _webhook(t, sbrk):  # (anywhere in the text)
        return "chat webhook URL (V7)"
    if _DATA.search(t):
        return "data: base64 URI (V5)"
    if any(_base64_run(m.group(), m.start(), runs_brk, sbrk) for m in _B64_200.finditer(t)):
        return "base64 run of 200+ characters (V5)"
    if any(_high_entropy(m.group(), m.start(), runs_brk, sbrk) for m in _RUN.finditer(t)):
        return "high-entropy run (V6)"
    return None


_TEMPLATE_START = frozenset("<${%")


def _view(t: str, seps: frozenset[str]):
    """(text without the ``seps``, positions where one was removed, where a space was, where a
    template character was, where one that is not a path separator was, where a '.' or '~' was,
    where a '/' or '\\' was). A token (JWT, vendor prefix) may start where a
    separator was removed, but not where only '/' or '\\' was: a join across a path's segments
    starts no token ("srv/hf_cache/..."). A value that starts where a path character was removed
    is judged in the text itself ("pwd=/srv/app" is not "pwd=srvapp")."""
    out, brk, sbrk, tbrk, pbrk, lbrk = [], set(), set(), set(), set(), set()
    for c in t:
        if c in seps:
            (sbrk if c == " " else tbrk if c in _TEMPLATE_START else pbrk if c in "/\\" else brk).add(len(out))
            if c in ".~":
                lbrk.add(len(out))
        else:
            out.append(c)
    return ("".join(out), frozenset(brk | sbrk | tbrk | pbrk), frozenset(sbrk), frozenset(tbrk),
            frozenset(brk | sbrk | tbrk), frozenset(lbrk), frozenset(pbrk))


#: the separator kinds kept in the views without three or more kinds: none, the assignment signs,
#: and those with base64url's symbols (without and with the '.' of dotted tokens, with a URL's
#: '.' and '/') or base64's
#: (alphabets a secret may be written in)
KEEP_SETS = ("", ":=", ":=-_", ":=-_.", ":=-_./", ":=+/")


def _views(t: str):
    """The views of ``t`` without one separator kind -- every character that is not a letter or
    digit (after the fold), in code-point order -- then without two kinds mixed: each pair (in
    order) of the kinds that occur somewhere between two letters or digits (a kind used to split
    a secret sits between two of its letters or digits); then, where three or more such kinds
    occur, without all of them except those of a KEEP_SETS entry (skipping repeats)."""
    kinds = sorted({c for c in t if c not in ALNUM})
    for sep in kinds:
        yield _view(t, frozenset(sep))
    inner = {t[i] for i in range(1, len(t) - 1) if t[i - 1] in ALNUM and t[i + 1] in ALNUM}
    pair_kinds = [c for c in kinds if c in inner]
    for x, a in enumerate(pair_kinds):
        for b in pair_kinds[x + 1:]:
            yield _view(t, frozenset((a, b)))
    seen = []
    for keep in KEEP_SETS:
        drop = frozenset(c for c in pair_kinds if c not in keep)
        if len(drop) >= 3 and drop not in seen:
            yield _view(t, drop)
        seen.append(drop)


def _split_secret(t: str) -> str | None:
    """A value shape or an assignment once the pieces of a split secret are joined again ("AKIA
    IOSF ODNN 7EXA MPLE", "p.a.s.s.w.o.r.d=hunter2", "sk-ab12.cd34 ef56...")."""
    for view, brk, sbrk, tbrk, tokbrk, lbrk, pbrk in _views(t):
        why = _value_shape(view, brk, sbrk, tokbrk) or _assignment(view, sbrk, tbrk, lbrk, brk, pbrk)
        if why is not None:
            return f"{why[:-1]}, split)"
    return None


# ---- key names --------------------------------------------------------------------------------
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
SECRET_LONG = (
    "connectionstring", "subscriptionkey", "encryptionkey", "authorization", "refreshtokens",
    "sessiontokens", "accesstokens", "bearertokens", "credentials", "signingkey", "passphrase",
    "privatekeys", "accountkey", "licensekey", "secretkey", "accesskeys", "privatekey", "credential",
    "passwords", "masterkey", "sharedkey", "deploykey", "authtokens", "apitokens", "accesskey",
    "clientkey", "sessionid", "password", "idtokens", "apikeys", "cookies", "secrets", "connstr",
    "privkey", "session", "authkey", "passwd", "secret", "sshkey", "apikey", "cookie", "bearer",
    "sessid", "appkey", "token", "jwt",
    # "password" in other languages (LOCAL_WORDS: the scripts the fold does not read)
    "contrasena", "motdepasse", "wachtwoord", "passwort", "kennwort",
)
SECRET_SHORT = ("oauth", "pass", "auth", "pwd", "sid", "dsn", "sig", "psk", "pat", "pw", "senha", "sifre", "haslo")
SESSION_STEMS = frozenset({"session", "sessionid", "sessid", "sid"})
CONTENT_ASSIGN = ("instructions", "completions", "transcripts", "completion", "transcript",
                  "userinput", "messages", "prompts", "prompt")
PAYLOAD_SUFFIX = frozenset(
    "value values text string str data plain plaintext body content contents b64 base64 hex payload "
    "payloads blob bytes dump bin binary encoded json html file files reading readings frame frames "
    "sample samples stream feed capture".split()
)
PAYLOAD_ALONE = frozenset(
    "data payload payloads blob bytes body content contents dump base64 b64 binary plaintext text".split()
)
CONTENT_WORDS = frozenset(
    "prompt prompts completion completions transcript transcripts messages instructions input inputs "
    "query queries conversation conversations utterance utterances response responses output "
    "outputs".split()
)
CONTENT_COMPOUND = ("instructions", "completion", "transcript", "userinput", "userquery", "rawinput",
                    "messages", "prompts", "prompt")
MEDIA = frozenset(
    "image images photo photos picture pictures video videos audio screenshot screenshots recording "
    "recordings selfie selfies biometric biometrics media".split()
)
SENSOR = frozenset("sensor sensors lidar telemetry".split())


def _camel(key: str) -> list[str]:
    return [w.lower() for w in _CAMEL.findall(key) if not w.isdigit()]


def _last_seg(key: str) -> str:
    segs = [s for s in re.split(r"[^a-z0-9]+", key.lower()) if s]
    return segs[-1].rstrip("0123456789") if segs else ""


def _strip_payload(parts: list[str]) -> tuple[list[str], bool]:
    had = False
    while len(parts) > 1 and parts[-1] in PAYLOAD_SUFFIX:
        parts = parts[:-1]
        had = True
    return parts, had


def _secret_stem(key: str) -> str | None:
    parts, _ = _strip_payload(_camel(key))
    if not parts:
        return None
    compact = "".join(parts)
    for stem in SECRET_LONG:
        if compact.endswith(stem):
            return stem
    seg = _last_seg(key)
    for stem in SECRET_SHORT:
        if parts[-1] == stem or compact == stem or seg == stem:
            return stem
    return None


def _content_stem(key: str) -> str | None:
    parts, _ = _strip_payload(_camel(key))
    compact = "".join(parts)
    for stem in CONTENT_ASSIGN:
        if compact.endswith(stem):
            return stem
    return None


# ---- S1 / S2 assignments ------------------------------------------------------------------------
PLACEHOLDERS = frozenset(
    "redacted null none nil true false undefined empty hidden masked removed omitted unset required "
    "optional na n/a tbd todo".split()
)
SCHEMES = frozenset("basic bearer token digest negotiate ntlm apikey hmac".split())
#: S1 values that name a state, a scheme or an algorithm, not a credential ("token=expired",
#: "auth=oauth2", "sig=ed25519", "password=disabled"); matched whole, ASCII case-insensitively
VALUE_WORDS = frozenset(
    # states
    "enabled disabled enable disable expired expiring expires missing invalid valid revoked rotated "
    "rotating present absent pending active inactive locked unlocked rejected accepted denied granted "
    "failed failing passed verified unverified changed updated reset stale refreshed renewed blocked "
    "allowed unknown default configured provided loaded cached exposed leaked compromised mismatch "
    "incorrect wrong weak strong ok on off yes no set notset "
    # schemes and protocols
    "oauth oauth1 oauth2 oidc openid saml saml2 ldap ldaps kerberos sso mfa 2fa totp hotp webauthn "
    "fido2 passkey mtls tls ssl jwt jwks apikey password token cert certificate basic bearer digest "
    "ntlm negotiate "
    # algorithms
    "ed25519 ed448 x25519 rsa ecdsa dsa eddsa p256 p384 p521 secp256k1 secp256r1 sha1 sha224 sha256 "
    "sha384 sha512 sha3 md5 blake2b blake3 hs256 hs384 hs512 rs256 rs384 rs512 es256 es384 es512 "
    "ps256 ps384 ps512 aes aes128 aes256 chacha20 pbkdf2 bcrypt scrypt argon2 argon2i argon2d "
    "argon2id hmac plain plaintext".split()
)
#: the first segment of an absolute path value ("pwd=/srv/app"): top-level directories of Unix,
#: macOS and containers
PATH_ROOTS = frozenset(
    "bin boot dev etc home lib lib64 media mnt opt proc root run sbin srv sys tmp usr var users "
    "applications library system volumes private app apps data workspace workspaces code src build".split()
)
#: cookie attributes: "cookie: SameSite=Lax" names one, it holds no cookie value
COOKIE_ATTRS = ("samesite", "secure", "httponly", "path", "domain", "max-age", "expires", "partitioned", "priority")
_LOGFMT = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}=(?!=)", re.A)


def _named_value(v: str) -> bool:
    """A placeholder or a VALUE_WORDS word (brackets around it ignored)."""
    w = v.strip("[]()").lower()
    return w in PLACEHOLDERS or w in VALUE_WORDS


def _path_value(v: str) -> bool:
    """"./", "../", "~/", a drive ("C:\\", "C:/"), or '/' or '\\' and a PATH_ROOTS segment."""
    if v.startswith(("./", "../", "~/")):
        return True
    if len(v) >= 3 and v[0] in ALNUM and v[0].isalpha() and v[1] == ":" and v[2] in "\\/":
        return True
    if not v or v[0] not in "/\\":
        return False
    return re.split(r"[/\\]", v[1:], maxsplit=1)[0].lower() in PATH_ROOTS


def _cookie_attribute(t: str, v: int, value: str, brk: frozenset[int]) -> bool:
    """The value (at v in t) is a cookie attribute: its name, then '=', the end or (in a view) a
    removed separator ("SameSite=Lax", "Secure")."""
    low = value.lower()
    return any(low.startswith(a) and (len(value) == len(a) or value[len(a)] == "=" or v + len(a) in brk)
               for a in COOKIE_ATTRS)
_MASK = frozenset("*#.xX-_")


def _plain_word(v: str) -> bool:
    return bool(v) and v[0] in ALNUM and v[0].isalpha() and all("a" <= c <= "z" for c in v[1:])


def _classes(v: str) -> int:
    return (any("A" <= c <= "Z" for c in v) + any("a" <= c <= "z" for c in v)
            + any("0" <= c <= "9" for c in v))


def _credential_value(v: str, strong: bool, stem: str) -> bool:
    if not v:
        return False
    if v[0] == "[" or (v[0] == "{" and (len(v) == 1 or v[1] in "\"' ")):
        return True  # a JSON array / object (message lists, nested credentials)
    if v[0] in "<${%" or set(v) <= _MASK or _named_value(v) or _path_value(v):
        return False  # a template, variable reference, mask, placeholder or value word, a path
    if stem in SESSION_STEMS:
        # session ids: only a random-looking value (a cookie) is a credential
        return len(v) >= 16 and _classes(v) >= 2 and not _plain_word(v)
    if v.isdigit() and (len(v) < 4 or (stem == "token" and len(v) <= 9)):
        return False  # a count, index or position
    if not strong and _plain_word(v) and len(v) < 16:
        return False  # prose: "Password: required"
    return len(v) >= 3


def _cred_run(t: str, j: int, stop_at: frozenset[int] = frozenset()) -> str:
    k = j
    while k < len(t) and k - j < 128 and t[k] not in WS and t[k] not in STOP and (k == j or k not in stop_at):
        k += 1
    return t[j:k]


def _template_at(t: str, j: int, tbrk: frozenset[int]) -> bool:
    """A template placeholder starts at j, or a template character was removed just before it."""
    return (j < len(t) and t[j] in _TEMPLATE_START) or j in tbrk


def _lead_removed(t: str, vstart: int, v: int, lbrk: frozenset[int], pbrk: frozenset[int]) -> bool:
    """In a view, the value at v was a path, which the text itself judged ("./build", "~/app",
    "C:\\Users"): its first 16 characters with the removed '/' or '\\' (``pbrk``, read as '/') and
    '.' or '~' (``lbrk``, read as '.') put back make a ``_path_value``."""
    buf, removed = [], False
    for q in range(vstart, min(len(t), v + 15) + 1):
        if q in lbrk:
            buf.append(".")
            removed = True
        if q in pbrk:
            buf.append("/")
            removed = True
        if q == len(t):
            break
        if q >= v:
            buf.append(t[q])
    return removed and _path_value("".join(buf))


def _value_in_view(t: str, v: int, value: str, sbrk: frozenset[int]) -> str:
    """In a view without spaces, an unquoted value that runs across a removed space ends at the
    first one when what it read before it is a named value or a path ("auth=oauth2 enabled") or
    another key=value pair follows ("pass=3 fail=1")."""
    for q in range(v + 1, v + len(value)):
        if q in sbrk:
            first = t[v:q]
            return first if _named_value(first) or _path_value(first) or _LOGFMT.match(t, q) else value
    return value


def _assignment_at(t: str, p: int, sbrk: frozenset[int] = frozenset(), tbrk: frozenset[int] = frozenset(),
                   lbrk: frozenset[int] = frozenset(), brk: frozenset[int] = frozenset(),
                   pbrk: frozenset[int] = frozenset()) -> str | None:
    """The assignment whose ':' / '=' is at p. In a view (spaces removed at ``sbrk``, template
    characters at ``tbrk``): a value that followed ': ' is weak and ends where a space was; a
    template character removed between the separator and the value (inside its quote
    included) marks a template."""
    n = len(t)
    c = t[p]
    if c == "=" and ((p and t[p - 1] in ":=!<>") or (p + 1 < n and t[p + 1] == "=")):
        return None
    if c == ":" and t.startswith("//", p + 1):
        return None
    vstart = p + 1
    if p + 1 < n and ((c == ":" and t[p + 1] == "=") or (c == "=" and t[p + 1] == ">")):
        vstart = p + 2
    k = p
    ws = 0
    while k > 0 and t[k - 1] in WS and ws < 8:
        k -= 1
        ws += 1
    if k > 0 and t[k - 1] in QUOTES:
        k -= 1
    kend = k
    while k > 0 and t[k - 1] in IDCH and kend - k < 64:
        k -= 1
    key = t[k:kend]
    if not any(ch.isalpha() for ch in key):
        return None
    stem = _secret_stem(key)
    kind = "S1"
    if stem is None:
        stem = _content_stem(key)
        kind = "S2"
        if stem is None:
            return None
    v = vstart
    ws = 0
    while v < n and t[v] in WS and ws < 8:
        v += 1
        ws += 1
    gap = v in sbrk and c != "="  # a space was removed between ':' and the value
    quote = t[v] if v < n and t[v] in QUOTES else None
    if quote is not None:
        v += 1
    if any(q in tbrk for q in range(vstart, v + 1)):
        return None  # "${X}", "<x>", "%(x)s", "{{x}}" with its first character removed
    if _lead_removed(t, vstart, v, lbrk, pbrk):
        return None  # a path value ("./build", "~/app"): judged in the text itself
    if quote is not None:
        j = v
        while j < n and j - v < 128 and t[j] != quote:
            j += 1
        value = t[v:j]
    else:
        value = _cred_run(t, v, sbrk if gap else frozenset())
        if not gap:
            value = _value_in_view(t, v, value, sbrk)
    strong = c == "=" or quote is not None or (ws == 0 and not gap)
    if kind == "S1" and stem in ("authorization", "auth") and value.lower() in SCHEMES:
        j = v + len(value)
        w = 0
        while j < n and t[j] in WS and w < 8:
            j += 1
            w += 1
        spaced = w > 0 or j in sbrk
        cred = _cred_run(t, j, sbrk) if spaced else ""
        ok = len(cred) >= 8 and not all("a" <= ch <= "z" for ch in cred) and not _template_at(t, j, tbrk)
    elif stem in ("cookie", "cookies") and _cookie_attribute(t, v, value, brk):
        ok = False  # "cookie: SameSite=Lax"
    else:
        ok = _credential_value(value, strong, stem)
    if not ok:
        return None
    if kind == "S1":
        return f"secret assigned to {stem!r} (S1)"
    return f"prompt or message content assigned to {stem!r} (S2)"


def _bearer_at(t: str, i: int, brk: frozenset[int] = frozenset(), tbrk: frozenset[int] = frozenset()) -> bool:
    """``Bearer <credential>`` at i; in a view without spaces (``brk``: where they were), the
    removed spaces delimit the word and the credential; a template is no credential."""
    if not t[i:i + 6].lower() == "bearer" or (i and t[i - 1] in ALNUM and i not in brk):
        return False
    j = i + 6
    w = 0
    while j < len(t) and t[j] in WS and w < 8:
        j += 1
        w += 1
    if w == 0 and j not in brk:
        return False
    cred = _cred_run(t, j, brk)
    return len(cred) >= 16 and _classes(cred) >= 2 and not _template_at(t, j, tbrk)


def _assignment(t: str, sbrk: frozenset[int] = frozenset(), tbrk: frozenset[int] = frozenset(),
                lbrk: frozenset[int] = frozenset(), brk: frozenset[int] = frozenset(),
                pbrk: frozenset[int] = frozenset()) -> str | None:
    for p, c in enumerate(t):
        if c in ":=":
            why = _assignment_at(t, p, sbrk, tbrk, lbrk, brk, pbrk)
            if why is not None:
                return why
        elif c in "bB" and _bearer_at(t, p, sbrk, tbrk):
            return "bearer credential (S1)"
    return None


# ---- K1..K5 key names --------------------------------------------------------------------------
def _key_name(key: str) -> str | None:
    stem = _secret_stem(key)
    if stem is not None:
        return f"credential key name {stem!r} (K1)"
    parts0 = _camel(key)
    if not parts0:
        return None
    parts, had = _strip_payload(parts0)
    compact = "".join(parts)
    last = parts[-1]
    if last in CONTENT_WORDS:
        return f"key naming private content {last!r} (K2)"
    for stem in CONTENT_COMPOUND:
        if compact.endswith(stem):
            return f"key naming private content {stem!r} (K2)"
    if last in MEDIA:
        return f"key naming private media {last!r} (K3)"
    if last in SENSOR:
        return f"key naming a sensor payload {last!r} (K4)"
    if ("raw" in parts and (had or last == "raw")) or (len(parts0) == 1 and last in PAYLOAD_ALONE):
        return "key naming a raw payload (K5)"
    return None


def tenant_safety_violation(text: str, *, role: str = "text") -> str | None:
    """Return why ``text`` breaks a tenant-safety rule (``None`` when it is safe)."""
    t = normalise(fold_words(text))
    why = _value_shape(t) or _assignment(t) or _split_secret(t)
    if why is None and role == "key":
        why = _key_name(t)
    plain = _TAGS.sub("", text)
    if why is None and plain != text:  # tag characters between a secret's letters: read again without
        again = tenant_safety_violation(plain, role=role)
        why = f"{again[:-1]}, tags removed)" if again else None
    return why


_TAGS = re.compile("[\U000E0000-\U000E007F]")


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
