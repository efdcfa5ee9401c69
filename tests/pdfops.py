"""A PDF content stream's operations, read about five times faster than pypdf's ContentStream.

The tests read back every page they check (golden descriptions, margins, ink, fords): pypdf
parses a content stream one object at a time through a byte stream, some 20 microseconds an
operator, which made reading the pages a good part of the suite's time. This reads the same
operations with one regular expression over the decoded stream: ``operations(stream)`` gives
``[(operands, operator), ...]`` as ``ContentStream(stream, reader).operations`` does, with
plain values as operands: ``int`` and ``float`` numbers, names as ``str`` (``"/F1"``: equal to
pypdf's NameObject, so they look up resources), strings as the ``bytes`` they hold (escapes
undone: pypdf's ``original_bytes``), arrays as lists, dictionaries as dicts, ``true``,
``false`` and ``null`` as Python's. An inline image (``BI ... ID ... EI``), which sheetgen does
not draw, is read by pypdf instead. tests/test_pdfops.py checks the two readers agree on every
page of the PDFs the suite reads most.
"""

from __future__ import annotations

import re
from typing import Any

from pypdf.generic import ContentStream

_TOKEN = re.compile(
    rb"""
    (?P<space>[\x00\t\n\x0c\r ]+|%[^\r\n]*)
  | (?P<num>[+-]?(?:\d+\.?\d*|\.\d+))(?![^\x00\t\n\x0c\r /\[\]()<>{}%])
  | (?P<name>/[^\x00\t\n\x0c\r /\[\]()<>{}%]*)
  | (?P<simple>\((?P<plain>[^()\\]*)\))
  | (?P<string>\()
  | (?P<dopen><<)
  | (?P<dclose>>>)
  | (?P<hex><[0-9A-Fa-f\x00\t\n\x0c\r ]*>)
  | (?P<aopen>\[)
  | (?P<aclose>\])
  | (?P<op>[^\x00\t\n\x0c\r /\[\]()<>{}%]+)
    """,
    re.X,
)
_ESCAPES = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("b"): b"\b", ord("f"): b"\f"}
_KEYWORDS: dict[bytes, Any] = {b"true": True, b"false": False, b"null": None}
_NAME_ESCAPE = re.compile(r"#([0-9A-Fa-f]{2})")


class _Inline(Exception):
    """An inline image: left to pypdf."""


def _string(data: bytes, start: int) -> tuple[bytes, int]:
    """The literal string opening at data[start] ("("): its bytes and the index past it."""
    out = bytearray()
    depth, i, n = 1, start + 1, len(data)
    while i < n:
        c = data[i]
        if c == 0x5C:  # backslash
            i += 1
            e = data[i]
            if e in _ESCAPES:
                out += _ESCAPES[e]
            elif 0x30 <= e <= 0x37:  # up to three octal digits
                j = i
                while j < min(i + 3, n) and 0x30 <= data[j] <= 0x37:
                    j += 1
                out.append(int(data[i:j], 8) & 0xFF)
                i = j - 1
            elif e == 0x0D:  # a line continued: \ CR LF or \ CR
                if i + 1 < n and data[i + 1] == 0x0A:
                    i += 1
            elif e != 0x0A:
                out.append(e)  # \( \) \\ and any other: the character itself
        elif c == 0x28:
            depth += 1
            out.append(c)
        elif c == 0x29:
            depth -= 1
            if depth == 0:
                return bytes(out), i + 1
            out.append(c)
        else:
            out.append(c)
        i += 1
    raise ValueError("a string that does not end")


def _name(raw: bytes) -> str:
    text = raw.decode("latin-1")
    return _NAME_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text) if "#" in text else text


def _read(data: bytes) -> list[tuple[list, bytes]]:
    ops: list[tuple[list, bytes]] = []
    stack: list[list] = [[]]  # the operands, then any open arrays and dictionaries
    kinds: list[str] = []
    pos, n = 0, len(data)
    match = _TOKEN.match
    while pos < n:
        m = match(data, pos)
        if m is None:
            raise ValueError(f"cannot read the content stream at byte {pos}: {data[pos:pos + 20]!r}")
        kind = m.lastgroup
        pos = m.end()
        top = stack[-1]
        if kind == "space":
            continue
        if kind == "num":
            text = m.group("num")
            top.append(float(text) if b"." in text else int(text))
        elif kind == "name":
            top.append(_name(m.group("name")))
        elif kind == "simple":
            top.append(m.group("plain"))
        elif kind == "string":
            value, pos = _string(data, m.start())
            top.append(value)
        elif kind == "hex":
            digits = re.sub(rb"[^0-9A-Fa-f]", b"", m.group("hex"))
            top.append(bytes.fromhex((digits + b"0" * (len(digits) % 2)).decode("ascii")))
        elif kind in ("aopen", "dopen"):
            stack.append([])
            kinds.append(kind)
        elif kind in ("aclose", "dclose"):
            opened = kinds.pop()
            items = stack.pop()
            if (opened == "aopen") != (kind == "aclose"):
                raise ValueError("an array or dictionary closed by the other's bracket")
            stack[-1].append(items if kind == "aclose" else dict(zip(items[::2], items[1::2])))
        else:
            word = m.group("op")
            if word in _KEYWORDS:
                top.append(_KEYWORDS[word])
            elif word == b"BI":
                raise _Inline()
            elif len(stack) > 1:
                raise ValueError(f"operator {word!r} inside an array or dictionary")
            else:
                ops.append((top, word))
                stack[0] = []
    return ops


#: every token at once, for streams whose strings hold no unescaped parenthesis (all of
#: sheetgen's): a lone "(" is a string that needs `_read`
_TOKENS = re.compile(
    rb"%[^\r\n]*|/[^\x00\t\n\x0c\r /\[\]()<>{}%]*|\((?:[^()\\]|\\[\s\S])*\)|<<|>>|<[^<>]*>|[\[\]()]"
    rb"|[^\x00\t\n\x0c\r /\[\]()<>{}%]+"
)
_NUMERIC = frozenset(b"+-.0123456789")


_ESCAPE = re.compile(rb"\\([0-7]{1,3}|\r\n|[\s\S])")


def _unescaped(m: re.Match) -> bytes:
    e = m.group(1)
    if e[0] in _ESCAPES:
        return _ESCAPES[e[0]]
    if 0x30 <= e[0] <= 0x37:
        return bytes([int(e, 8) & 0xFF])
    return b"" if e in (b"\r\n", b"\r", b"\n") else e


def _unescape(body: bytes) -> bytes:
    return _ESCAPE.sub(_unescaped, body)


def _read_fast(data: bytes) -> list[tuple[list, bytes]] | None:
    """`_read`'s operations from one pass of `_TOKENS`, or None for a stream `_read` must
    read (a string with an escape or a parenthesis, an inline image, a keyword)."""
    ops: list[tuple[list, bytes]] = []
    top: list = []
    stack: list[list] = []
    for tok in _TOKENS.findall(data):
        c = tok[0]
        if c == 0x2F:  # /
            top.append(_name(tok) if b"#" in tok else tok.decode("latin-1"))
        elif c == 0x28:  # (
            if len(tok) == 1:
                return None
            top.append(_unescape(tok[1:-1]) if b"\\" in tok else tok[1:-1])
        elif c == 0x5B:  # [
            stack.append(top)
            top = []
        elif c == 0x5D:  # ]
            if not stack:
                return None
            inner, top = top, stack.pop()
            top.append(inner)
        elif c in _NUMERIC:  # (no operator starts so: a number, or a stream `_read` refuses)
            try:
                top.append(float(tok) if b"." in tok else int(tok))
            except ValueError:
                return None
        elif c == 0x25 or c == 0x3C or c == 0x3E or c == 0x29:  # % < > ): comments, dicts, hex
            return None
        elif stack or tok in _KEYWORDS or tok == b"BI":
            return None
        else:
            ops.append((top, tok))
            top = []
    return ops if not top and not stack else None


#: the operations of streams read before, by their bytes (callers only read them)
_READ: dict[bytes, list[tuple[list, bytes]]] = {}


def operations(stream: Any, reader: Any = None) -> list[tuple[list, bytes]]:
    """The operations of `stream` (a page's ``get_contents()``, a form XObject, or the decoded
    bytes), as pypdf's ``ContentStream(stream, reader).operations`` gives them."""
    if stream is None:
        return []
    data = stream if isinstance(stream, bytes) else stream.get_object().get_data()
    known = _READ.get(data)
    if known is not None:  # a page read before (a rendered PDF kept by a test module and read by several tests)
        return known
    fast = _read_fast(data)
    if fast is not None:
        if len(_READ) >= 512:
            _READ.clear()
        _READ[data] = fast
        return fast
    try:
        return _read(data)
    except _Inline:
        return ContentStream(stream, reader).operations
