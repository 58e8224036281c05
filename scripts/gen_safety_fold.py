#!/usr/bin/env python3
"""Generate the detection fold table of the tenant-safety validators (run offline, output committed).

The validators (cpp/src/safety_rules.cpp) look for credentials in a *folded* copy of each string:
every non-ASCII code point is replaced by the ASCII it is shown as or stands for, so that
``ｐａｓｓｗｏｒｄ=``, ``pаssword=`` (Cyrillic а) or ``pass\u00adword=`` (soft hyphen) are seen as
``password=``. The fold is for detection only: payload bytes and canonical JSON never change.

Per code point (first rule that applies):

1. tag characters U+E0020..U+E007E -> the ASCII character they encode (invisible "tag" text);
2. format characters (Cf), non-spacing and enclosing marks (Mn, Me) and the Hangul fillers -> "" (dropped);
3. separators (Zs, Zl, Zp) and U+2800 BRAILLE PATTERN BLANK -> " ";
4. NFKD, marks removed; each remaining non-ASCII character goes through casefold + NFKD, then the
   confusables data; the result is used when it is 1..7 ASCII characters (``ｆ`` -> ``f``,
   ``é`` -> ``e``, ``ß`` -> ``ss``, ``①`` -> ``1``);
5. decimal digits of any script (category Nd) -> their value (``٧`` -> ``7``); Latin small
   capitals and regional-indicator letters -> the capital they show (``ᴀ`` -> ``A``, U+1F1E6 -> ``A``:
   a key id written in them reads as the upper-case id);
6. otherwise the code point's ASCII look-alike from Unicode's confusables data (``а`` -> ``a``,
   Greek ``Ο`` -> ``O``): letters and digits, or one of ``= : / @ . - _ + ' "``;
7. anything else is "other" (a separator that never belongs to a word or a credential).

Data sources:
* NFKD / casefold / general categories: Python's ``unicodedata`` (Unicode version recorded in the
  output; the table is regenerated only when this script is re-run).
* Look-alikes: Unicode's confusables.txt (UTS #39, Unicode License v3) as shipped in the PyPI
  package ``confusable-homoglyphs`` 3.3.1 (MIT) -- ``pip install confusable-homoglyphs==3.3.1`` in a
  scratch environment; the package is not a dependency of director_fast.

Outputs (both committed):
* ``cpp/src/safety_fold_table.inc``: a two-stage table (block of 256 code points -> 256 values)
  and a pool of length-prefixed ASCII strings, used by the C++ normaliser;
* ``tests/_safety_fold_table.py``: the same mapping as a Python dict, used by the test oracle.

Run:  python scripts/gen_safety_fold.py   (from the repository root)
"""
from __future__ import annotations

import json
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OTHER = None  # marker: not mappable
MAX_OUT = 7
PUNCT_TARGETS = set("=:/@.-_+'\"")
HANGUL_FILLERS = {0x115F, 0x1160, 0x3164, 0xFFA0}
CAPITAL_NAME = re.compile(r"(?:LATIN LETTER SMALL CAPITAL|REGIONAL INDICATOR SYMBOL LETTER) ([A-Z])")


def load_confusables() -> dict[str, str]:
    """Non-ASCII character -> the ASCII character it looks like (from confusables.txt)."""
    import confusable_homoglyphs  # noqa: PLC0415 - offline generator only

    path = Path(confusable_homoglyphs.__file__).parent / "confusables.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    cands: dict[str, set[str]] = {}
    for ch, entries in data.items():
        for e in entries:
            tgt = e["c"]
            for a, b in ((ch, tgt), (tgt, ch)):  # the data lists each pair from both sides
                if len(a) == 1 and len(b) == 1 and ord(a) >= 0x80 and ord(b) < 0x80:
                    if b.isalnum() or b in PUNCT_TARGETS:
                        cands.setdefault(a, set()).add(b)
    out: dict[str, str] = {}
    for ch, opts in cands.items():
        name = unicodedata.name(ch, "")
        alnum = sorted(o for o in opts if o.isalnum())
        pick = alnum or sorted(opts)
        if len(pick) > 1:
            # prefer the case the character's name gives, and a letter over a digit
            capital, small = "CAPITAL" in name, "SMALL" in name
            def rank(o: str) -> tuple[int, str]:
                score = 0
                if o.isalpha():
                    score -= 2
                    if (capital and o.isupper()) or (small and o.islower()):
                        score -= 2
                if "DIGIT" in name and o.isdigit():
                    score -= 5
                return (score, o)
            pick = sorted(pick, key=rank)
        choice = pick[0]
        if choice == "l" and "CAPITAL" in name:
            choice = "I"  # confusables.txt's prototype for I-like capitals is "l"
        out[ch] = choice
    return out


def strip_marks(s: str) -> str:
    return "".join(c for c in s if unicodedata.category(c) not in ("Mn", "Me"))


def fold_char(ch: str, conf: dict[str, str]) -> str | None:
    """ASCII for one non-ASCII character after NFKD (None: not mappable)."""
    if ord(ch) < 0x80:
        return ch
    cf = strip_marks(unicodedata.normalize("NFKD", ch.casefold()))
    if cf and all(ord(c) < 0x80 for c in cf):
        return cf
    return conf.get(ch)


def fold_cp(cp: int, conf: dict[str, str]) -> str | None:
    if 0xE0020 <= cp <= 0xE007E:
        return chr(cp - 0xE0000)
    ch = chr(cp)
    cat = unicodedata.category(ch)
    if cat in ("Cs", "Co", "Cn", "Cc"):
        return OTHER
    if cat in ("Cf", "Mn", "Me") or cp in HANGUL_FILLERS:
        return ""
    if cat in ("Zs", "Zl", "Zp") or cp == 0x2800:
        return " "
    d = strip_marks(unicodedata.normalize("NFKD", ch))
    out = []
    if d and d != ch:
        for c in d:
            r = fold_char(c, conf)
            if r is None:
                out = None
                break
            out.append(r)
        if out is not None:
            s = "".join(out)
            if 0 < len(s) <= MAX_OUT:
                return s
    if cat == "Nd":
        return str(unicodedata.decimal(ch))
    named = CAPITAL_NAME.fullmatch(unicodedata.name(ch, ""))
    if named:
        return named.group(1)
    r = fold_char(ch, conf)
    if r is not None and 0 < len(r) <= MAX_OUT:
        return r
    return OTHER


def build() -> dict[int, str]:
    conf = load_confusables()
    table: dict[int, str] = {}
    for cp in range(0x80, 0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        r = fold_cp(cp, conf)
        if r is not None:
            table[cp] = r
    return table


def write_cpp(table: dict[int, str], path: Path) -> None:
    pool = ""
    offsets: dict[str, int] = {}
    for s in sorted(set(table.values()), key=lambda s: (len(s), s)):
        offsets[s] = len(pool)
        pool += chr(len(s)) + s
    if len(pool) >= 8191:
        raise SystemExit("pool too large for 13-bit offsets")
    blocks: list[list[int]] = [[0] * 256]  # block 0: all "other"
    stage1 = [0] * (0x110000 >> 8)
    block_ids: dict[tuple[int, ...], int] = {tuple(blocks[0]): 0}
    for hi in range(0x110000 >> 8):
        vals = []
        for lo in range(256):
            cp = (hi << 8) | lo
            if cp < 0x80:
                vals.append(0)
                continue
            s = table.get(cp)
            vals.append(0 if s is None else ((offsets[s] + 1) << 3) | len(s))
        key = tuple(vals)
        if key not in block_ids:
            block_ids[key] = len(blocks)
            blocks.append(vals)
        stage1[hi] = block_ids[key]
    if len(blocks) > 255:
        raise SystemExit("too many blocks for an 8-bit stage 1")

    def c_bytes(s: str) -> str:
        return "".join(f"\\x{ord(c):02x}" for c in s)

    lines = [
        "// Generated by scripts/gen_safety_fold.py -- do not edit by hand.",
        f"// Unicode {unicodedata.unidata_version} (Python unicodedata) and confusables.txt (UTS #39, Unicode",
        "// License v3) via the PyPI package confusable-homoglyphs 3.3.1 (MIT). See the script for the rules.",
        "// Value of a code point: 0 = other (maps to no ASCII); else ((pool offset + 1) << 3) | length,",
        "// the ASCII replacement being kFoldPool[offset + 1 .. offset + length] (length 0: dropped).",
        f"constexpr unsigned kFoldUnicodeMajor = {unicodedata.unidata_version.split('.')[0]};",
        f"constexpr std::uint8_t kFoldStage1[{len(stage1)}] = {{",
    ]
    for i in range(0, len(stage1), 32):
        lines.append("    " + ",".join(str(v) for v in stage1[i:i + 32]) + ",")
    lines.append("};")
    lines.append(f"constexpr std::uint16_t kFoldStage2[{len(blocks)}][256] = {{")
    for b in blocks:
        lines.append("    {")
        for i in range(0, 256, 32):
            lines.append("        " + ",".join(str(v) for v in b[i:i + 32]) + ",")
        lines.append("    },")
    lines.append("};")
    lines.append("constexpr char kFoldPool[] =")
    for i in range(0, len(pool), 48):
        lines.append(f'    "{c_bytes(pool[i:i + 48])}"')
    lines.append(";")
    path.write_text("\n".join(lines) + "\n", encoding="ascii")


def write_py(table: dict[int, str], path: Path) -> None:
    lines = [
        '"""Generated by scripts/gen_safety_fold.py -- do not edit by hand.',
        "",
        "The detection fold of the tenant-safety validators as data for the test oracle: code point ->",
        "ASCII replacement ('' = dropped). Code points >= U+0080 that are absent map to no ASCII.",
        f"Unicode {unicodedata.unidata_version}; look-alikes from confusables.txt (UTS #39) via confusable-homoglyphs 3.3.1.",
        '"""',
        f"UNICODE_VERSION = {unicodedata.unidata_version!r}",
        "# (start, end inclusive, replacement) runs of equal replacements",
        "RUNS = [",
    ]
    cps = sorted(table)
    i = 0
    while i < len(cps):
        j = i
        while j + 1 < len(cps) and cps[j + 1] == cps[j] + 1 and table[cps[j + 1]] == table[cps[i]]:
            j += 1
        lines.append(f"    (0x{cps[i]:X}, 0x{cps[j]:X}, {table[cps[i]]!r}),")
        i = j + 1
    lines.append("]")
    lines.append("FOLD = {cp: r for a, b, r in RUNS for cp in range(a, b + 1)}")
    path.write_text("\n".join(lines) + "\n", encoding="ascii")


def main() -> int:
    table = build()
    write_cpp(table, ROOT / "cpp" / "src" / "safety_fold_table.inc")
    write_py(table, ROOT / "tests" / "_safety_fold_table.py")
    print(f"{len(table)} code points mapped (Unicode {unicodedata.unidata_version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
