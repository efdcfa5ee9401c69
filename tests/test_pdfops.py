"""tests/pdfops.py reads content streams as pypdf does: every operation of every page (and
form) of PDFs of every game, compared with pypdf's ContentStream, and the syntax sheetgen's
PDFs rarely or never use (escapes, nested strings, hex strings, dictionaries, keywords)."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream, DictionaryObject

from conftest import SPECS
from pdfops import operations
from sheetgen.registry import load_spec
from sheetgen.render import build_outputs


def _plain(value):
    """A pypdf operand as the plain value pdfops gives."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "original_bytes"):
        return bytes(value.original_bytes)
    if isinstance(value, bytes):
        return bytes(value)
    if isinstance(value, bool) or value is None:
        return value
    if type(value).__name__ == "NullObject":
        return None
    if type(value).__name__ == "BooleanObject":
        return bool(value)
    if type(value).__name__ == "NameObject":
        return str(value)
    if type(value).__name__ == "NumberObject":
        return int(value)
    return float(value)


def _streams(data: bytes):
    reader = PdfReader(io.BytesIO(data))
    for page in reader.pages:
        yield page.get_contents(), reader
        for ref in (page.get("/Resources") or DictionaryObject()).get("/XObject", DictionaryObject()).values():
            xobject = ref.get_object()
            if xobject.get("/Subtype") == "/Form":
                yield xobject, reader


@pytest.mark.parametrize(
    "spec", ["rallytaire/acropolis.yaml", "rally_risk/safari_1.yaml", "rallyman/gt_col_sprint.yaml", "rally_run/house_set.yaml"]
)
def test_every_operation_is_pypdfs(spec):
    data = build_outputs(load_spec(SPECS / spec), paper="letter", ink="low")[0]
    seen = 0
    for stream, reader in _streams(data):
        expected = [([_plain(v) for v in operands], op) for operands, op in ContentStream(stream, reader).operations]
        assert operations(stream, reader) == expected
        seen += len(expected)
    assert seen > 1000


def test_the_syntax_sheetgen_seldom_writes():
    stream = (
        b"% a comment\n/F#31 12 Tf (a\\(b\\)c \\101\\0501 \\n\\\\) Tj (nested (parens) here) Tj <41 42 4> Tj\n"
        b"[(x) -250 (y)] TJ /Tag <</MCID 3 /On true /Off false /No null>> BDC EMC .5 -.25 +3 1. Td"
    )
    assert operations(stream) == [
        (["/F1", 12], b"Tf"),
        ([b"a(b)c A(1 \n\\"], b"Tj"),
        ([b"nested (parens) here"], b"Tj"),
        ([b"AB@"], b"Tj"),
        ([[b"x", -250, b"y"]], b"TJ"),
        (["/Tag", {"/MCID": 3, "/On": True, "/Off": False, "/No": None}], b"BDC"),
        ([], b"EMC"),
        ([0.5, -0.25, 3, 1.0], b"Td"),
    ]
