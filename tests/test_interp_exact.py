"""The model's scalar fast paths give the same float, bit for bit, as the array paths.

:func:`zvmplan.interp.pchip` answers one query point in Python floats
(:func:`zvmplan.interp._pchip_one`) and :class:`zvmplan.curves.SizeCurve` and
:class:`zvmplan.curves.ConnGrid` evaluate one size or one (MTU, connections) without
numpy's per-call cost; each must give exactly what the vectorised numpy path gives, on
every published curve and on hostile shapes (flat, sign changes, two points, steps of
very different widths). Compared with ``repr`` (bit for bit), never approximately.
"""
import numpy as np
import pytest

from zvmplan import interp
from zvmplan.curves import ConnGrid
from zvmplan.tables import STREAM_TRANSPORTS, conn_grid, size_curve


def _array_path(x, y, q):
    """The numpy path of :func:`interp.pchip` for one curve and one query."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    return float(interp._pchip_columns(x, y[:, None], np.array([float(q)]), np.zeros(1, int))[0])


def _queries(x):
    """Every knot, points between and near knots, and the ends."""
    x = list(map(float, x))
    out = list(x)
    for a, b in zip(x, x[1:]):
        out += [a + (b - a) * f for f in (1e-12, 0.1, 0.25, 1 / 3, 0.5, 0.7, 0.999999)]
    return out


def _curves():
    """(x, y) of every curve the model interpolates (logs, as the model uses them) and
    of hostile shapes."""
    out = []
    for t in STREAM_TRANSPORTS:
        c = size_curve(t)
        out += [(c._logs, c._log_cp), (c._logs, c._log_v), (c._logs, c.cpusec_per_sec)]
    for t, w, lvl in (("OSA_GBE", "RR", "4.4.0"), ("OSA_GBE", "CRR", "4.3.0"),
                      ("HIPERSOCKETS", "RR", "4.4.0"), ("HIPERSOCKETS", "STRG", "4.3.0"),
                      ("HIPERSOCKETS", "CRR", "4.3.0")):
        g = conn_grid(t, w, lvl)
        for met, by_mtu in g.values.items():
            for m, y in by_mtu.items():
                out.append((np.log(g.conns[m]), np.log(y)))
            out.append((np.log(g.mtus), np.log([by_mtu[m][-1] for m in g.mtus])))
    rng = np.random.default_rng(19)
    out += [([0., 1.], [3., -2.]), ([0., 1., 2.], [0., 1., 1.]), ([0., 1., 2., 3.], [1., 1., 1., 1.]),
            ([0., 1., 2., 3.], [0., 2., -1., 5.]), ([0., 1e-9, 1., 1e6], [1., 2., 2., -7.]),
            ([-3., -1., 0., 4., 4.5], [5., 5., 0., 0., 1.])]
    for n in (2, 3, 4, 6, 10):
        for _ in range(20):
            x = np.cumsum(rng.exponential(1.0, n)) - 1.0
            out.append((x, rng.normal(0, 1, n) * 10.0 ** rng.integers(-3, 4)))
    return out


def test_pchip_one_point_is_the_array_path_bit_for_bit():
    checked = 0
    for x, y in _curves():
        for q in _queries(x):
            one = interp._pchip_one(list(map(float, x)), list(map(float, y)), q)
            assert one is not None
            assert repr(one) == repr(_array_path(x, y, q)), (list(x), list(y), q)
            assert repr(float(interp.pchip(x, y, q))) == repr(one)
            assert repr(interp.pchip(x, y, np.array([q])).tolist()) == repr([one])
            checked += 1
    assert checked > 2000


def test_pchip_one_point_leaves_non_finite_and_repeated_knots_to_numpy():
    """A repeated knot (a zero step) or a non-finite value: the array path decides."""
    assert interp._pchip_one([0.0, 0.0, 1.0], [1.0, 2.0, 3.0], 0.5) is None
    assert interp._pchip_one([0.0, 1.0, 2.0], [1.0, np.inf, 3.0], 0.5) is None
    with np.errstate(all="ignore"):
        assert np.isnan(interp.pchip(np.array([0.0, 1.0, 2.0]), np.array([1.0, np.nan, 3.0]), 0.5))


@pytest.mark.parametrize("transport", STREAM_TRANSPORTS)
def test_size_curve_one_size_is_the_array_path_bit_for_bit(transport):
    curve = size_curve(transport)
    lo, hi = curve.valid
    sizes = sorted(set(_queries(curve.sizes)) | {lo, hi, (lo + curve.sizes[0]) / 2,
                                                  (hi + curve.sizes[-1]) / 2})
    sizes = [s for s in sizes if lo <= s <= hi]
    many, basis = curve.evaluate(np.array(sizes))
    for k, s in enumerate(sizes):
        one, code = curve.evaluate_one(s)
        assert code == int(basis[k])
        assert {m: repr(v) for m, v in one.items()} == \
            {m: repr(float(v[k])) for m, v in many.items()}, s


def _grid_reference(grid: ConnGrid, metric, mtu, conns):
    """ConnGrid.evaluate as the array code computed it before its float fast path."""
    by_mtu = grid.values[metric]
    vals, cbasis = [], 0
    for m in grid.mtus:
        c, y = grid.conns[m], by_mtu[m]
        if conns in c:
            vals.append(float(y[np.searchsorted(c, conns)]))
        elif conns > c[-1]:
            vals.append(float(y[-1]))
            cbasis = 2
        else:
            x, yy = np.log(c), np.log(y)
            vals.append(float(np.exp(interp._pchip_columns(
                x, yy[:, None], np.array([np.log(conns)]), np.zeros(1, int))[0])))
            cbasis = max(cbasis, 1)
    if mtu in grid.mtus:
        return vals[int(np.searchsorted(grid.mtus, mtu))], 0, cbasis
    x, yy = np.log(grid.mtus), np.log(vals)
    value = float(np.exp(interp._pchip_columns(x, yy[:, None], np.array([np.log(mtu)]),
                                               np.zeros(1, int))[0]))
    return value, 1, cbasis


@pytest.mark.parametrize("transport,workload,level", [
    ("OSA_GBE", "RR", "4.4.0"), ("OSA_GBE", "STRG", "4.3.0"), ("HIPERSOCKETS", "CRR", "4.4.0"),
    ("HIPERSOCKETS", "STRG", "4.3.0"), ("GUEST_LAN", "RR", "4.4.0")])
def test_conn_grid_evaluate_is_the_array_path_bit_for_bit(transport, workload, level):
    grid = conn_grid(transport, workload, level)
    counts = sorted({float(c) for cs in grid.conns.values() for c in cs})
    counts = sorted(set(counts) | {c + 1 for c in counts} | {counts[-1] * 3})
    counts = [c for c in counts if c >= max(cs[0] for cs in grid.conns.values())]
    for metric in grid.values:
        for mtu in _queries(grid.mtus):
            for c in counts:
                got = grid.evaluate(metric, mtu, c)
                assert repr(got) == repr(_grid_reference(grid, metric, mtu, c)), (metric, mtu, c)
