"""Conditional aggregates filled down a column over ranges every cell shares
(``=SUMIFS($C$2:$C$41,$A$2:$A$41,A2,...)``, COUNTIF(S), SUMIF, AVERAGEIF(S), MAXIFS,
MINIFS): the column path groups the ranges' rows by their criteria keys in one pass
(:mod:`zvmplan_addin.recalc.columnar.conditional`) and gives exactly each cell's own call's
value, over criteria of every kind (numbers, numbers as text, case differences, wildcards,
operators, ``""``, empty cells, errors, TRUE/FALSE, dates, letters outside ASCII) and
ranges holding errors, empty cells, duplicates and -0.0."""
from __future__ import annotations

import math

import openpyxl
import pytest

from zvmplan_addin import recalc as engine
from zvmplan_addin.recalc.excel import criteria

from builders import checked_engine, save, values_of

#: the criteria range's values, twice down A2:A41 (a formula text is the cell's formula)
A_VALUES = ["ab", "AB", "aB ", 5, "5", " 5", 5.000000000000001, "x*", '=""', None,
            "=NA()", True, "true", "#N/A", "ß", "SS", "Zürich", -0.0, "0", 45292]
#: the second criteria range's values, cycled down B2:B41
B_VALUES = ["x", "X", "y", 1, "1", None, True]
#: the criterion each row's cell gives (E2:E41), cycled: every kind of criterion
E_CRITERIA = ["ab", "AB", 5, "5", "5.000000000000001", ">3", "<>ab", "a*", "?b", "~*",
              '=""', None, "=NA()", True, "TRUE", "#N/A", "ß", "Zürich", -0.0, "0",
              "1/1/2024", "=", "<>", "x*", "=ab", "ss", 45292, "aB ", "zürich", "5 "]
#: the sum range C2:C41 (row 2: 1E16, then 1 three times in the rows "ab"/"AB" pick)
C_VALUES = {2: 1e16, 3: 1.0, 22: 1.0, 23: 1.0, 24: "=1/0", 6: "7", 7: True, 9: -0.0,
            10: 0.0, 12: 0.1, 13: 0.2, 14: 0.3, 30: -0.0, 31: "=NA()", 35: 2.5}

FORMULAS = {
    "F": "=SUMIF($A$2:$A$41,E{r},$C$2:$C$41)",
    "G": "=SUMIF($A$2:$A$41,E{r})",
    "H": "=SUMIFS($C$2:$C$41,$A$2:$A$41,E{r},$B$2:$B$41,B{r})",
    "I": "=COUNTIF($A$2:$A$41,E{r})",
    "J": "=COUNTIFS($A$2:$A$41,A{r},$B$2:$B$41,B{r})",
    "K": "=AVERAGEIF($A$2:$A$41,E{r},$C$2:$C$41)",
    "L": '=AVERAGEIFS($C$2:$C$41,$A$2:$A$41,A{r},$B$2:$B$41,"x")',
    "M": "=_xlfn.MAXIFS($C$2:$C$41,$A$2:$A$41,E{r})",
    "N": "=_xlfn.MINIFS($C$2:$C$41,$A$2:$A$41,A{r})",
    "O": "=SUMIFS($C$2:$C$40,$A$2:$A$41,E{r})",
    "P": "=SUMIF($A$2:$A$41,E{r},$C$2:$C$50)",
    "Q": "=SUMIF($A$2:$A$41,E{r},$C$2:$C$30)",
    "R": "=COUNTIF($B$2:$B$41,B{r})",
    "S": "=MAXIFS($C$2:$C$41,$A$2:$A$41,A{r},$B$2:$B$41,B{r})",
    "T": '=COUNTIFS($A$2:$A$41,E{r},$B$2:$B$41,"<>y")',
}


def _book(path, a_values=A_VALUES):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for r in range(2, 42):
        a = a_values[(r - 2) % len(a_values)]
        if a is not None:
            ws[f"A{r}"] = a
        b = B_VALUES[(r - 2) % len(B_VALUES)]
        if b is not None:
            ws[f"B{r}"] = b
        if r in C_VALUES:
            ws[f"C{r}"] = C_VALUES[r]
        e = E_CRITERIA[(r - 2) % len(E_CRITERIA)]
        if e is not None:
            ws[f"E{r}"] = e
        for col, text in FORMULAS.items():
            ws[f"{col}{r}"] = text.format(r=r)
    return save(wb, path)


def _spy(monkeypatch) -> list:
    """The (function, took the group path) of each conditional step the columns run."""
    from zvmplan_addin.recalc import columnar
    seen = []
    real = columnar.conditional_step

    def spy(name, *args):
        got = real(name, *args)
        seen.append((name.upper(), got is not None))
        return got
    monkeypatch.setattr(columnar, "conditional_step", spy)
    return seen


def _checked(path, monkeypatch) -> list:
    """:func:`_spy`'s list for ``path``, evaluated with ZVMPLAN_ENGINE_CHECK (every column
    also cell by cell), which found no cell that differs."""
    seen = _spy(monkeypatch)
    assert checked_engine(path, monkeypatch).column_mismatches == []
    return seen


def _cells(path):
    ws = values_of(path)
    return [[(type(c.value), c.value, math.copysign(1.0, c.value)
              if isinstance(c.value, float) else None) for c in row] for row in ws.iter_rows()]



def _both_ways(path, tmp_path, monkeypatch) -> list:
    """(values, errors, error cells) of ``path`` on the column path, then cell by cell."""
    results = []
    for mode in ("", "1"):
        monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", mode)
        out = tmp_path / f"out{mode}.xlsx"
        report = engine.calc(path, out)
        results.append((_cells(out), report.errors, report.error_cells))
    return results

def test_groups_give_each_cells_own_value(tmp_path, monkeypatch):
    """Every column takes the group path (but the two whose ranges differ in shape, left
    to the engine's call: #VALUE!) and ZVMPLAN_ENGINE_CHECK, which evaluates each column
    cell by cell too, finds no cell that differs; the written values and reasons are
    those of the engine evaluating cell by cell (ZVMPLAN_ENGINE_CELLWISE=1), to the sign
    of a zero and the type of a number."""
    path = _book(tmp_path / "in.xlsx")
    seen = _checked(path, monkeypatch)
    took = {name for name, ok in seen if ok}
    assert took == {"SUMIF", "SUMIFS", "COUNTIF", "COUNTIFS", "AVERAGEIF", "AVERAGEIFS",
                    "_XLFN.MAXIFS", "_XLFN.MINIFS", "MAXIFS"}
    # O (SUMIFS over ranges of two shapes) and T (a criterion "<>y" in every cell) are
    # left to the engine's call
    assert sorted(name for name, ok in seen if not ok) == ["COUNTIFS", "SUMIFS"]
    monkeypatch.delenv("ZVMPLAN_ENGINE_CHECK")
    results = _both_ways(path, tmp_path, monkeypatch)
    assert results[0] == results[1]


def test_what_the_criteria_pick(tmp_path):
    """Excel's COUNTIF/SUMIF rules as the columns give them: a number (or text that
    reads as one, " 5" too) picks the numbers and the numeric text equal to it at 15
    significant digits (5.000000000000001 is 5); text is matched in any case but not
    with another space ("aB " is its own); TRUE picks TRUE only, never the text
    "true"; the date text "1/1/2024" picks its serial 45292; 0 picks -0.0 and "0";
    SUMIF adds left to right in the range's order (1E16 + 1 + 1 + 1 is 1E16, not the
    exact 1E16 + 3), and an error picked in the sum range is the answer; AVERAGEIF of
    no number is #DIV/0!; ranges of other shapes are #VALUE! (SUMIFS), a larger sum
    range of SUMIF is read over the criteria range's shape."""
    path = _book(tmp_path / "in.xlsx")
    engine.calc(path, tmp_path / "out.xlsx")
    ws = values_of(tmp_path / "out.xlsx")
    count = {ws[f"E{r}"].value: ws[f"I{r}"].value for r in range(2, 32)}
    assert count["ab"] == count["AB"] == 4 and count["aB "] == 2
    assert count[5] == count["5"] == count["5 "] == count["5.000000000000001"] == 8
    assert count[True] == 2 and count["ss"] == count["ß"] == 4  # "ß" and "SS"
    assert count["1/1/2024"] == count[45292] == 2 and count["0"] == 4
    assert count["Zürich"] == count["zürich"] == 2 and count["x*"] == 2  # "x*" and "x*"
    assert count["<>ab"] == 36 and count[">3"] == 6  # 5, 5.000000000000001, 45292 twice
    sums = {ws[f"E{r}"].value: ws[f"F{r}"].value for r in range(2, 32)}
    assert sums["ab"] == 1e16 != math.fsum([1e16, 1.0, 1.0, 1.0])
    assert sums["aB "] == "#DIV/0!"
    assert ws["O2"].value == "#VALUE!" and ws["Q2"].value == "#VALUE!"
    assert ws["P2"].value == ws["F2"].value
    assert ws["E19"].value == "Zürich" and ws["K19"].value == "#DIV/0!"  # C18, C38 empty
    # 5 picks rows 5-8 and 25-28, whose sum range holds the text "7" and TRUE only:
    # skipped by SUMIF and AVERAGEIF
    assert ws["E4"].value == 5 and ws["F4"].value == 0 and ws["K4"].value == "#DIV/0!"


def test_letters_whose_case_folding_is_not_one_to_one(tmp_path, monkeypatch):
    """Criteria ranges and criteria of letters whose case folding is not one to one (the
    dotless i, which the criteria's case-insensitive match finds for "i"; the long s;
    the sharp s; the final sigma; the Kelvin sign) take the group path, keyed by
    :func:`criteria.text_key`, with the very values of the engine's own call on every
    cell."""
    path = _book(tmp_path / "in.xlsx", ["ı", "I", "i", "ſ", "s", "ß", "SS", "ς", "Σ", "K",
                                        "k", "İ", 5, "5"])
    seen = _checked(path, monkeypatch)
    assert sorted(name for name, ok in seen if not ok) == ["COUNTIFS", "SUMIFS"]  # O, T


def test_keys_pick_what_the_matcher_picks():
    """For every criterion :func:`criteria.exact_key` keys and every value
    :func:`criteria.value_keys` keys, the criterion's key is among the value's keys exactly
    when the criteria's matcher (the cells' own rule) picks the value: over numbers near
    15 digits, numeric text, dates, TRUE/FALSE as values and text, errors, the empty
    cell, and every character of the Basic Multilingual Plane that has a case mapping
    as a value (one in 25 of them as a criterion)."""
    import schedula as sh
    from zvmplan_addin.recalc.excel.values import XL
    cased = [chr(c) for c in range(0x80, 0x10000)
             if chr(c).casefold() != chr(c) or chr(c).upper() != chr(c)]
    values = [5, 5.0, 5.000000000000001, 5.00000000000001, -0.0, 0, 0.0, "0", "5", " 5",
              "5.0", "1e0", "1/1/2024", 45292, True, False, "TRUE", "true", "FALSE", "",
              sh.EMPTY, XL["#N/A"], "#N/A", "ab", "AB", "aB", "a b", "ß", "ss", "SS", "ﬁ",
              "fi", "x*", "*", "k", "K", "ı", "i", "I", "ſ", "s", *cased]
    crits = [c for c in values[:len(values) - len(cased)] if c is not sh.EMPTY] + \
        cased[::25] + ["=ab", "=AB", "=ı", "<>ab", "a*", "?", "~*", ">3", "=", "<>", "#n/a",
                       "ü", "Ü", "Zürich", "=5", "σ", "ς", "ǅ"]
    keyed = 0
    for c in crits:
        key = criteria.exact_key(c)
        if key is None:
            continue
        hit = criteria.matcher(c)
        for v in values:
            keys = criteria.value_keys(v)
            if keys is None:
                continue
            keyed += 1
            assert (key in keys) == bool(hit(v)), (c, v)
    assert keyed > 300_000
    assert criteria.value_keys("ı") == criteria.value_keys("I") == (("t", "i"),)
    assert criteria.value_keys("ſ") == (("t", "s"),)  # the long s casefolds to "s"
    assert criteria.exact_key("Zürich") == criteria.value_keys("ZÜRICH")[0] == ("t", "zürich")
    assert criteria.exact_key("=ab") == ("t", "ab")
    assert criteria.exact_key("=5") == criteria.exact_key("5") == ("n", 5.0)
    for c in ("a*", "?b", "~*", ">3", "<>ab", "", "=", "#N/A", "=TRUE", "<>"):
        assert criteria.exact_key(c) is None, c
    assert criteria.exact_key(XL["#N/A"]) is None and criteria.exact_key(sh.EMPTY) is None


@pytest.mark.parametrize("rows", [20, 300])
def test_a_long_column_of_distinct_keys(tmp_path, monkeypatch, rows):
    """The benchmark's shape (text keys k1..k{n/3} with duplicates, a second key of four,
    random numbers): SUMIFS, COUNTIFS, AVERAGEIF and MAXIFS per row agree with the
    engine's own call on every cell (ZVMPLAN_ENGINE_CHECK) and take the group path."""
    import random
    rng = random.Random(7)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    last = rows + 1
    for r in range(2, last + 1):
        ws[f"A{r}"] = f"k{rng.randint(1, max(1, rows // 3))}"
        ws[f"B{r}"] = rng.choice("ABCD")
        ws[f"C{r}"] = rng.random()
        ws[f"D{r}"] = f"=SUMIFS($C$2:$C${last},$A$2:$A${last},A{r},$B$2:$B${last},B{r})"
        ws[f"E{r}"] = f"=COUNTIFS($A$2:$A${last},A{r},$B$2:$B${last},B{r})"
        ws[f"F{r}"] = f"=AVERAGEIF($A$2:$A${last},A{r},$C$2:$C${last})"
        ws[f"G{r}"] = f"=_xlfn.MAXIFS($C$2:$C${last},$A$2:$A${last},A{r})"
    path = save(wb, tmp_path / "in.xlsx")
    seen = _checked(path, monkeypatch)
    assert len(seen) == 4 and all(ok for _, ok in seen)


def test_an_overflow_is_left_to_the_engine(tmp_path, monkeypatch):
    """A group's sum beyond the largest double is #NUM! in Excel; the engine's call gives
    it with its reason (the result is not a finite number), so a column with such a
    group is left to that call, and writes the values and reasons of cell by cell."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for r in range(2, 22):
        ws[f"A{r}"] = "ab"[r % 2]
        ws[f"C{r}"] = 1e308 if r % 2 else 1.0
        ws[f"D{r}"] = f"=SUMIF($A$2:$A$21,A{r},$C$2:$C$21)"
    path = save(wb, tmp_path / "in.xlsx")
    seen = _spy(monkeypatch)
    results = _both_ways(path, tmp_path, monkeypatch)
    assert seen == [("SUMIF", False)]
    assert results[0] == results[1]
    ws = values_of(tmp_path / "out.xlsx")
    assert ws["D3"].value == "#NUM!" and ws["D2"].value == 10.0


def test_ordered_counts_are_the_matchers_counts():
    """A criterion that orders by a number (``">"&C2``: :func:`criteria.numeric_order`)
    picks exactly the numbers the matcher picks -- never text, numeric text, TRUE/FALSE,
    an error or the empty cell, and numbers equal at 15 significant digits as equal --
    so the count from the sorted numbers (:func:`criteria.count_ordered`) is the
    matcher's count, for every ordering and operand."""
    import random

    import schedula as sh
    from zvmplan_addin.recalc.excel.values import XL
    rng = random.Random(3)
    near = [5.0, 5.000000000000001, 4.999999999999999, 5.00000000000001, -0.0, 0.0, 1e-300,
            -1e300, 123456789012345.6, 123456789012345.7]
    values = near + [rng.uniform(-10, 10) for _ in range(300)] + \
        [rng.randint(-5, 5) for _ in range(50)] + \
        ["5", "7", "abc", "", True, False, sh.EMPTY, XL["#N/A"], "1/1/2024", 45292]
    numbers = sorted(v for v in values if criteria.is_number(v))
    operands = [str(v) for v in near] + ["5", "0", "-0", "1E-300", "1/1/2024", "7.5", "1e3",
                                         "123456789012345.65", "-3", "4.9999999999999995"]
    checked = 0
    for op in (">", ">=", "<", "<="):
        for operand in operands:
            criterion = op + operand
            order = criteria.numeric_order(criterion)
            assert order is not None and order[0] == op, criterion
            hit = criteria.matcher(criterion)
            assert criteria.count_ordered(numbers, *order) == \
                sum(bool(hit(v)) for v in values), criterion
            checked += 1
    assert checked == 80
    for c in (">abc", "=5", "5", "<>5", ">", ">=TRUE", ">#N/A", 5, True, None):
        assert criteria.numeric_order(c) is None, c


def test_a_rank_by_countif_is_one_sort(tmp_path, monkeypatch):
    """``=COUNTIF($C$2:$C$N,">"&C2)+1`` (the rank idiom), ``"<="&C2``, and the rank
    within a group (``COUNTIFS($B$2:$B$N,B2,$C$2:$C$N,">"&C2)``, the groups text in two
    cases, a number and numeric text, TRUE, empty; also with an operator criterion that is
    not an ordering by a number, "<>io", which goes the engine's way), and SUMIF,
    AVERAGEIFS and MAXIFS picking so (a sum range holding 1E16 and 1, an error, text,
    TRUE, -0.0: the values added in the range's order) over a range
    holding numbers, ties, numbers equal at 15 digits, numeric text, text, TRUE, errors
    and empty cells: each cell gets its own call's count (ZVMPLAN_ENGINE_CHECK), from the
    group path, and the written values are those evaluated cell by cell. (It was one
    scan of the range a cell: 2,000 rows 6.6 CPU-s, 4,000 rows 25.8; a SUMIF so 7.2 at
    2,000 rows, now 1.1.)"""
    specials = {3: "5", 5: "abc", 7: True, 9: "=NA()", 11: None, 13: 0.30000000000000004,
                14: 0.3, 15: 0.1 + 0.2, 17: '=""'}
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for r in range(2, 62):
        v = specials.get(r, round((r * 7919) % 23 / 4, 2))
        if v is not None:
            ws[f"C{r}"] = v
        ws[f"D{r}"] = f'=COUNTIF($C$2:$C$61,">"&C{r})+1'
        ws[f"E{r}"] = f'=COUNTIF($C$2:$C$61,"<="&C{r})'
        ws[f"F{r}"] = f'=COUNTIFS($C$2:$C$61,">="&(C{r}-1))'
        ws[f"B{r}"] = ("cpu", "CPU", 5, "5", "io", None, True)[r % 7]
        ws[f"G{r}"] = f'=COUNTIFS($B$2:$B$61,B{r},$C$2:$C$61,">"&C{r})+1'
        ws[f"H{r}"] = f'=COUNTIFS($C$2:$C$61,"<="&C{r},$B$2:$B$61,B{r},$B$2:$B$61,"<>io")'
        ws[f"D{r + 70}"] = ("7", -0.0, 1e16, 1.0, "=1/0", True, 2.5, None, 0.1, 0.2)[r % 10]
        ws[f"I{r}"] = f'=SUMIF($C$2:$C$61,">"&C{r},$D$72:$D$131)'
        ws[f"J{r}"] = f'=SUMIF($C$2:$C$61,"<="&C{r})'
        ws[f"K{r}"] = f'=AVERAGEIFS($D$72:$D$131,$B$2:$B$61,B{r},$C$2:$C$61,">="&C{r})'
        ws[f"L{r}"] = f'=_xlfn.MAXIFS($D$72:$D$131,$C$2:$C$61,"<"&C{r},$B$2:$B$61,B{r})'
    path = save(wb, tmp_path / "in.xlsx")
    seen = _checked(path, monkeypatch)
    assert [ok for _, ok in seen] == [True, True, True, True, False,  # H: "<>io"
                                      True, True, True, True]
    monkeypatch.delenv("ZVMPLAN_ENGINE_CHECK")
    results = _both_ways(path, tmp_path, monkeypatch)
    assert results[0] == results[1]
    ws = values_of(tmp_path / "out.xlsx")
    assert ws["D13"].value == ws["D14"].value == ws["D15"].value  # 0.3 three ways
