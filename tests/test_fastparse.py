"""The compile stage's formula parser (zvmplan_addin/recalc/fastparse.py) skips the token
classes that cannot match at a position; it must give formulas' own tokens, builder and
errors for every formula, well formed or not."""
from __future__ import annotations

import html
import re
import zipfile
from pathlib import Path

import formulas
import pytest

from zvmplan_addin.recalc import fastparse
from zvmplan_addin.recalc.install import install_functions

TEMPLATE = Path(__file__).parent.parent / "workbook" / "zvmplan_template.xlsx"
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_FORMULA = re.compile(rb"<f(?: [^>]*)?>([^<]*)</f>")

# every kind of token, spacing and malformed text the two parsers must treat alike
HAND_WRITTEN = [
    '=1+2', '= 1 + 2 ', '=-A1', '=+A1', '=--A1', '=A1%', '=50%%', '=1E+3*.5', '=1e-3',
    '=TRUE', '=false', '=TRUE()', '=true()+1', '=FALSE()', '="a""b"&"c"', '=""', '=" "',
    '=#N/A', '=#div/0!', '=Sheet1!#REF!', "='my sheet'!#REF!", '=IF(#VALUE!,1,2)',
    '=#NAME?', '=#GETTING_DATA', "='O''Brien'!A1+1", '=Sheet1!$A$1:$B$2', '=A:A', '=1:1',
    '=$A1:B$2', '=SUM(A1:A3 A2:B2)', '=SUM((A1,B2))', '=SUM(A1:A3,,B1)', '=SUM(,)',
    '={1,2;3,4}', '={1,"a";TRUE,#N/A}', '=INDEX({1,2},1,2)', '=LAMBDA(x,x+1)(2)',
    '=LET(a,1,b,a+1,b*2)', '=_xlfn.LET(a,1,a)', '=_xlfn.XLOOKUP(1,A1:A3,B1:B3)',
    '=_XLETA.MAX', '=ANCHORARRAY(A1)', '=A1#', '=@A1:A3', '=INDIRECT("A1")',
    '=R1C1', '=R[1]C[-1]', '=Table1[Col]', '=Table1[[#This Row],[Col]]', '=a.b_c1',
    '=_name', '=Name1+name2', '=ZVMLIT_0_&ZVMLIT_1_', '=1<>2', '=1>=2', '=1<=-2',
    '=1=-1', '=A1^-2', '=2*-+-3', '=(1)', '=((1+2))*3', '=  (  1  )  ', '=SUM( 1 , 2 )',
    '=A1 :B2', '=A1: B2', '=\tA1', '=A1\t+1', '=\u00a0A1', '=A1\u00a0+1', '=\u3000SUM(1)',
    '=Äpfel+1', '=ΣA', '=éé(1)', '=数量*2', '=A1\u200b', '=1+', '=(1', '=1)', '=SUM(',
    '=)', '=,', '=;', '=}', '={', '=1,2', '="unclosed', '=#BOGUS!', '=!', '=?', '=~',
    '=`', '=\\', '=[1]Sheet1!A1', "='C:\\dir\\[b.xlsx]S'!A1", '=1 2', '=A1 B1', '= ',
    '=', '==1', '=+', '=1..2', '=.5.', '=1E', '=$', '=$$A1', '=A$1$', '=SUM(A1:)',
    '=IF(1,,)', '=IF(,,)', '=NOT()', '=PI()', '=pi ()', '=sum(a1)', '=Sum(A1,)',
]


def _outcome(parser_class, text: str):
    """What parsing ``text`` gives: each token's class, attributes and extent and the
    builder's nodes with their default values; or the exception's type and text."""
    context = {"sheet": "S1", "cr": "3", "cc": 2}
    try:
        tokens, builder = parser_class(True).ast(text, context=context)
    except Exception as exc:  # noqa: BLE001 - the error itself is compared
        return ("error", type(exc).__name__, str(exc))
    nodes = builder.dsp.nodes
    return ("ok",
            [(type(t).__name__, _ADDRESS.sub("", repr(sorted(
                (k, repr(v)) for k, v in t.attr.items()))), getattr(t, "end_match", None))
             for t in tokens],
            list(nodes), [_ADDRESS.sub("", repr(nodes[k].get("default_value"))) for k in nodes])


def _template_formulas() -> list[str]:
    out = []
    with zipfile.ZipFile(TEMPLATE) as z:
        for name in z.namelist():
            if name.startswith("xl/worksheets/") and name.endswith(".xml"):
                out += ["=" + html.unescape(m.group(1).decode()) for m in
                        _FORMULA.finditer(z.read(name))]
    return sorted(set(out))


def test_the_fast_parser_is_in_use_with_the_formulas_it_was_checked_against():
    """With the formulas package this project installs (whose token expressions
    FastParser's first-character tests were written from) the compile stage uses it;
    a changed expression would make it fall back to formulas' own parser."""
    assert fastparse.PARSER is fastparse.FastParser
    assert fastparse._digest(formulas.Parser.filters) == fastparse._PATTERNS


@pytest.mark.parametrize("text", HAND_WRITTEN)
def test_hand_written_formulas_parse_as_formulas_parses_them(text):
    """Each formula, well formed or not (spaces, non-ASCII letters and spaces, errors,
    arrays, LAMBDA, R1C1, structured references, text left over), gives the same tokens,
    builder and error with FastParser as with formulas.Parser."""
    install_functions()
    assert _outcome(fastparse.FastParser, text) == _outcome(formulas.Parser, text)


def test_every_template_formula_parses_as_formulas_parses_it():
    """The template's formulas (every tenth of its 5,000 distinct texts, and the 30
    longest) give the same tokens and builder with FastParser as with formulas.Parser.
    (All 16,925 distinct formulas of the corpus of /work/corpus were compared the same
    way when FastParser was written: none differed.)"""
    install_functions()
    texts = _template_formulas()
    assert len(texts) > 1000
    for text in texts[::10] + sorted(texts, key=len)[-30:]:
        assert _outcome(fastparse.FastParser, text) == _outcome(formulas.Parser, text), text
