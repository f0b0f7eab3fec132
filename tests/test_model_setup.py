"""The model's once-per-process work, done with less: the same numbers as the plain way.

``stats.t_quantile`` stops its bisection once a halving changes neither bound (the
remaining halvings of its 200 would change nothing); ``data.records`` reads each data
file once; ``data._index`` keys the records with ``operator.attrgetter``. Each is
compared here with the plain form it replaces, written out in the test, value by value
(floats by their ``repr``, so -0.0 and the last bit count)."""
from __future__ import annotations

import csv
import itertools

from zvmplan import data, stats


def _bisection_200(p, df):
    """``t_quantile`` as it was: 200 halvings, whatever happens."""
    lo, hi = -1e3, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2
        if stats.t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def test_t_quantile_is_the_200_halvings_float():
    """The 95% interval of 001's four samples uses t(0.975, 3) = 3.1824 (Student's t
    table); every p and df here gives the same float as all 200 halvings."""
    for p, df in itertools.product((0.5, 0.75, 0.9, 0.975, 0.995, 0.999, 0.025, 1e-4),
                                   (1, 2, 3, 4, 9, 29.5, 120)):
        assert repr(stats.t_quantile.__wrapped__(p, df)) == repr(_bisection_200(p, df))
    assert round(stats.t_quantile(0.975, 3), 4) == 3.1824


def _plain_records():
    out = []
    for path in sorted(data.DATA_DIR.glob(data.PUBLISHED)):
        doc = data._headers(path)["document"]
        with path.open(encoding="utf-8") as fh:
            for r in csv.DictReader(line for line in fh if not line.startswith("#")):
                out.append(data.Record(
                    file=path.name, document=doc, table=r["table"], row=r["row"],
                    column=r["column"], value=float(r["value"]), text=r["text"],
                    unit=r["unit"], metric=r["metric"], transport=r["transport"],
                    workload=r["workload"], level=r["level"],
                    size_bytes=int(r["size_bytes"]) if r["size_bytes"] else None,
                    connections=int(r["connections"]) if r["connections"] else None,
                    accounting=r["accounting"], stat=r["stat"], role=r["role"]))
    return out


def _fields(r):
    return [(k, type(v), repr(v)) for k, v in vars(r).items()]


def test_records_are_the_files_rows():
    plain = _plain_records()
    got = data.records()
    assert len(got) == len(plain) > 1000
    assert [_fields(r) for r in got] == [_fields(r) for r in plain]


def test_index_groups_as_getattr_does():
    """Every key of one, two and three of the record's fields: the same keys in the same
    order, each with the same records in file order."""
    names = list(vars(data.records()[0]))
    for n in (1, 2, 3):
        for attrs in itertools.combinations(names, n):
            plain: dict = {}
            for r in data.records():
                plain.setdefault(tuple(getattr(r, a) for a in attrs), []).append(r)
            got = data._index(attrs)
            assert list(got) == list(plain), attrs
            assert all(got[k] == plain[k] for k in plain), attrs
