"""GROUPBY and PIVOTBY as Excel 365 computes them (:mod:`zvmplan_addin.recalc.excel.groupby`).

The expected tables are the values Excel saved in formulas' test workbook
(github.com/vinci1it2000/formulas, test/test_files/test.xlsx, EUPL-1.1; in the corpus as
vinci1it2000+formulas/test/test_files/test.xlsx), each at the cell named beside it: the
data blocks LOOKUP!C25:K43 and LOOKUP!C93:L111 are written at the same addresses, the
formulas over the same areas, and the whole workbook recalculated once. Where Excel's
pages and these answers leave a form open, the cell is #VALUE! "not computed" with the
reason (the last tests)."""
from __future__ import annotations

import openpyxl
import pytest
from openpyxl.utils import range_boundaries
from openpyxl.worksheet.formula import ArrayFormula

from zvmplan_addin.cli import main as cli
from zvmplan_addin.recalc import evaluate_formula

DATA25 = [['row-2', 'row-1', 'row-3', 'col-1', 'col-2', 'col-3', 'val1', 'val2', 'filter'],
          ['r2', 'r2-1', 'r2-1-1', 'b', 'd', 'c1-2-1', 1, 5, 1],
          ['r2', 'r2-2', 'r2-2-2', 'b', 'f', 'c1-1-2', 6, 9, 0],
          ['r3', 'r1-1', 'r1-1-2', 'b', 'd', 'c1-2-2', -9, 8, 0],
          ['r2', 'r2-2', 'r2-2-1', 'b', 'd', 'c1-2-2', -1, 7, 1],
          ['r3', 'r1-2', 'r1-2-2', 'b', 'd', 'c1-2-1', 6, 3, 0],
          ['r2', 'r2-1', 'r2-1-2', 'b', 'd', 'c1-2-1', 3, -7, 0],
          ['r3', 'r1-2', 'r1-2-1', 'a', 'e', 'c2-1-2', 7, -4, 1],
          ['r2', 'r2-2', 'r2-2-2', 'a', 'e', 'c2-1-2', -4, 1, 0],
          ['r2', 'r2-1', 'r2-1-2', 'a', 'e', 'c2-1-2', -7, 6, 0],
          ['r2', 'r2-2', 'r2-2-1', 'a', 'g', 'c2-2-2', 9, -9, 1],
          ['r2', 'r2-2', 'r2-2-2', 'b', 'd', 'c1-2-1', 7, -1, 1],
          ['r2', 'r2-2', 'r2-2-1', 'a', 'g', 'c2-2-2', 5, 7, 1],
          ['r3', 'r1-1', 'r1-1-2', 'b', 'f', 'c1-1-1', 9, 3, 1],
          ['r2', 'r2-1', 'r2-1-2', 'a', 'e', 'c2-1-1', 8, -7, 1],
          ['r3', 'r1-2', 'r1-2-2', 'a', 'e', 'c2-1-2', 8, -4, 1],
          ['r2', 'r2-2', 'r2-2-2', 'a', 'g', 'c2-2-1', -6, -7, 0],
          ['r3', 'r1-2', 'r1-2-2', 'b', 'd', 'c1-2-1', 1, -1, 0],
          ['r3', 'r1-1', 'r1-1-2', 'b', 'd', 'c1-2-2', -2, -2, 0]]
DATA93 = [['row-2', 'row-1', 'row-3', 'col-1', 'col-2', 'col-3', 'val1', 'val2', 'filter', ''],
          ['r2', 'r2-1', 'r2-1-1', 'b', 'd', 'c1-2-1', 1, 5, 1, 1],
          ['r2', 'r2-2', 'r2-2-2', 'b', 'f', 'c1-1-2', 6, 9, 0, 1],
          ['r3', 'r1-1', 'r1-1-2', 'b', 'd', 'c1-2-2', -9, 8, 0, '#VALUE!'],
          ['r2', 'r2-2', 'r2-2-1', 'b', 'd', 'c1-2-2', -1, 7, 1, 1],
          ['r3', 'r1-2', 'r1-2-2', 'b', 'd', 'c1-2-1', '#VALUE!', 3, 0, 0],
          ['r2', 'r2-1', 'r2-1-2', 'b', 'd', 'c1-2-1', 3, -7, 0, 0],
          ['r3', 'r1-2', 'r1-2-1', 'a', 'e', 'c2-1-2', 7, -4, 1, 1],
          ['r2', 'r2-2', 'r2-2-2', 'a', 'e', 'c2-1-2', -4, 1, 0, 0],
          ['r2', 'r2-1', 'r2-1-2', 'a', 'e', 'c2-1-2', -7, 6, 0, 0],
          ['r2', 'r2-2', 'r2-2-1', 'a', 'g', 'c2-2-2', 9, -9, 1, 1],
          ['r2', 'r2-2', 'r2-2-2', 'b', 'd', 'c1-2-1', 7, -1, 1, 1],
          ['r2', 'r2-2', 'r2-2-1', 'a', 'g', 'c2-2-2', 5, 7, 1, 1],
          ['r3', 'r1-1', 'r1-1-2', 'b', 'f', 'c1-1-1', 9, 3, 1, 1],
          ['r2', 'r2-1', 'r2-1-2', 'a', 'e', 'c2-1-1', 8, -7, 1, 1],
          ['r3', 'r1-2', 'r1-2-2', 'a', 'e', 'c2-1-2', 8, -4, 1, 0],
          ['r2', 'r2-2', 'r2-2-2', 'a', 'g', 'c2-2-1', -6, -7, 0, 0],
          ['r3', 'r1-2', 'r1-2-2', 'b', 'd', 'c1-2-1', 1, -1, 0, 0],
          ['r3', 'r1-1', 'r1-1-2', 'b', 'd', 'c1-2-2', -2, -2, 0, 0]]
CASES = [
    # LOOKUP!M25:Q39: by three row fields, field headers shown (3), subtotals of the first
    # two levels (3): "Grand Total"
    ('LOOKUP', 'M25:Q39', '=_xlfn.GROUPBY(C25:E43,I25:J43,_xleta.SUM,3, 3)',
     [['row-2', 'row-1', 'row-3', 'val1', 'val2'], ['r2', 'r2-1', 'r2-1-1', 1, 5],
      ['r2', 'r2-1', 'r2-1-2', 4, -8], ['r2', 'r2-1', '', 5, -3],
      ['r2', 'r2-2', 'r2-2-1', 13, 5], ['r2', 'r2-2', 'r2-2-2', 3, 2], ['r2', 'r2-2', '', 16, 7],
      ['r2', '', '', 21, 4], ['r3', 'r1-1', 'r1-1-2', -2, 9], ['r3', 'r1-1', '', -2, 9],
      ['r3', 'r1-2', 'r1-2-1', 7, -4], ['r3', 'r1-2', 'r1-2-2', 15, -2],
      ['r3', 'r1-2', '', 22, -6], ['r3', '', '', 20, 3], ['Grand Total', '', '', 41, 7]]),
    # LOOKUP!S25:W39: PERCENTOF: each group's sum over the sum of every value of its column
    ('LOOKUP', 'S25:W39', '=_xlfn.GROUPBY(C25:E43,I25:J43,_xleta.PERCENTOF,3, 3)',
     [['row-2', 'row-1', 'row-3', 'val1', 'val2'],
      ['r2', 'r2-1', 'r2-1-1', 0.024390243902439, 0.714285714285714],
      ['r2', 'r2-1', 'r2-1-2', 0.097560975609756, -1.142857142857143],
      ['r2', 'r2-1', '', 0.121951219512195, -0.428571428571429],
      ['r2', 'r2-2', 'r2-2-1', 0.317073170731707, 0.714285714285714],
      ['r2', 'r2-2', 'r2-2-2', 0.073170731707317, 0.285714285714286],
      ['r2', 'r2-2', '', 0.390243902439024, 1],
      ['r2', '', '', 0.51219512195122, 0.571428571428571],
      ['r3', 'r1-1', 'r1-1-2', -0.048780487804878, 1.285714285714286],
      ['r3', 'r1-1', '', -0.048780487804878, 1.285714285714286],
      ['r3', 'r1-2', 'r1-2-1', 0.170731707317073, -0.571428571428571],
      ['r3', 'r1-2', 'r1-2-2', 0.365853658536585, -0.285714285714286],
      ['r3', 'r1-2', '', 0.536585365853659, -0.857142857142857],
      ['r3', '', '', 0.48780487804878, 0.428571428571429], ['Grand Total', '', '', 1, 1]]),
    # LOOKUP!Y25:AC32: left out: the header row (text over a number) is skipped, not shown;
    # one "Total"
    ('LOOKUP', 'Y25:AC32', '=_xlfn.GROUPBY(C25:E43,I25:J43,_xleta.AVERAGE)',
     [['r2', 'r2-1', 'r2-1-1', 1, 5],
      ['r2', 'r2-1', 'r2-1-2', 1.333333333333333, -2.666666666666667],
      ['r2', 'r2-2', 'r2-2-1', 4.333333333333333, 1.666666666666667],
      ['r2', 'r2-2', 'r2-2-2', 0.75, 0.5], ['r3', 'r1-1', 'r1-1-2', -0.666666666666667, 3],
      ['r3', 'r1-2', 'r1-2-1', 7, -4], ['r3', 'r1-2', 'r1-2-2', 5, -0.666666666666667],
      ['Total', '', '', 2.277777777777778, 0.388888888888889]]),
    # LOOKUP!AE25:AI32: field_relationship 1 (table) with a filter
    ('LOOKUP', 'AE25:AI32', '=_xlfn.GROUPBY(F25:H43,I25:J43,_xleta.AVERAGE,3,1,1,K25:K43,1)',
     [['col-1', 'col-2', 'col-3', 'val1', 'val2'], ['a', 'e', 'c2-1-1', 8, -7],
      ['a', 'e', 'c2-1-2', 7.5, -4], ['a', 'g', 'c2-2-2', 7, -1], ['b', 'd', 'c1-2-1', 4, 2],
      ['b', 'd', 'c1-2-2', -1, 7], ['b', 'f', 'c1-1-1', 9, 3],
      ['Total', '', '', 5.888888888888889, -0.333333333333333]]),
    # LOOKUP!AE34:AI41: field_relationship 0 (hierarchy) with a filter
    ('LOOKUP', 'AE34:AI41', '=_xlfn.GROUPBY(F25:H43,I25:J43,_xleta.AVERAGE,3,1,1,K25:K43,0)',
     [['col-1', 'col-2', 'col-3', 'val1', 'val2'], ['a', 'e', 'c2-1-1', 8, -7],
      ['a', 'e', 'c2-1-2', 7.5, -4], ['a', 'g', 'c2-2-2', 7, -1], ['b', 'd', 'c1-2-1', 4, 2],
      ['b', 'd', 'c1-2-2', -1, 7], ['b', 'f', 'c1-1-1', 9, 3],
      ['Total', '', '', 5.888888888888889, -0.333333333333333]]),
    # LOOKUP!Y34: values shorter than the row fields
    ('LOOKUP', 'Y34', '=_xlfn.GROUPBY(C25:E43,I25:J42,_xleta.AVERAGE)',
     [['#VALUE!']]),
    # LOOKUP!Z34: sort_order 6 past 3 fields and 2 value columns
    ('LOOKUP', 'Z34', '=_xlfn.GROUPBY(C25:E43,I25:J43,_xleta.AVERAGE,1,2,6)',
     [['#VALUE!']]),
    # LOOKUP!AJ92:AM95: totals at the top and left (-1), rows and columns sorted by their
    # totals (2)
    ('LOOKUP', 'AJ92:AM95', '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:F111,LOOKUP!I93:I111,_xleta.SUM,1,-1,2,-1,2,LOOKUP!K93:K111)',
     [['', 'Total', 'b', 'a'], ['Total', 53, 16, 37], ['r3', 24, 9, 15], ['r2', 29, 7, 22]]),
    # LOOKUP!AJ96:AM99: rows and columns sorted by their totals, totals after
    ('LOOKUP', 'AJ96:AM99', '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:F111,LOOKUP!I93:I111,_xleta.SUM,1,1,2,1,2,LOOKUP!K93:K111)',
     [['', 'b', 'a', 'Total'], ['r3', 9, 15, 24], ['r2', 7, 22, 29], ['Total', 16, 37, 53]]),
    # LOOKUP!AR96:AW99: two column levels sorted by value within the first (3), no row total
    ('LOOKUP', 'AR96:AW99', '=_xlfn.PIVOTBY(C93:C111,F93:G111,I93:I111,_xleta.SUM,1,0,2,1,3,K93:K111)',
     [['', 'a', 'a', 'b', 'b', 'Total'], ['', 'g', 'e', 'd', 'f', ''], ['r3', '', 15, '', 9, 24],
      ['r2', 14, 8, 7, '', 29]]),
    # LOOKUP!AJ101:AO105: column sort vector {1,-2}: first level ascending, second descending
    ('LOOKUP', 'AJ101:AO105', '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:G111,LOOKUP!I93:I111,_xleta.SUM,1,1,1,1,{1,-2},LOOKUP!K93:K111)',
     [['', 'a', 'a', 'b', 'b', 'Total'], ['', 'g', 'e', 'f', 'd', ''], ['r2', 14, 8, '', 7, 29],
      ['r3', '', 15, 9, '', 24], ['Total', 14, 23, 9, 7, 53]]),
    # LOOKUP!AP101:AU105: rows and the second column level sorted by value
    ('LOOKUP', 'AP101:AU105', '=_xlfn.PIVOTBY(C93:C111,F93:G111,I93:I111,_xleta.SUM,1,1,2,1,3,K93:K111)',
     [['', 'a', 'a', 'b', 'b', 'Total'], ['', 'g', 'e', 'd', 'f', ''], ['r3', '', 15, '', 9, 24],
      ['r2', 14, 8, 7, '', 29], ['Total', 14, 23, 7, 9, 53]]),
    # LOOKUP!AE96:AH99: PERCENTOF relative to the column totals (0)
    ('LOOKUP', 'AE96:AH99', '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:F111,LOOKUP!I93:I111,_xleta.PERCENTOF,1,1,1,1,1,LOOKUP!K93:K111,0)',
     [['', 'a', 'b', 'Total'], ['r2', 0.594594594594595, 0.4375, 0.547169811320755],
      ['r3', 0.405405405405405, 0.5625, 0.452830188679245], ['Total', 1, 1, 1]]),
    # LOOKUP!AE100:AH103: PERCENTOF relative to the row totals (1)
    ('LOOKUP', 'AE100:AH103', '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:F111,LOOKUP!I93:I111,_xleta.PERCENTOF,1,1,1,1,1,LOOKUP!K93:K111,1)',
     [['', 'a', 'b', 'Total'], ['r2', 0.758620689655172, 0.241379310344828, 1],
      ['r3', 0.625, 0.375, 1], ['Total', 0.69811320754717, 0.30188679245283, 1]]),
    # LOOKUP!AE104:AH107: PERCENTOF relative to the grand total (2)
    ('LOOKUP', 'AE104:AH107', '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:F111,LOOKUP!I93:I111,_xleta.PERCENTOF,1,1,1,1,1,LOOKUP!K93:K111,2)',
     [['', 'a', 'b', 'Total'], ['r2', 0.415094339622642, 0.132075471698113, 0.547169811320755],
      ['r3', 0.283018867924528, 0.169811320754717, 0.452830188679245],
      ['Total', 0.69811320754717, 0.30188679245283, 1]]),
    # LOOKUP!AE108:AH111: PERCENTOF relative to the parent column total (3): one column
    # level, the row
    ('LOOKUP', 'AE108:AH111', '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:F111,LOOKUP!I93:I111,_xleta.PERCENTOF,1,1,1,1,1,LOOKUP!K93:K111,3)',
     [['', 'a', 'b', 'Total'], ['r2', 0.758620689655172, 0.241379310344828, 1],
      ['r3', 0.625, 0.375, 1], ['Total', 0.69811320754717, 0.30188679245283, 1]]),
    # LOOKUP!R105:U108: relative_to changes nothing for SUM
    ('LOOKUP', 'R105:U108', '=_xlfn.PIVOTBY({"r2";"r2";"r3";"r2";"r2";"r2";"r3";"r2";"r3"},{"c1";"c1";"c2";"c2";"c1";"c2";"c1";"c2";"c2"},{1;-1;-7;-1;7;5;9;8;-8},_xleta.SUM,0,1,1,1,1,{1;1;1;1;1;1;1;1;1},3)',
     [['', 'c1', 'c2', 'Total'], ['r2', 7, 12, 19], ['r3', 9, -15, -6], ['Total', 16, -3, 13]]),
    # LOOKUP!N106:Q109: PERCENTOF, no headers, parent column total (3)
    ('LOOKUP', 'N106:Q109', '=_xlfn.PIVOTBY({"r2";"r2";"r3";"r2";"r2";"r2";"r3";"r2";"r3"},{"c1";"c1";"c2";"c2";"c1";"c2";"c1";"c2";"c2"},{1;-1;-7;-1;7;5;9;8;-8},_xleta.PERCENTOF,0,1,1,1,1,{1;1;1;1;1;1;1;1;1},3)',
     [['', 'c1', 'c2', 'Total'], ['r2', 0.368421052631579, 0.631578947368421, 1],
      ['r3', -1.5, 2.5, 1], ['Total', 1.230769230769231, -0.230769230769231, 1]]),
    # LOOKUP!N93:AB103: three row and three column levels, two value columns, a filter of
    # two columns (its first is used)
    ('LOOKUP', 'N93:AB103', '=_xlfn.PIVOTBY(C93:E111,F93:H111,I93:J111,_xleta.SUM,1,1,1,0,3,K93:L111)',
     [['', '', '', 'a', 'a', 'a', 'a', 'a', 'a', 'b', 'b', 'b', 'b', 'b', 'b'],
      ['', '', '', 'e', 'e', 'e', 'e', 'g', 'g', 'd', 'd', 'd', 'd', 'f', 'f'],
      ['', '', '', 'c2-1-1', 'c2-1-1', 'c2-1-2', 'c2-1-2', 'c2-2-2', 'c2-2-2', 'c1-2-1',
       'c1-2-1', 'c1-2-2', 'c1-2-2', 'c1-1-1', 'c1-1-1'],
      ['r2', 'r2-1', 'r2-1-1', '', '', '', '', '', '', 1, 5, '', '', '', ''],
      ['r2', 'r2-1', 'r2-1-2', 8, -7, '', '', '', '', '', '', '', '', '', ''],
      ['r2', 'r2-2', 'r2-2-1', '', '', '', '', 14, -2, '', '', -1, 7, '', ''],
      ['r2', 'r2-2', 'r2-2-2', '', '', '', '', '', '', 7, -1, '', '', '', ''],
      ['r3', 'r1-1', 'r1-1-2', '', '', '', '', '', '', '', '', '', '', 9, 3],
      ['r3', 'r1-2', 'r1-2-1', '', '', 7, -4, '', '', '', '', '', '', '', ''],
      ['r3', 'r1-2', 'r1-2-2', '', '', 8, -4, '', '', '', '', '', '', '', ''],
      ['Total', '', '', 8, -7, 15, -8, 14, -2, 8, 4, -1, 7, 9, 3]]),
    # LOOKUP!N105: an error in filter_array is the answer
    ('LOOKUP', 'N105', '=_xlfn.PIVOTBY(C93:E111,F93:H111,I93:J111,_xleta.SUM,1,1,1,0,1,L93:L111)',
     [['#VALUE!']]),
    # EXTRA!AX3: row_total_depth 3 with one row field
    ('EXTRA', 'AX3', '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:F111,LOOKUP!I93:I111,_xleta.PERCENTOF,1,3,1,3,1,LOOKUP!K93:K111,0)',
     [['#VALUE!']]),
    # EXTRA!BD95:BK104: headers shown (3): column fields' names joined, a row of the row
    # fields' and values' names; subtotals (2): "Grand Total"; PERCENTOF of the parent
    # column total (3)
    ('EXTRA', 'BD95:BK104', '=_xlfn.PIVOTBY({"r1","r2";2,1;2,2;3,1},{"c1","c2";1,1;2,1;2,2},{"v1","v2";1,3;2,5;3,2},_xleta.PERCENTOF,3,2,1,0,1,{"f";1;1;1},3)',
     [['', '', 'c1, c2', '', '', '', '', ''], ['', '', 1, 1, 2, 2, 2, 2],
      ['', '', 1, 1, 1, 1, 2, 2], ['r1', 'r2', 'v1', 'v2', 'v1', 'v2', 'v1', 'v2'],
      [2, 1, 1, 1, '', '', '', ''], [2, 2, '', '', 1, 1, '', ''], [2, '', 1, 1, 1, 1, '', ''],
      [3, 1, '', '', '', '', 1, 1], [3, '', '', '', '', '', 1, 1],
      ['Grand Total', '', 1, 1, 0.4, 0.714285714285714, 0.6, 0.285714285714286]]),
    # EXTRA!BM95:BT104: as BD95, relative to the parent row total (4)
    ('EXTRA', 'BM95:BT104', '=_xlfn.PIVOTBY({"r1","r2";2,1;2,2;3,1},{"c1","c2";1,1;2,1;2,2},{"v1","v2";1,3;2,5;3,2},_xleta.PERCENTOF,3,2,1,0,1,{"f";1;1;1},4)',
     [['', '', 'c1, c2', '', '', '', '', ''], ['', '', 1, 1, 2, 2, 2, 2],
      ['', '', 1, 1, 1, 1, 2, 2], ['r1', 'r2', 'v1', 'v2', 'v1', 'v2', 'v1', 'v2'],
      [2, 1, 1, 1, '', '', '', ''], [2, 2, '', '', 1, 1, '', ''], [2, '', 1, 1, 1, 1, '', ''],
      [3, 1, '', '', '', '', 1, 1], [3, '', '', '', '', '', 1, 1],
      ['Grand Total', '', 1, 1, 1, 1, 1, 1]]),
    # EXTRA!H96:K99: the common form: "" where a row and a column meet no value
    ('EXTRA', 'H96:K99', '=_xlfn.PIVOTBY({2;2;3},{1;2;2},{1;2;3},_xleta.SUM)',
     [['', 1, 2, 'Total'], [2, 1, 2, 3], [3, '', 3, 3], ['Total', 1, 5, 6]]),
    # EXTRA!L96: an error given as the function (a cell holding #N/A) is the answer
    ('EXTRA', 'L96', '=_xlfn.PIVOTBY({2;2;3},{1;2;2},{1;2;3},LOOKUP!L91)',
     [['#N/A']]),
    # EXTRA!H100:K103: IF as the function: #VALUE! in every cell with values
    ('EXTRA', 'H100:K103', '=_xlfn.PIVOTBY({2;2;3},{1;2;2},{1;2;3},_xleta.IF)',
     [['', 1, 2, 'Total'], [2, '#VALUE!', '#VALUE!', '#VALUE!'], [3, '', '#VALUE!', '#VALUE!'],
      ['Total', '#VALUE!', '#VALUE!', '#VALUE!']]),
]


def _write(ws, top_left: str, rows: list) -> None:
    c1, r1, _, _ = range_boundaries(top_left)
    for i, line in enumerate(rows):
        for j, v in enumerate(line):
            if v == "":
                continue
            ws.cell(r1 + i, c1 + j, '=VALUE("x")' if v == "#VALUE!" else v)


@pytest.fixture(scope="module")
def excel_book(tmp_path_factory):
    """The data and every case's formula, recalculated by ``zvmplan calc``: sheet name ->
    the output sheet as openpyxl reads it."""
    wb = openpyxl.Workbook()
    lookup = wb.active
    lookup.title = "LOOKUP"
    wb.create_sheet("EXTRA")
    _write(lookup, "C25", DATA25)
    _write(lookup, "C93", DATA93)
    lookup["L91"] = "=NA()"
    for sheet, ref, formula, _ in CASES:
        ws = wb[sheet]
        anchor = ref.split(":")[0]
        ws[anchor] = ArrayFormula(ref, formula) if ":" in ref else formula
    path = tmp_path_factory.mktemp("groupby")
    wb.save(path / "in.xlsx")
    assert cli(["calc", str(path / "in.xlsx"), "-o", str(path / "out.xlsx")]) == 0
    out = openpyxl.load_workbook(path / "out.xlsx", data_only=True)
    return {name: out[name] for name in ("LOOKUP", "EXTRA")}


def _block(ws, ref: str) -> list:
    c1, r1, c2, r2 = range_boundaries(ref if ":" in ref else f"{ref}:{ref}")
    return [["" if ws.cell(r, c).value is None else ws.cell(r, c).value
             for c in range(c1, c2 + 1)] for r in range(r1, r2 + 1)]


def _same(got: list, expected: list) -> bool:
    return [[pytest.approx(v, rel=1e-12) if isinstance(v, float) else v for v in line]
            for line in expected] == got


@pytest.mark.parametrize("sheet, ref, formula, expected", CASES,
                         ids=[f"{s}!{r.split(':')[0]}" for s, r, _, _ in CASES])
def test_excel_saved_answers(excel_book, sheet, ref, formula, expected):
    """Each GROUPBY/PIVOTBY of formulas' test workbook gives, cell for cell, the table
    Excel saved (the comment above each case says which rule it shows)."""
    got = _block(excel_book[sheet], ref)
    assert _same(got, expected), f"{sheet}!{ref} {formula}\n{got}"


def test_two_parameter_lambda_gets_the_whole_column(excel_book, tmp_path):
    """A LAMBDA of two parameters is called, like PERCENTOF, with the group's values and
    every value of its column: LAMBDA(x,y,SUM(x)/SUM(y)) gives Excel's PERCENTOF table
    (LOOKUP!S25:W39), subtotals and grand total included."""
    formula, expected = _case("S25:W39")
    lam = formula.replace("_xleta.PERCENTOF",
                          "_xlfn.LAMBDA(_xlpm.x,_xlpm.y,SUM(_xlpm.x)/SUM(_xlpm.y))")
    assert _same(_over_data25(tmp_path, "S25:W39", lam), expected)


def _case(ref: str):
    return next((f, e) for s, r, f, e in CASES if r == ref)


def _over_data25(tmp_path, ref: str, formula: str) -> list:
    """``formula`` over ``ref`` beside LOOKUP!C25:K43, recalculated: the block's values."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "LOOKUP"
    _write(ws, "C25", DATA25)
    ws[ref.split(":")[0]] = ArrayFormula(ref, formula)
    wb.save(tmp_path / "in.xlsx")
    assert cli(["calc", str(tmp_path / "in.xlsx"), "-o", str(tmp_path / "out.xlsx")]) == 0
    return _block(openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)["LOOKUP"], ref)


def test_totals_at_the_top_and_descending_fields(tmp_path):
    """total_depth -3 puts the grand total first and each subtotal before the groups it
    totals (Microsoft: "-2: Grand and subtotals at top"); sort_order -1 takes the first
    level descending, the levels below still ascending within it. The rows are Excel's
    own rows of LOOKUP!M25:Q39 (total_depth 3) in that order."""
    _, saved = _case("M25:Q39")
    header, rows = saved[0], saved[1:]
    by_label = {tuple(r[:3]): r for r in rows}
    top = [header, by_label[("Grand Total", "", "")]]
    for first in ("r2", "r3"):
        top.append(by_label[(first, "", "")])
        for second in sorted({r[1] for r in rows if r[0] == first and r[1]}):
            top.append(by_label[(first, second, "")])
            top += [r for r in rows if r[0] == first and r[1] == second and r[2]]
    got = _over_data25(tmp_path, "M25:Q39",
                       "=_xlfn.GROUPBY(C25:E43,I25:J43,_xleta.SUM,3,-3)")
    assert _same(got, top)
    descending = [header] + [r for r in rows if r[0] == "r3"] + \
        [r for r in rows if r[0] == "r2"] + [rows[-1]]
    got = _over_data25(tmp_path, "M25:Q39",
                       "=_xlfn.GROUPBY(C25:E43,I25:J43,_xleta.SUM,3,3,-1)")
    assert _same(got, descending)


def test_text_aggregations():
    """ARRAYTOTEXT and CONCAT aggregate a group's values into text (ARRAYTOTEXT's concise
    format joins them with ", "; CONCAT without a separator), the total all of them."""
    got = evaluate_formula('=_xlfn.GROUPBY({"a";"b";"a"},{1;2;3},_xleta.ARRAYTOTEXT)')
    assert got.tolist() == [["a", "1, 3"], ["b", "2"], ["Total", "1, 2, 3"]]
    got = evaluate_formula('=_xlfn.GROUPBY({"a";"b";"a"},{1;2;3},_xleta.CONCAT,0,0)')
    assert got.tolist() == [["a", "13"], ["b", "2"]]


def test_function_errors_and_values():
    """An error given as the function is the answer (EXTRA!L96: a cell holding #N/A); a
    value that is no function, "SUM" as text, is #VALUE!."""
    assert evaluate_formula("=_xlfn.GROUPBY({1;2},{1;2},NA())").code == "#N/A"
    assert evaluate_formula('=_xlfn.GROUPBY({1;2},{1;2},"SUM")').code == "#VALUE!"


NOT_COMPUTED = (
    ("=_xlfn.GROUPBY({1;2},{1;2},_xlfn.HSTACK(_xleta.SUM,_xleta.AVERAGE))",
     "several functions"),
    ("=_xlfn.PIVOTBY({1;2},{1;2},{1;2},_xlfn.VSTACK(_xleta.SUM,_xleta.MAX))",
     "several functions"),
    ("=_xlfn.GROUPBY({1;2},{1;2},_xleta.SUM,2)", "generated field headers"),
    ("=_xlfn.PIVOTBY({1,2;3,4},{1;2},{1;2},_xleta.SUM)", "generated field headers"),
    ("=_xlfn.GROUPBY({1,2;3,4},{1;2},_xleta.SUM,,2,,,1)", "field_relationship 1"),
    ("=_xlfn.GROUPBY({1,2;3,4},{1;2},_xleta.SUM,,1,3,,1)", "field_relationship 1"),
    ("=_xlfn.GROUPBY({1,2;3,4},{1;2},_xleta.SUM,,1,2,,1)", "field_relationship 1"),
    ("=_xlfn.GROUPBY({1;2},{1;2},_xleta.SUM,,2)", "total_depth 2 with one field"),
    ("=_xlfn.GROUPBY({1;2},{1;2},_xleta.CORREL)", "CORREL"),
    ('=_xlfn.GROUPBY({1;"";2},{1;2;3},_xleta.SUM,0)', "blank"),
    ("=_xlfn.GROUPBY({1;2},{1;2},_xleta.SUM,,,,{FALSE;FALSE})", "no row is left"),
    ("=_xlfn.PIVOTBY(,{1;2},{1;2},_xleta.SUM)", "left out"),
)


@pytest.mark.parametrize("formula, why", NOT_COMPUTED)
def test_forms_not_computed_say_why(formula, why):
    """What Excel's pages and saved answers leave open (the labels of several stacked
    functions, generated headers, the table relationship's subtotals, deeper subtotals
    than fields, functions of two arguments other than PERCENTOF, blank labels, nothing
    left by the filter) is #VALUE! whose reason says it was not computed and why, never a
    guessed layout."""
    err = evaluate_formula(formula)
    assert err.code == "#VALUE!" and err.reason.startswith("not computed: "), formula
    assert why in err.reason, formula


def test_check_counts_a_form_not_computed_as_not_computed(tmp_path):
    """``zvmplan check`` lists a GROUPBY form the engine does not compute as not
    computed, with the reason (exit code 5), not as a value that differs."""
    from test_check import workbook
    from zvmplan_addin.check import EXIT_NOT_COMPUTED, check
    path = workbook(tmp_path / "nc.xlsx", {
        "A1": ("_xlfn.GROUPBY({1;2},{1;2},_xleta.SUM,2)", "str", "Row Field 1"),
        "B1": ("_xlfn.GROUPBY({1;2},{3;4},_xleta.SUM,0,0)", None, 1, "B1:C2")}, excel=True)
    report = check(str(path))
    assert [m.cell for m in report.not_computed] == ["S!A1"]
    assert "generated field headers" in report.not_computed[0].reason
    assert report.exit_code() == EXIT_NOT_COMPUTED


def test_errors_among_the_values_reach_only_what_they_are_in():
    """An error among the values is the function's business, as SUM's page says for its
    arguments: SUM of the group holding #N/A is #N/A, and so is the total; the other
    group is summed; COUNT does not count it (0 for that group)."""
    got = evaluate_formula('=_xlfn.GROUPBY({"a";"b";"a"},{1;#N/A;2},_xleta.SUM)')
    assert [[getattr(v, "code", v) for v in line] for line in got.tolist()] == \
        [["a", 3], ["b", "#N/A"], ["Total", "#N/A"]]
    got = evaluate_formula('=_xlfn.GROUPBY({"a";"b";"a"},{1;#N/A;2},_xleta.COUNT)')
    assert got.tolist() == [["a", 2], ["b", 0], ["Total", 2]]
