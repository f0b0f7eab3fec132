"""Load the published numbers (``model/data/*.csv``) with their provenance.

Every file is named by its source document and table (``000_T1_...``) and starts
with ``#`` lines giving document, table, z/VM level, workload and the measured
configuration. Each row is one number as printed.

>>> r = find(table="Table 2", metric="cp_cpusec_per_mb", transport="IUCV", size_bytes=9000)[0]
>>> r.value, r.text, r.unit, r.file
(0.012367, '0.012367', 'CPU-s/MB', '000_T2_iucv_data_rates.csv')
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from operator import attrgetter, itemgetter
from pathlib import Path

DATA_DIR = Path(__file__).with_name("data")
#: published tables are named by their document (``000_...``); ``hw_*.csv`` hold device facts
PUBLISHED = "[0-9][0-9][0-9]_*.csv"


@dataclass(frozen=True)
class Record:
    """One published number with its provenance and measured configuration."""
    file: str
    document: str
    table: str
    row: str
    column: str
    value: float
    text: str
    unit: str
    metric: str
    transport: str
    workload: str
    level: str
    size_bytes: int | None
    connections: int | None
    accounting: str
    stat: str
    role: str

    @property
    def ref(self) -> str:
        """Short citation: document, table, row, column."""
        return f"{self.document[:3]} {self.table}, {self.row}, {self.column}"

    @property
    def half_ulp(self) -> float:
        """Half a unit in the last printed digit: the rounding tolerance of this number."""
        text = self.text.lstrip("+-")
        if "E" in text.upper():
            mant, exp = text.upper().split("E")
            decimals = len(mant.split(".")[1]) if "." in mant else 0
            return 0.5 * 10 ** (int(exp) - decimals)
        decimals = len(text.split(".")[1]) if "." in text else 0
        return 0.5 * 10 ** (-decimals)


def _headers(path: Path) -> dict[str, str]:
    with path.open(encoding="utf-8") as fh:
        return _parse_headers(fh)


def _parse_headers(lines) -> dict[str, str]:
    """The ``# key: value`` lines at the top of a data file, up to its first other line."""
    head = {}
    for line in lines:
        if not line.startswith("#"):
            break
        key, _, val = line[1:].strip().partition(": ")
        head[key] = val
    return head


@lru_cache(maxsize=None)
def headers() -> dict[str, dict[str, str]]:
    """Provenance header of every data file, by file name."""
    return {p.name: _headers(p) for p in sorted(DATA_DIR.glob(PUBLISHED))}


#: the columns of every published table, in the order :class:`Record` takes them
COLUMNS = ("table", "row", "column", "value", "text", "unit", "metric", "transport", "workload",
           "level", "size_bytes", "connections", "accounting", "stat", "role")


@lru_cache(maxsize=None)
def records() -> tuple[Record, ...]:
    """Every published number, in file order."""
    out = []
    for path in sorted(DATA_DIR.glob(PUBLISHED)):
        with path.open(encoding="utf-8") as fh:
            lines = fh.readlines()  # the header lines, then the table: each file read once
        body = csv.reader([line for line in lines if not line.startswith("#")])
        doc = _parse_headers(lines)["document"]
        name = path.name
        header = next(body)
        columns = itemgetter(*(header.index(c) for c in COLUMNS))  # by name, as DictReader
        for (table, row, column, value, text, unit, metric, transport, workload, level, size,
             conns, accounting, stat, role) in map(columns, body):
            out.append(Record(name, doc, table, row, column, float(value), text, unit, metric,
                              transport, workload, level, int(size) if size else None,
                              int(conns) if conns else None, accounting, stat, role))
    return tuple(out)


def find(**where) -> list[Record]:
    """Records whose attributes equal every keyword given (``document`` matches a prefix)."""
    return list(_find(tuple(sorted(where.items()))))


@lru_cache(maxsize=None)
def _index(attrs: tuple[str, ...]) -> dict:
    """The records keyed by their values of ``attrs``, each list in file order: built
    once per set of keywords asked, so a query reads only the records that match."""
    out: dict = {}
    key = attrgetter(*attrs)  # a tuple of the values for two or more names, else the value
    keys = map(key, records()) if len(attrs) > 1 else ((k,) for k in map(key, records()))
    for k, r in zip(keys, records()):
        out.setdefault(k, []).append(r)
    return out


@lru_cache(maxsize=None)
def _find(items: tuple) -> tuple[Record, ...]:
    where = dict(items)
    doc = where.pop("document", None)
    attrs = tuple(where)  # sorted by find()
    pool = _index(attrs).get(tuple(where.values()), ()) if attrs else records()
    return tuple(r for r in pool if doc is None or r.document.startswith(doc))


def one(**where) -> Record:
    found = find(**where)
    if len(found) != 1:
        raise LookupError(f"expected one record for {where}, found {len(found)}")
    return found[0]
