"""Writing packages: the calculator's copy-with-changes and the template's reproducible build.

Both go through :func:`~.output.atomic_output` (a regular file or nothing, atomically,
cleaned up on signals). :func:`write_package` copies an opened input package with some
parts replaced (recalculated sheets), the calculation chain dropped and ``<calcPr>``
adjusted; :func:`write_zip` writes given parts with one fixed timestamp, so rebuilding
the template gives the same bytes.
"""
from __future__ import annotations

import datetime as dt
import os
import zipfile

from .output import atomic_output
from .package import XlsxPackage, check_output_name, rels_name
from .rewrite import REL_CALC_CHAIN, remove_elements, rewrite_workbook


def drop_calc_chain(pkg: XlsxPackage, replaced: dict[str, bytes]) -> set[str]:
    """Remove xl/calcChain.xml and the two references to it (Excel rebuilds it); returns
    the parts to leave out."""
    chain = [(rid, t) for rid, rtype, t in pkg.rels(pkg.main) if rtype.endswith(REL_CALC_CHAIN)]
    if not chain:
        return set()
    name = rels_name(pkg.main)
    ids = {rid for rid, _ in chain}
    replaced[name] = remove_elements(replaced.get(name, pkg.read(name)), name, "Relationship",
                                     lambda a: a.get("Id") in ids)
    targets = {"/" + t for _, t in chain}
    ct = "[Content_Types].xml"
    replaced[ct] = remove_elements(replaced.get(ct, pkg.read(ct)), ct, "Override",
                                   lambda a: a.get("PartName") in targets)
    return {t for _, t in chain}


def write_package(pkg: XlsxPackage, out_path: str, replaced: dict[str, bytes],
                  full_calc_on_load: bool = False) -> None:
    """Write the package to ``out_path`` (atomically) with ``replaced`` parts swapped in,
    calcChain dropped and calcPr adjusted. ``pkg`` is closed before the move."""
    check_output_name(pkg, out_path)
    replaced = dict(replaced)
    skip = drop_calc_chain(pkg, replaced)
    replaced[pkg.main] = rewrite_workbook(replaced.get(pkg.main, pkg.read(pkg.main)),
                                          full_calc_on_load)
    with atomic_output(out_path, before_replace=pkg.close) as fh:
        with zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as zout:
            for info in pkg.zip.infolist():
                if info.filename in skip:
                    continue
                data = replaced.get(info.filename)
                if data is None:
                    data = pkg.read(info.filename)
                    pkg.forget(info.filename)
                new = zipfile.ZipInfo(info.filename, date_time=info.date_time)
                new.compress_type = info.compress_type
                new.external_attr = info.external_attr
                new.create_system = info.create_system
                new.comment = info.comment
                zout.writestr(new, data)


def write_zip(path, entries: list[tuple[str, bytes]], when: dt.datetime) -> None:
    """Write ``entries`` (name, bytes) atomically with one fixed timestamp and fixed
    permissions: the same entries give the same bytes."""
    with atomic_output(os.fspath(path)) as fh:
        with zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in entries:
                info = zipfile.ZipInfo(name, date_time=when.timetuple()[:6])
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                z.writestr(info, data)
