"""The compile stage's parser (:class:`~zvmplan_addin.recalc.fastparse.FastParser`) is
formulas' own ``Parser`` without the token attempts that cannot succeed: on every
formula it gives the same tokens (class, attributes, text, length taken) in the same
order and the same builder (its token stack, nodes and graph), or refuses it with the
same exception; and on a formulas whose parser it does not know it is formulas' own.
The formulas: hand-made ones of each kind of token and error, every formula shape of
the template and the compile stage's generic forms of them, and one formula per
skeleton (texts, references and numbers blanked) of the corpus of Excel-saved
workbooks when it is beside the checkout (``ZVMPLAN_FULL_CORPUS=1``: each distinct
formula text of it, ~82,000, about 4 CPU-minutes)."""
from __future__ import annotations

import os
import string
import tempfile

import formulas
import pytest
from formulas.errors import FormulaError
from formulas.parser import Parser

from parsecompare import CORPUS, corpus_formulas, outcome, workbook_formulas
from zvmplan_addin import cli
from zvmplan_addin.recalc import fastparse, tokenmemo
from zvmplan_addin.recalc.fastparse import FastParser
from zvmplan_addin.recalc.install import install_functions
from zvmplan_workbook import build

CTX = {"sheet": "SHEET1", "cr": "7", "cc": 3}

# each kind of token the parser knows, and formulas it refuses (FormulaError,
# ParenthesesError, ...): errors, texts with quotes, arrays, LAMBDA/LET, unions,
# intersections by a space, structured references, names that look like R1C1
# references, sheets in quotes, whitespace, unary and percent operators
HAND = [
    "=1+2*3-4/5^6&\"a\"", "=-A1", "=+A1", "=--A1", "=-+-A1", "=A1%", "=50%%",
    "=A1%*B1", "=-A1%", "=1-%", "=A1<>B1", "=A1<=B1", "=A1>=-B1", "=A1=-1", "=A1>-1",
    "=A1^-2", "=A1*-B1", "=A1&-B1", "=1E+3+1.5E-2+.5+0.25", "=1e3", "=TRUE()+FALSE",
    "=TRUE+FALSE()", "=true", "=#REF!", "=#N/A", "=#DIV/0!+#NAME?", "=#NULL!&#NUM!",
    "=#VALUE!", "=#GETTING_DATA", "=Sheet1!#REF!", "='My Sheet'!#REF!", "=[1]S!#REF!",
    "=SUM(#REF!)", "=#REF!:A1", "=A1:#REF!", "=#bogus!", "=\"\"", "=\"a\"\"b\"",
    "=\"\"\"\"", "=\"say \"\"hi\"\"\"&\"#REF!\"", "=\"unterminated", "={1,2;3,4}",
    "={1,2,3}*2", "={\"a\",TRUE;#N/A,-1}", "={1;2}+{3,4}", "={1,2;3}", "={}", "=SUM({1,2})",
    "=LAMBDA(x,x+1)(2)", "=LAMBDA(x,y,x*y)", "=LET(a,1,b,a+1,a*b)", "=_xlfn.LET(x,2,x^2)",
    "=_xlfn.LAMBDA(a,a)(3)", "=LET(x,\"a,b\",LEN(x))", "=LET(x,(1+2),x*(3))",
    "=_xleta.SUM", "=LAMBDA(1,2)", "=LET(a)", "=SUM((A1,B2))", "=SUM((A1:A3,C1:C3))",
    "=(A1,B1)", "=A1:A3 A2:B2", "=SUM(A1:C3 B2:D4)", "=A1 B1", "= A1 + B1 ",
    "=  SUM( A1 , B1 )  ", "=A1\t+B1", "=A1\r\n+B1", "=SUM(A1 , (B1))", "=( 1 )",
    "=Table1[Col]", "=Table1[[#This Row],[Col]]", "=Table1[@Col]", "=[@Col]*2",
    "=SUM(Table1[#Data])", "=R1C1", "=R1C1+1", "=RC", "=R[1]C[1]", "=R[-1]C[2]:R[1]C[3]",
    "=C1:C3", "=R2:R4", "=RC1", "=R1C", "=r1c1*2", "=Sheet2!A1", "='Sheet 2'!A1:B2",
    "='It''s'!A1", "='a b'!$A$1*2", "=[1]Sheet1!A1", "='C:\\dir\\[book.xlsx]S'!A1",
    "=Sheet2!A:A", "=Sheet2!1:1", "=$A$1:$B$2", "=A:A", "=1:1", "=$1:$3", "=A1:B",
    "=:A1", "=A1:", "=SUM(:)", "=XFD1048576", "=XFE1", "=A0", "=A1048577", "=myName+1",
    "=my.name*2", "=_name", "=\\name", "=Name_With_123", "=Sheet1!myName",
    "=NOSUCHFUNCTION(1)", "=_xlfn.XLOOKUP(1,A1:A3,B1:B3)", "=_xlfn._xlws.SORT(A1:A3)",
    "=ANCHORARRAY(A1)", "=A1#", "=SUM(A1#)", "=INDIRECT(\"A1\")", "=@A1:A3",
    "=@INDEX(A1:A3,1)", "=IF(A1,,)", "=IF(,1,)", "=SUM(,)", "=SUM()", "=NOW()",
    "=PI()*2", "=A1(", "=A1)", "=(A1", "=((1)", "=1)+(2", "=SUM(1,2", "=SUM 1", "=1 2",
    "=A1 +", "=*1", "=1**2", "=1+", "=", "= ", "=,", "=;", "=}", "={", "=)", "=(",
    "=\"a\"\"", "=!A1", "=Sheet1!", "='unclosed!A1", "=1.2.3", "=1..2", "=.5.", "=1E",
    "=1E5E5", "=$", "=$$A1", "=A$$1", "=[", "=]", "=@", "=%", "=&", "=^1", "=<1",
    "=ä+1", "=Ä1", "=ÄÖÜ!A1", "='Ünïcödé'!B2*2", "=\u00a0A1", "=A1\u3000+1", "=é(1)",
    "=SUM(A1:A3)/COUNT(A1:A3)", "=IFERROR(VLOOKUP(A1,$D$1:$E$9,2,FALSE),\"-\")",
    "=ZVMLIT_0_+ZVMLIT_1_", "='ZVMLIT_0_'!A1", "=MB_PER_SEC(\"VCTC\",ZVMLIT_0_)",
    "{=SUM(A1:A3*B1:B3)}", "{ =1+2 }", "{=}", "1+2", "#REF!", "Sheet1!#N/A", "",
    "=1+2\n+3", "=A1\n",
]


@pytest.fixture(scope="module", autouse=True)
def functions():
    install_functions()  # the function table the compile stage parses with


def _differ(items, refused=None) -> list:
    """The items of ``items`` (text, context) the two parsers read differently; each
    exception class formulas refuses one with is counted into ``refused``."""
    out = []
    with tokenmemo.remembering():   # as the compile stage parses: tokens remembered
        for text, context in items:
            want = outcome(Parser, text, context)
            if want[0] == "raised" and refused is not None:
                refused[want[1].__name__] = refused.get(want[1].__name__, 0) + 1
            if outcome(FastParser, text, context) != want:
                out.append((text, context))
    return out


def test_fast_path_is_on_for_this_formulas():
    """The installed formulas is the release the module was written for: the fast path
    runs (else every test below compares formulas with itself)."""
    assert formulas.__version__ in fastparse.KNOWN_VERSIONS
    assert fastparse.known(Parser.filters)
    assert fastparse.patterns_digest(fastparse.FILTERS) == fastparse.PATTERNS_DIGEST


def test_each_pattern_begins_only_with_its_listed_characters():
    """For every class and every printable ASCII character and the space: if some text
    beginning with that character can match the class's pattern (the ``regex`` module's
    partial match says so), the character is among the class's :data:`STARTS` (the
    space: the class accepts leading whitespace). And every error literal holds a #."""
    for cls in fastparse.FILTERS:
        for ch in map(chr, range(33, 127)):
            if cls._re.match(ch, partial=True) is not None:
                assert ch in fastparse.STARTS[cls], (cls.__name__, ch)
        if cls._re.match(" ", partial=True) is not None:
            assert cls not in fastparse.NO_LEADING_SPACE, cls.__name__
    assert r"(?P<name>\#(?>" in fastparse.Error._re.pattern
    for ch in string.printable:
        assert fastparse.Error._re.match(ch * 3) is None or "#" in ch


def test_same_as_formulas_on_each_kind_of_token_and_refusal():
    refused: dict = {}
    assert _differ([(t, CTX) for t in HAND], refused) == []
    assert {"FormulaError", "ParenthesesError"} <= set(refused), refused


def test_same_as_formulas_on_every_template_formula():
    """Every formula of the template (one per skeleton of its digits: ~400, and each
    defined name), and
    every text the compile stage hands the parser when it calculates the template
    (generic forms with ``ZVMLIT_<k>_`` placeholders, in their cells' context)."""
    items = workbook_formulas(str(build.TEMPLATE))
    seen = []
    original = FastParser.ast

    def record(self, expression, context=None):
        seen.append((expression, dict(context or {})))
        return original(self, expression, context=context)
    FastParser.ast = record
    try:
        with tempfile.TemporaryDirectory() as tmp:
            assert cli.main(["calc", str(build.TEMPLATE), "-o", f"{tmp}/t.xlsx", "-q"]) in (0, None)
    finally:
        FastParser.ast = original
    assert len(seen) >= 100 and any("ZVMLIT_" in text for text, _ in seen)
    assert len(items) >= 300
    assert _differ(items + seen) == []


@pytest.mark.skipif(not os.path.isdir(CORPUS), reason="the corpus is not beside the checkout")
def test_same_as_formulas_on_the_corpus():
    items = corpus_formulas(every=os.environ.get("ZVMPLAN_FULL_CORPUS") == "1")
    assert len(items) > 3000
    refused: dict = {}
    assert _differ(items, refused) == []
    assert refused.get("FormulaError", 0) > 50   # it holds formulas formulas refuses


def test_the_comparison_sees_a_skipped_class(monkeypatch):
    """A table that left out a class where it can match (Range for ``$``) would read
    ``=$A$1`` otherwise (refused): the comparison above would see it."""
    table, others = fastparse._TABLES[False]
    wrong = {**table, "$": tuple(c for c in table["$"] if c is not fastparse.Range)}
    monkeypatch.setitem(fastparse._TABLES, False, (wrong, others))
    assert _differ([("=$A$1", CTX)]) == [("=$A$1", CTX)]


def test_an_unknown_parser_is_formulas_own(monkeypatch):
    """Another formulas release, another list of token classes, another pattern, a token
    class with its own ``match``: formulas' ``Parser.ast`` runs, and the result is the
    same."""
    calls = []
    original = Parser.ast

    def spy(self, expression, context=None):
        calls.append(expression)
        return original(self, expression, context=context)

    class OtherFilters(FastParser):
        filters = [c for c in Parser.filters if c is not fastparse.Intersect]
    assert not fastparse.known(OtherFilters.filters)
    monkeypatch.setattr(formulas, "__version__", "99.0")
    assert not fastparse.known(Parser.filters)
    monkeypatch.undo()
    assert fastparse.known(Parser.filters)

    import regex
    monkeypatch.setattr(fastparse.String, "_re", regex.compile(r'^\s*"(?P<name>[^"]*)"'))
    assert not fastparse.known(Parser.filters)
    monkeypatch.undo()
    monkeypatch.setattr(fastparse.Number, "match", lambda self, s: self._re.match(s))
    assert not fastparse.known(Parser.filters)
    monkeypatch.undo()

    want = outcome(Parser, "=A1 B1+1", CTX)
    monkeypatch.setattr(formulas, "__version__", "99.0")
    monkeypatch.setattr(Parser, "ast", spy)  # (patched: not formulas' own either)
    assert outcome(FastParser, "=A1 B1+1", CTX) == want
    assert calls == ["=A1 B1+1"]


def test_not_a_text_is_refused_as_formulas_refuses_it():
    """None or a number: FormulaError; bytes: TypeError (formulas' ``replace`` call)."""
    for value in (None, 1, b"=1"):
        want = outcome(Parser, value, CTX)
        assert want[0] == "raised" and outcome(FastParser, value, CTX) == want
    assert outcome(Parser, None, CTX)[1] is FormulaError
