"""The formula cells a column group's slot reads are worked out once per slot
(:func:`zvmplan_addin.recalc.groups.slot_owners`): the group check and the evaluation
order read the same answer that working it out afresh gives, and the order's last ask
lets it go; a slot longer than KEEP_OWNERS is worked out at each ask (a large sheet's
peak memory stays as it was)."""
from pathlib import Path

import numpy as np

from zvmplan_addin import xlsx
from zvmplan_addin.recalc import engine as E
from zvmplan_addin.recalc.groups import _slot_owners, cells_by_template, column_groups, slot_owners
from zvmplan_addin.recalc.index import CellIndex
from zvmplan_addin.recalc.install import install_functions

TEMPLATE = Path(__file__).resolve().parents[1] / "workbook" / "zvmplan_template.xlsx"


def test_slot_owners_are_worked_out_once_and_the_same_as_afresh():
    install_functions()
    book = xlsx.read_workbook(xlsx.safe_open_xlsx(str(TEMPLATE), parse_sheets=False))
    engine = E.Engine(book, None, None)
    engine.recalculate()
    index = CellIndex(engine.nodes, engine.results.spill_area)
    groups = column_groups(engine.nodes, engine.code, index,
                           cells_by_template(engine.code.template))
    slots = [s for g in groups for s in g.slots if s is not None and s[0] != "same"]
    assert len(slots) > 20
    for slot in slots:
        kept = slot_owners(index, slot)  # the group check's answer, kept
        assert slot_owners(index, slot) is kept
        fresh = _slot_owners(index, slot)
        assert kept.dtype == fresh.dtype and np.array_equal(kept, fresh)
        assert slot_owners(index, slot, last=True) is kept  # the order's ask lets it go
        assert id(slot) not in index._slot_owners
        again = slot_owners(index, slot, last=True)
        assert again is not kept and np.array_equal(again, fresh)


def test_a_long_slot_is_not_kept(monkeypatch):
    from zvmplan_addin.recalc import groups
    install_functions()
    book = xlsx.read_workbook(xlsx.safe_open_xlsx(str(TEMPLATE), parse_sheets=False))
    engine = E.Engine(book, None, None)
    engine.recalculate()
    index = CellIndex(engine.nodes, engine.results.spill_area)
    monkeypatch.setattr(groups, "KEEP_OWNERS", 0)
    found = column_groups(engine.nodes, engine.code, index, cells_by_template(engine.code.template))
    slot = next(s for g in found for s in g.slots if s is not None and s[0] != "same")
    first = slot_owners(index, slot)
    assert slot_owners(index, slot) is not first and not index.__dict__.get("_slot_owners")
    assert np.array_equal(first, _slot_owners(index, slot))
