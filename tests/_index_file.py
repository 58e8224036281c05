"""Test-side reader and writer of the evidence index file format, for crafting edited files.

Layout (little-endian): magic ``DFEVIDX\\0`` | u32 version | u64 dim | u32 metric | u32 storage
(version >= 2) | u64 M, ef_construction, ef_search, exact_threshold, seed | i64 next_auto_id |
u64 n_tenants, (str)* | u64 n_meta, (u8 flags, u32 tenant, str key, str text, str source)* |
u64 graph_len, graph | u64 checksum. ``str`` is a u64 length and the bytes. The graph is hnswlib's
``saveIndex`` layout: a 96-byte header (:data:`GRAPH_FIELDS`), ``count`` level-0 records of
``size_data_per_element`` bytes (u16 link count, u8 flags, u8 unused, ``maxM0`` u32 links, the
vector, a u64 label), then per element a u32 byte count and its upper-level link lists
(``maxM`` + 1 u32 per level: the count, then the links).

Written from the format description in evidence_index.cpp, independently of the C++ reader, so
that tests can build files the library never writes (edited and re-checksummed).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

MAGIC = b"DFEVIDX\0"
GRAPH_FIELDS = ("offset_level0", "max_elements", "count", "size_data_per_element", "label_offset",
                "offset_data", "maxlevel", "enterpoint", "maxM", "maxM0", "M", "mult", "ef_construction")
GRAPH_FORMAT = "<QQQQQQiIQQQdQ"
GRAPH_HEADER_BYTES = struct.calcsize(GRAPH_FORMAT)  # 96
HEADER_FIELDS = ("dim", "metric", "storage", "M", "ef_construction", "ef_search", "exact_threshold",
                 "seed", "next_auto_id")


def checksum64(data: bytes) -> int:
    """Checksum64 of evidence_index.cpp, re-implemented."""
    m = (1 << 64) - 1
    h = 0x9E3779B97F4A7C15

    def word(h: int, w: int) -> int:
        w = (w * 0x87C37B91114253D5) & m
        w = ((w << 31) | (w >> 33)) & m
        w = (w * 0x4CF5AD432745937F) & m
        h ^= w
        return ((((h << 27) | (h >> 37)) & m) * 5 + 0x52DCE729) & m

    full = len(data) // 8 * 8
    for i in range(0, full, 8):
        h = word(h, int.from_bytes(data[i:i + 8], "little"))
    rest = data[full:]
    h = word(h, int.from_bytes(rest.ljust(8, b"\0"), "little") ^ (len(rest) << 56))
    h ^= len(data)
    for mul in (0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53):
        h ^= h >> 33
        h = (h * mul) & m
    return h ^ (h >> 33)


@dataclass
class Meta:
    flags: int
    tenant: int
    key: bytes
    text: bytes
    source: bytes


@dataclass
class IndexFile:
    version: int
    header: dict
    tenants: list
    meta: list
    graph: dict                    # GRAPH_FIELDS -> value
    level0: bytearray              # count * size_data_per_element bytes
    upper: list                    # per element: bytes of its upper link lists
    graph_len: int | None = None   # None: computed when written
    trailing: bytes = b""          # extra bytes appended to the graph section
    extra: dict = field(default_factory=dict)
    # record layout as parsed (the accessors keep using it when a test edits the graph header)
    layout: dict = field(default_factory=dict)

    # ---- reading ----
    @classmethod
    def parse(cls, raw: bytes) -> "IndexFile":
        assert raw[:8] == MAGIC
        assert int.from_bytes(raw[-8:], "little") == checksum64(raw[:-8]), "checksum"
        pos = 8

        def take(fmt: str):
            nonlocal pos
            vals = struct.unpack_from(fmt, raw, pos)
            pos += struct.calcsize(fmt)
            return vals if len(vals) > 1 else vals[0]

        def string() -> bytes:
            nonlocal pos
            n = take("<Q")
            s = raw[pos:pos + n]
            pos += n
            return s

        version = take("<I")
        h: dict = {"dim": take("<Q"), "metric": take("<I"), "storage": take("<I") if version >= 2 else 0}
        for name in HEADER_FIELDS[3:8]:
            h[name] = take("<Q")
        h["next_auto_id"] = take("<q")
        tenants = [string() for _ in range(take("<Q"))]
        meta = []
        for _ in range(take("<Q")):
            flags, tenant = take("<BI")
            meta.append(Meta(flags, tenant, string(), string(), string()))
        graph_len = take("<Q")
        assert pos + graph_len == len(raw) - 8
        g = dict(zip(GRAPH_FIELDS, struct.unpack_from(GRAPH_FORMAT, raw, pos)))
        pos += GRAPH_HEADER_BYTES
        n0 = g["count"] * g["size_data_per_element"]
        level0 = bytearray(raw[pos:pos + n0])
        pos += n0
        upper = []
        for _ in range(g["count"]):
            n = take("<I")
            upper.append(bytes(raw[pos:pos + n]))
            pos += n
        assert pos == len(raw) - 8
        f = cls(version, h, tenants, meta, g, level0, upper)
        f.layout = {k: g[k] for k in ("size_data_per_element", "label_offset", "offset_data", "maxM", "maxM0")}
        return f

    # ---- writing ----
    def graph_bytes(self) -> bytes:
        g = self.graph
        out = bytearray(struct.pack(GRAPH_FORMAT, *[g[f] for f in GRAPH_FIELDS]))
        out += self.level0
        for u in self.upper:
            out += struct.pack("<I", len(u) & 0xFFFFFFFF) + u
        return bytes(out + self.trailing)

    def to_bytes(self) -> bytes:
        h = self.header
        out = bytearray(MAGIC + struct.pack("<I", self.version))
        out += struct.pack("<QI", h["dim"], h["metric"])
        if self.version >= 2:
            out += struct.pack("<I", h["storage"])
        out += struct.pack("<QQQQQq", h["M"], h["ef_construction"], h["ef_search"], h["exact_threshold"],
                           h["seed"], h["next_auto_id"])

        def string(s: bytes) -> bytes:
            return struct.pack("<Q", len(s)) + s

        out += struct.pack("<Q", self.extra.get("n_tenants", len(self.tenants)))
        for t in self.tenants:
            out += string(t)
        out += struct.pack("<Q", self.extra.get("n_meta", len(self.meta)))
        for m in self.meta:
            out += struct.pack("<BI", m.flags, m.tenant) + string(m.key) + string(m.text) + string(m.source)
        graph = self.graph_bytes()
        out += struct.pack("<Q", len(graph) if self.graph_len is None else self.graph_len)
        out += graph
        body = bytes(out)
        return body + checksum64(body).to_bytes(8, "little")

    # ---- level-0 record accessors ----
    @property
    def count(self) -> int:
        return len(self.level0) // self.layout["size_data_per_element"]

    def _rec(self, i: int) -> int:
        return i * self.layout["size_data_per_element"]

    def links0(self, i: int) -> list[int]:
        o = self._rec(i)
        n = struct.unpack_from("<H", self.level0, o)[0]
        return list(struct.unpack_from(f"<{n}I", self.level0, o + 4))

    def set_link_count0(self, i: int, n: int) -> None:
        struct.pack_into("<H", self.level0, self._rec(i), n & 0xFFFF)

    def set_link0(self, i: int, j: int, value: int) -> None:
        struct.pack_into("<I", self.level0, self._rec(i) + 4 + 4 * j, value & 0xFFFFFFFF)

    def deleted(self, i: int) -> bool:
        return bool(self.level0[self._rec(i) + 2] & 1)

    def set_deleted(self, i: int, flag: bool) -> None:
        o = self._rec(i) + 2
        self.level0[o] = (self.level0[o] & ~1) | int(flag)

    def label(self, i: int) -> int:
        return struct.unpack_from("<Q", self.level0, self._rec(i) + self.layout["label_offset"])[0]

    def set_label(self, i: int, value: int) -> None:
        struct.pack_into("<Q", self.level0, self._rec(i) + self.layout["label_offset"], value & (2**64 - 1))

    def vector_offset(self, i: int) -> int:
        return self._rec(i) + self.layout["offset_data"]

    def level(self, i: int) -> int:
        per = (self.layout["maxM"] + 1) * 4
        return len(self.upper[i]) // per

    def set_upper_link(self, i: int, level: int, j: int, value: int) -> None:
        per = (self.layout["maxM"] + 1) * 4
        u = bytearray(self.upper[i])
        struct.pack_into("<I", u, (level - 1) * per + 4 + 4 * j, value & 0xFFFFFFFF)
        self.upper[i] = bytes(u)

    def set_upper_count(self, i: int, level: int, n: int) -> None:
        per = (self.layout["maxM"] + 1) * 4
        u = bytearray(self.upper[i])
        struct.pack_into("<H", u, (level - 1) * per, n & 0xFFFF)
        self.upper[i] = bytes(u)
