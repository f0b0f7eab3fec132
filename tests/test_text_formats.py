"""TEXT's number formats, each rule pinned by the values Excel saved in public test
workbooks (the corpus of build/corpus.py; MANIFEST.tsv says where each came from):

* poi NF  -- apache/poi test-data/spreadsheet/NumberFormatTests.xlsx (Excel 16 for Mac)
* poi NFA -- apache/poi NumberFormatApproxTests.xlsx (Excel for Mac)
* poi GF  -- apache/poi GeneralFormatTests.xlsx (Excel for Mac)
* poi FC  -- apache/poi FormatConditionTests.xlsx, FormatChoiceTests.xlsx
* poi TF  -- apache/poi TextFormatTests.xlsx
* poi EF  -- apache/poi ElapsedFormatTests.xlsx (Excel 2008 for Mac, 1904 date system)
* pycel   -- dgorissen/pycel tests/fixtures/text.xlsx (Excel 16 for Windows)
* formulas -- vinci1it2000/formulas test/test_files/test.xlsx (Excel 16 for Mac)
* EPPlus  -- EPPlus src/EPPlusTest/Workbooks/FormulaTest.xlsx (a Swedish Excel 2013)
* SheetJS -- SheetJS test_files formula_stress_test.xlsx (Excel 2011 for Mac)
* numfmt  -- borgar/numfmt's test/*-test.js, values "conformed to Excel for Mac version
  16.35" (cell display, which TEXT shares for these codes); its date and time tables
  (test/tables/ssf-dates.tsv, ssf-times.tsv) agree in every cell sampled

The cell each value comes from is named beside it. The formats are read as English
(en-US) Excel reads them.
"""
from __future__ import annotations

import io
import re
import zipfile

import openpyxl
import pytest

from zvmplan_addin.recalc.excel.textformat import text

from builders import recalc_cells


def check(cases):
    for (value, code), expected in cases.items():
        got = str.__str__(text(value, code))  # an XlError as its plain text
        assert got == expected, (value, code)


FRACTIONS = {
    (23.75, "|#\\:#/#|"): "|23:3/4|",                 # poi NF A120
    (23.75, "|#-#-#\\:#/#|"): "|-2-3:3/4|",           # A127
    (0.75, "|#-#-#\\:#/#|"): "|--3/4|",               # A129
    (0, "|#-#-#\\:#/#|"): "|--0|",                    # A131
    (23.75, "|#\\:? ?0#/000"): "|2:3  03/004",        # A160
    (0, "|#\\:? ?0#/000"): "|:0  00/001",             # A162
    (0.75, "|?\\:?0=/=#|"): "|   3=/=4|",             # A161
    (3.75, "|#_#/#|"): "|15 /4|",                     # A165
    (0, "|#\\:#=/=#|"): "|0|",                        # A198
    (0, "|#\\:#=/=?|"): "|0      |",                  # A199
    (0, "|#\\:0=/=#|"): "|0=/=1|",                    # A204
    (0, "|?\\:0=/=#|"): "|0:0=/=1|",                  # A213
    (1, "|0\\:0=/=0|"): "|1:0=/=1|",                  # A278
    (0.75, "|#\\:?=/=#|"): "| 3=/=4|",                # A228
    (0.75, "|?\\:#=/=#|"): "|  3=/=4|",               # A234
    (0.75, "|0\\:#=/=#|"): "|0:3=/=4|",               # A243
    (-0.75, "|#\\:#=/=#|"): "-|3=/=4|",               # A279
    (0.3, "# ?/?"): " 2/7",                           # numfmt ssf-fraction
    (1.3, "# ?/?"): "1 1/3",                          # numfmt ssf-fraction
    (-123.456, "# ??/??"): "-123 26/57",              # numfmt ssf-fraction
    (0.123251512342345, "# ??/?????????"): " 480894/3901729  ",  # numfmt
    (-1.2, "# ?/2"): "-1    ",                        # numfmt ssf-fraction
    (123.45, "# ?/4"): "123 2/4",                     # numfmt ssf-fraction
    (1234567.89, "0,0 0/0"): "1,234,567 8/9",         # numfmt comma
    (1234567.89, "0,0/0"): "#VALUE!",                 # numfmt comma
    (12345.67, "00 00/? ?"): "12345 02/3  ",          # numfmt
    (-18.034296710838554, "?/???"): "-9991/554",      # EPPlus ValidateFormulas!F2
}


def test_fractions():
    """A fraction format keeps every literal where it stands. The numerator is the
    last run of digit codes before "/", the codes before it hold the whole number;
    a zero whole number drops its ``#`` code and the text after it (``?``: spaces,
    ``0``: "0"); a number without a fraction shows the whole number and then spaces
    for the rest when any code is ``?``, else nothing, unless the numerator has a
    ``0`` code ("0/1"); ``_#`` is a space; the minus sign goes in front. The fraction
    is the last convergent of the continued fraction, worked in binary as Excel works
    it (0.3 is 2/7 but 1.3 is 1 1/3), not always the closest; a comma beside the
    numerator or denominator is #VALUE!, one among the whole number's codes groups."""
    check(FRACTIONS)


GROUPS = {
    (1234567, ",#"): ",1234567",                      # poi NF A27
    (1234567, "?,???????"): " 1,234,567",             # A44
    (1234567, "?,?????????"): "    1,234,567",        # A46
    (1234567, "0,000000000"): "0,001,234,567",        # A69
    (-1234567, "?,???????"): "- 1,234,567",           # A80
    (1234567, "0,"): "1235",                          # A90
    (1234567, "0.#,"): "1234.6",                      # A92
    (1234567, "#,.#,"): "1.2",                        # A93
    (314159, "$000,000,000"): "$000,314,159",         # A335
    (1234567.89, "0.,"): "1235.",                     # numfmt comma
    (1234567.89, "0 ,,"): "1234568 ,",                # numfmt comma
    (1234567.89, "0,,x"): "1x",                       # numfmt comma
    (1234567.89, "0,x0"): "123456x8",                 # numfmt comma
    (1234567.89, "0.0,0,"): "1234.57",                # numfmt comma
    (1234567.89, "01,"): "12351",                     # numfmt comma
    (1234567.89, "01,0"): "1,234,5618",               # numfmt comma
    (1234567.89, "0, 9"): "1234568 9",                # numfmt comma
}


def test_thousands_and_scaling_commas():
    """A comma between integer digit codes groups thousands, padding included (a
    ``?`` pad gives a space for its comma too); commas after the last digit code,
    before the point or at the end, divide by 1000 each, and one with digits later is
    dropped; a literal digit 1-9 counts as a digit beside a comma; a comma after
    anything else is literal text (one for a run)."""
    check(GROUPS)


LITERALS = {
    (1234567.89, '#,#"ZZ"#.0"YY"00'): "1,234,56ZZ7.8YY90",   # pycel TextNumbers!C2
    (890123.456789, "#.###."): "890123.457.",                # C24
    (890123.456789, "#.###.##.#"): "890123.456.78.9",        # C26
    (890123.456789, "#x,0x#.00.0"): "8901x,2x3.45.7",        # C36
    (890123.456789, "#x,0,#.00.0"): "890,1x,23.45.7",        # C37
    (890123.456789, ",#.00.0"): ",890123.45.7",              # C38
    (890123.456789, "#.###,x,##"): "890123.456x,79",         # C42
    (890123.456789, "#.#####00#0"): "890123.45678900",       # C50
    (-1, "w;x@"): "-w",                                      # C17
    (0, "w;x;z@"): "w",                                      # C8
    (-1, ""): "-",                                           # C13
    (1234567890, "0,## ##, ##"): "1,234,56 7,8 90",          # formulas EXTRA!A13
    (1000000.555, "0 .  # ,0.00.0,00"): "1000000 .  5 ,5.50.000",  # EXTRA!A16
}


def test_literal_text_among_the_digits():
    """Literal text (quoted, escaped, a space, any other letter) stays where it stands
    among the digits, thousands separators falling after every third digit wherever
    it goes; a second decimal point is literal; each trailing decimal zero shows per
    its own code; a section holding ``@`` is the text section, so ``w;x@`` has one
    number section and a negative number gets a minus in front."""
    check(LITERALS)


SCIENTIFIC = {
    (123456.789, "|#,e-#|"): "|1e5|",                        # poi NFA A2
    (123456.789, "|#%e-#|"): "|1%e5|",                       # A4
    (123456.789, "|####.####|e-|#|"): "|12.3457|e|4|",       # A8
    (123456.789, "|0000.0000|e-|0|"): "|0012.3457|e|4|",     # A13
    (123456.789, "|?,??????.????|e-|?|"): "|  123,456.789 |e|0|",  # A20
    (1.23456789e-05, "|####.####|e-|#|"): "|1234.5679|e|-8|",  # A48
    (0, "|####.####|e-|#|"): "|0000.|e|0|",                  # A104
    (0, "|?.?|e-|?|"): "|0. |e|0|",                          # A113
    (1.2345678e142, "|#.#|e+|0000|"): "|1.2|e|+0142|",       # A222
    (1.2345678e142, "|#.#|e+|????|"): "|1.2|e|+ 142|",       # A226
    (3.14159, "#,##0.00e+00"): "3.14e+00",                   # A250
    (12200000, "#######.0E+00"): "1.2E+07",                  # formulas EXTRA!A28
    (123456789, ".0E+0"): ".1E+9",                           # numfmt expformat
    (0.012345, ".0E+0"): ".1E-1",                            # numfmt expformat
    (0, "0?.?0E+1"): "00. 0E+1",                             # numfmt
    (1234578.555, "#,##00000,  ,00 , 0##e+8800######    .  # ,0.00.0,00"):
        "#VALUE!",                                           # EXTRA!A27
}


def test_scientific():
    """The exponent is a multiple of the mantissa's integer digit codes
    (``####.####`` writes 123456.789 as 12.3457e4: engineering notation for three);
    literal text stays in place, ``%`` shows without scaling, a comma groups only
    between mantissa digits; the exponent's sign stands before its digits (``e-``
    writes only a minus); a zero shows "0" in every integer code; a decimal point
    after the exponent is #VALUE!."""
    check(SCIENTIFIC)


GENERAL = {
    (1.2345678912, "General"): "1.234567891",        # poi GF A13
    (100000000000, "General"): "1E+11",              # A18
    (112345900000, "General"): "1.12346E+11",        # A24
    (1e-09, "General"): "0.000000001",               # A27
    (1.123459e-10, "General"): "1.12346E-10",        # A34
    (-10000000000, "General"): "-10000000000",       # A51
    (1 / 3, "General"): "0.333333333",
    (1, "@"): "1",                                   # numfmt text: only a text section
    (-1, '"bar" @ "foo"'): "-1",                     # numfmt text
}


def test_general_in_eleven_characters():
    """General in TEXT writes a number in at most 11 characters besides its sign:
    decimals rounded to fit from 1E-4 to 1E+11, decimals when all digits fit down to
    1E-9, scientific notation with as many digits as fit otherwise. A number in a
    format of only a text section is written as General."""
    check(GENERAL)


CONDITIONS = {
    (1, '[<10]#" Wow"'): "1 Wow",                    # poi FC A2
    (10, '[<10]#" Wow"'): "10",                      # A3
    (1, '[< 10]#" Wow"'): "1 Wow",                   # A41
    (1, '[<      10]#" Wow"'): "1 Wow",              # A43
    (-11, '[=-10]#" Wow"'): "-11",                   # A32
    (-10, '[=-10]#" Wow"'): "-10 Wow",               # A33
    (1.5, '[<10]#" Wow"'): "2 Wow",                  # FormatChoiceTests A2
    (6.3, '[>=100]"A"0;[<=-100]"B"0'): "#VALUE!",    # numfmt: a cell shows ######
}


def test_conditions():
    """A ``[<10]``-style condition may hold spaces; a number that the one conditional
    section does not take is written as General; where two sections leave it out Excel
    fills a cell with ###### and TEXT's answer is not published: #VALUE!."""
    check(CONDITIONS)


TEXTS = {
    ("jello", ";;;-@-"): "-jello-",                  # poi TF A7
    (True, "@"): "TRUE",                             # A12
    (True, ';;;"hi"'): "hi",                         # A13
    (True, ";;;\\@@\\@"): "@TRUE@",                  # A16
    (False, ";;;-@-@-"): "-FALSE-FALSE-",            # A29
    ("X", '##.00;-  ##.0;"ZERO";->@<-@'): "->X<-X",  # pycel TextDates!C8
    ("X", ';-  ##.0;"ZERO"@;"X"'): "#VALUE!",        # C9: two text sections
    (0, '#,#"ZZ"#.0"YY"00@'): "#VALUE!",             # TextNumbers!C3: digits beside @
    (0, '"-> "#.00;-#;"SS"m;"ZERO"@'): "SS1",        # C10
}


def test_text_sections():
    """Text, TRUE and FALSE take the text section (the fourth, or the one holding
    ``@``), ``@`` standing for the text; two text sections, or digit codes in the
    text section, are #VALUE!."""
    check(TEXTS)


TIMES = {
    (2958465, "[hh]"): "71003160",                   # pycel TextDates!C11
    (71003160, "[hh]"): "1704075840",                # C12
    (2958466, "h"): "#VALUE!",                       # C14: after 31 Dec 9999
    (2958465, "h"): "0",                             # C16
    (-1, "[h]"): "-24",                              # C18
    (-1, "[h]:m"): "#VALUE!",                        # C19
    (-1, "[s].000"): "#VALUE!",                      # C27
    (0, "[s].000"): "0.000",                         # C28
    ("0:59:99", "#.#####"): ".04212",                # C30
    ("23:9999", "#.#####"): "7.90208",               # C34
    ("24:99", "#.#####"): "24:99",                   # C33: not a time
    ("59:9999.012345", "0.########"): "0.15670153",  # C43
    ("23:59.", "#.###########"): ".99930555556",     # C47
    (3.14159, 's:m" @ hour "[hh]'): "53:23 @ hour 75",                # poi EF A8
    (3.14159, '"It was "[h]" [yes, "h"] hours and "mm:ss'):
        "It was 75 [yes, 75] hours and 23:53",                        # A10
    (3.14159, '[s]" [yes, "ss"] seconds"'): "271433 [yes, 271433] seconds",  # A11
    (28313, "ee-mm-dd"): "1977-07-07",               # SheetJS Text!B15
    (0.70707, "hh.000"): "16.848",                   # numfmt ssf-oddities
    (0.70707, "hh .00 .000"): "16 .84 .848",         # numfmt ssf-oddities
    (0.00001, "s"): "1",                             # numfmt ssf-times: rounded
    (0.00001, "ss.00"): "00.86",                     # numfmt ssf-times
}


def test_times_and_elapsed_times():
    """Elapsed counts pass 24 hours and the last date (a date or time code after
    31 December 9999 is #VALUE!); beside ``[h]`` a plain ``h`` counts hours too, and
    ``m`` after ``s`` is minutes; in the 1900 date system only a lone elapsed count
    takes a minus sign; ``e`` is the year; a text such as "0:59:99" (the last field up
    to 9999) is read as a time; ``.000`` after any time code is the fraction of the
    second, the time rounded to the longest shown."""
    check(TIMES)


def test_locale_and_currency_codes():
    """``[$€-2]`` shows its currency text and ``[$-409]`` (a locale) nothing (ECMA-376
    Part 1, 18.8.31 numFmts); ``# ##0,00`` is a locale's thousands space and decimal
    comma (a Swedish Excel saved 349578723238.3977 as "349 578 723 238,40" in EPPlus's
    ValidateFormulas!F2), which English Excel reads otherwise: #VALUE!, never a guess."""
    assert text(1234.5, "[$€-2] #,##0.00") == "€ 1,234.50"
    assert text(1234.5, "[$-409]#,##0.00") == "1,234.50"
    assert str.__str__(text(349578723238.3977, "# ##0,00")) == "#VALUE!"


def _with_application(path, application: str):
    """Rewrite the docProps/app.xml of the workbook at ``path`` to name
    ``application``."""
    data = path.read_bytes()
    src, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename == "docProps/app.xml":
                body = re.sub(rb"<Application>[^<]*</Application>",
                              f"<Application>{application}</Application>".encode(), body)
                assert application.encode() in body
            z.writestr(info, body)
    path.write_bytes(out.getvalue())


@pytest.mark.parametrize("application, expected", [
    ("Microsoft Excel", ["€", 128, "\x9d", 128]),
    ("Microsoft Macintosh Excel", ["Ä", 128, "ù", 219]),
])
def test_char_and_code_follow_the_platform_that_saved_the_workbook(
        tmp_path, application, expected):
    """CHAR and CODE use Windows-1252 in a workbook saved by Excel for Windows and
    Mac Roman in one saved by Excel for Mac (docProps/app.xml names "Microsoft
    Macintosh Excel"): formulas' test.xlsx, saved by Excel 16 for Mac, caches
    CHAR(128) as "Ä" (CORE!B159) and CHAR(157) as "ù" (TEXT!S7); on Windows they are
    "€" and an undefined character. CODE("€") is 128 on Windows, 219 in Mac Roman."""
    from zvmplan_addin.cli import main as cli
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["A2"] = "=CHAR(128)", "=CODE(CHAR(128))"
    ws["A3"], ws["A4"] = "=CHAR(157)", '=CODE("€")'
    src, out = tmp_path / "in.xlsx", tmp_path / "out.xlsx"
    wb.save(src)
    _with_application(src, application)
    assert cli(["calc", str(src), "-o", str(out)]) == 0
    got = openpyxl.load_workbook(out, data_only=True).active
    assert [got[f"A{r}"].value for r in range(1, 5)] == expected


def test_negative_times_in_the_1904_date_system(tmp_path):
    """In a workbook of the 1904 date system Excel writes a negative time with a minus
    sign (poi EF, 1904: TEXT(-3.14159,"[h]:m:s.000") is "-75:23:53.376", A42;
    "[mm]:ss.0" "-4523:53.4", A46); in the 1900 system that is #VALUE! (pycel C19)."""
    from openpyxl.utils.datetime import CALENDAR_MAC_1904
    from zvmplan_addin.cli import main as cli
    for date1904, expected in ((True, ["-75:23:53.376", "-4523:53.4"]),
                               (False, ["#VALUE!", "#VALUE!"])):
        wb = openpyxl.Workbook()
        if date1904:
            wb.epoch = CALENDAR_MAC_1904
        ws = wb.active
        ws["A1"], ws["A2"] = '=TEXT(-3.14159,"[h]:m:s.000")', '=TEXT(-3.14159,"[mm]:ss.0")'
        src, out = tmp_path / f"in{date1904}.xlsx", tmp_path / f"out{date1904}.xlsx"
        wb.save(src)
        cli(["calc", str(src), "-o", str(out)])
        got = openpyxl.load_workbook(out, data_only=True).active
        assert [got["A1"].value, got["A2"].value] == expected, date1904


def test_text_formats_in_a_recalculated_workbook(tmp_path):
    """The rules hold through the engine, with the format in a cell."""
    got = recalc_cells(tmp_path, {
        "B1": "|#\\:#/#|", "C1": 23.75, "A1": "=TEXT(C1,B1)",
        "B2": "|####.####|e-|#|", "C2": 123456.789, "A2": "=TEXT(C2,B2)",
        "A3": '=TEXT(1.2345678912,"General")'})
    assert got == {"A1": "|23:3/4|", "A2": "|12.3457|e|4|", "A3": "1.234567891"}
