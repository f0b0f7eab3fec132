"""Every published number comes back from the library, to the published digits.

Tests are named after the source table they check. Tolerances are half a unit in the
last printed digit (``Record.half_ulp``), propagated where a relation combines numbers.
"""
import math
from pathlib import Path

import pytest

import zvmplan
from zvmplan import data
from zvmplan.derived import (COMPARISON_TABLE, comparison_000, published_comparison_000,
                             stack_improvement, summary_003)
from zvmplan.stats import repeatable, welch_confidence

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"

# Numbers per data file, counted from the sources' tables (rows x columns).
EXPECTED_COUNTS = {
    "000_T1_cms_iucv_data_rates.csv": 21 * 5,      # 21 transfer sizes x 5 columns
    "000_T2_iucv_data_rates.csv": 3 * 5,           # 3 MTUs x 5 columns
    "000_T3_vctc_data_rates.csv": 3 * 5,
    "000_T4_mb_per_cpusec_comparisons.csv": 3 * 6,  # 3 MTUs x (3 values + 3 fractions)
    "000_T5_cp_cpusec_per_mb_comparisons.csv": 3 * 6,
    "000_T6_v_cpusec_per_mb_comparisons.csv": 3 * 6,
    "001_T1_lcs_fast_ccw.csv": 3 * 2 * 4 + 2 + 1 + 2 + 3,   # n/m/sd/r x 2 cases x 3 qty, cl+delta x2, cl, calc row
    "001_T2_escon_ctc_fast_ccw.csv": 3 * 2 * 4 + 2 * 3 + 3,
    "002_T1-T2_guest_lan_accounting.csv": 2 * 3 * 3,  # 2 tables x 3 workloads x (off, on, %)
    "003_T1_summary_pct_change.csv": 6 * 4,         # 6 device/workload rows x 4 metrics
    "004_stack_improvement_ranges.csv": (3 + 4 * 3) * 2 + 2,  # ranges (low, high) + CCW range
}
EXPECTED_COUNTS.update({f: 4 * 4 * 4 for f in data.headers() if f.startswith("003_T") and
                        "summary" not in f})  # 4 connection counts x 4 rows x 4 metrics


def test_record_counts_per_table():
    counts = {}
    for r in data.records():
        counts[r.file] = counts.get(r.file, 0) + 1
    assert counts == EXPECTED_COUNTS
    assert len(counts) == 29


def test_find_reads_the_same_records_as_a_scan_of_every_record():
    """data.find looks records up in an index per set of keywords; for queries of every
    kind the model makes (each key alone and in combination, numbers given as int or
    float, a document prefix, a value no record has) it returns exactly the records, in
    file order, that a scan comparing each attribute with == returns."""
    def scan(**where):
        doc = where.pop("document", None)
        return [r for r in data.records() if all(getattr(r, k) == v for k, v in where.items())
                and (doc is None or r.document.startswith(doc))]
    keysets = [("transport", "workload", "size_bytes", "connections", "level", "metric",
                "stat"), ("metric", "role", "size_bytes", "stat", "transport"),
               ("accounting", "metric", "stat", "workload"), ("table", "column"),
               ("transport",), ("size_bytes",)]
    queries = [{}, {"document": "00"}, {"transport": "NO SUCH"}, {"size_bytes": 1492.0},
               {"connections": 10.0, "document": "003"}]
    for r in data.records()[::15]:
        for keys in keysets:
            queries.append({k: getattr(r, k) for k in keys})
            queries.append({"document": r.document[:3], **{k: getattr(r, k) for k in keys}})
    for where in queries:
        assert data.find(**where) == scan(**dict(where)), where
    assert len(data.find()) == len(data.records())


def test_every_file_has_provenance_header():
    for name, head in data.headers().items():
        for key in ("document", "table", "z/VM level", "workload", "configuration", "units"):
            assert head.get(key), (name, key)
        assert head["document"].startswith(name[:3])  # files are named by their document


@pytest.mark.skipif(not SEEDS.is_dir(), reason="sources not beside the checkout")
def test_data_files_match_the_source_text():
    """Re-parse the source documents: the committed data files are exactly what they say."""
    from zvmplan import transcribe as mod
    stale = [name for name, file_spec in mod.extract(SEEDS).items()
             if (data.DATA_DIR / name).read_text(encoding="utf-8") != mod.render(name, file_spec)]
    assert stale == []
    # and each printed number really occurs in its document
    docs = {p.name: p.read_text(encoding="utf-8") for p in SEEDS.glob("*.txt")}
    missing = [r.ref for r in data.records()
               if r.text.lstrip("+") not in docs[r.document.split()[0]]]
    assert missing == []


def pct_change_tolerance(printed, new, base) -> float:
    """How far a printed % change may sit from (new / base - 1) x 100 computed from printed
    values: its own rounding plus the rounding of both operands, propagated."""
    return printed.half_ulp + 100 * (new.half_ulp / base.value +
                                     new.value * base.half_ulp / base.value ** 2)


# ---------------------------------------------------------------- 000 ----
STREAM_TABLES = {"Table 1": "CMS_IUCV", "Table 2": "IUCV", "Table 3": "VCTC"}


@pytest.mark.parametrize("rec", [r for r in data.find(document="000") if r.table in STREAM_TABLES],
                         ids=lambda r: f"{r.table}-{r.size_bytes}-{r.metric}")
def test_000_tables_1_to_3_exact(rec):
    ans = zvmplan.per_mb(rec.transport, rec.size_bytes, rec.metric)
    assert ans.value == rec.value
    assert ans.basis == "measured"
    assert rec.table in ans.sources[0]


@pytest.mark.parametrize("rec", data.find(document="000", table="Table 6", stat="value"),
                         ids=lambda r: f"T6-{r.transport}-{r.size_bytes}")
def test_000_table_6_exact(rec):
    assert zvmplan.per_mb(rec.transport, rec.size_bytes, "v_cpusec_per_mb").value == rec.value


@pytest.mark.parametrize("metric", list(COMPARISON_TABLE))
def test_000_tables_4_to_6_recomputed(metric):
    for mine, pub in zip(comparison_000(metric), published_comparison_000(metric)):
        for key in ("cms_iucv", "iucv", "ctc", "iucv_frac", "ctc_frac", "ctc_iucv_frac"):
            rec = pub[key]
            # fractions are computed by the source from unrounded values: allow the
            # rounding of the numerator and denominator as well as of the printed ratio
            tol = rec.half_ulp + (0.002 * rec.value if "frac" in key else 0)
            assert abs(mine[key] - rec.value) <= tol, (metric, mine["mtu"], key)


def test_000_tables_4_to_6_agree_to_the_printed_digits_but_two_cells():
    """Rounded to the printed digits, 52 of the 54 cells of 000 Tables 4-6 recompute exactly
    from Tables 1-3 and 6; two are off by one in the last digit, both 000 Table 5, column
    Linux/IUCV (fraction of CMS/IUCV): the source divided unrounded readings."""
    off, cells = {}, 0
    for metric in COMPARISON_TABLE:
        for mine, pub in zip(comparison_000(metric), published_comparison_000(metric)):
            for key in ("cms_iucv", "iucv", "ctc", "iucv_frac", "ctc_frac", "ctc_iucv_frac"):
                rec, cells = pub[key], cells + 1
                digits = len(rec.text.split(".")[1]) if "." in rec.text else 0
                mine_text = f"{mine[key]:.{digits}f}"
                if mine_text != rec.text:
                    off[(rec.table, mine["mtu"], rec.column)] = (rec.text, mine_text)
    assert cells == 54
    assert off == {("Table 5", 9000, "Linux/IUCV (fraction of CMS/IUCV)"): ("1.770", "1.769"),
                   ("Table 5", 32764, "Linux/IUCV (fraction of CMS/IUCV)"): ("1.796", "1.797")}


# The source computed each column from unrounded CP QUERY TIME readings, so its columns
# agree to rounding plus a little: 0.05% relative covers every row but one.
SOURCE_SLACK = 5e-4
# 000 Table 3, MTU 1500: %CP is printed 31.97, the same as the MTU 9000 row, while
# CP CPU-sec/MB x MB/CPU-sec = 0.053472 x 5.95 = 31.82%: most likely a slip in the source.
KNOWN_INCONSISTENT = {("Table 3", 1500): -0.482}


@pytest.mark.parametrize("table", list(STREAM_TABLES))
def test_000_relations(table):
    """MB/sec = MB/CPU-sec x CPU-sec/sec and CP CPU/MB = %CP / (MB/CPU-sec), within rounding."""
    recs = data.find(document="000", table=table)
    for size in sorted({r.size_bytes for r in recs}):
        g = {r.metric: r for r in recs if r.size_bytes == size}
        rate, eff, busy = g["mb_per_sec"], g["mb_per_cpusec"], g["cpusec_per_sec"]
        tol = rate.half_ulp + eff.half_ulp * busy.value + eff.value * busy.half_ulp
        assert abs(rate.value - eff.value * busy.value) <= tol + SOURCE_SLACK * rate.value
        cp, pct = g["cp_cpusec_per_mb"], g["pct_cp"]
        calc = pct.value / 100 / eff.value
        if (table, size) in KNOWN_INCONSISTENT:
            assert (cp.value / calc - 1) * 100 == pytest.approx(KNOWN_INCONSISTENT[table, size],
                                                                abs=0.001)
            continue
        tol = cp.half_ulp + pct.half_ulp / 100 / eff.value + calc * eff.half_ulp / eff.value
        assert abs(cp.value - calc) <= tol + SOURCE_SLACK * cp.value, (table, size)


# ---------------------------------------------------------------- 001 ----
@pytest.mark.parametrize("transport", ["LCS", "ESCON_CTC"])
def test_001_means_and_derived_rows(transport):
    for level in ("3.1.0", "4.1.0"):
        cp = data.one(document="001", transport=transport, metric="cp_cpusec", level=level,
                      stat="mean")
        tot = data.one(document="001", transport=transport, metric="tot_cpusec", level=level,
                       stat="mean")
        io = data.one(document="001", transport=transport, metric="io_count", level=level,
                      stat="mean")
        assert zvmplan.per_mb(transport, 1500, "cp_cpusec_per_mb", level).value == \
            pytest.approx(cp.value / 500, rel=1e-12)
        assert zvmplan.per_mb(transport, 1500, "tot_cpusec_per_mb", level).value == \
            pytest.approx(tot.value / 500, rel=1e-12)
        per_io = data.one(document="001", transport=transport, metric="cp_cpusec_per_io",
                          level=level)
        assert abs(cp.value / io.value - per_io.value) <= per_io.half_ulp
        for met in ("cp_cpusec", "tot_cpusec", "io_count"):
            n, m, sd = (data.one(document="001", transport=transport, metric=met, level=level,
                                 stat=s).value for s in ("n", "mean", "sd"))
            r = data.one(document="001", transport=transport, metric=met, level=level, stat="r")
            assert repeatable(int(n), m, sd) == (r.value == 1)


@pytest.mark.parametrize("rec", data.find(document="001", stat="delta_pct"),
                         ids=lambda r: f"{r.transport}-{r.metric}")
def test_001_percent_changes(rec):
    if rec.metric == "cp_cpusec_per_io":
        dis = data.one(document="001", transport=rec.transport, metric=rec.metric, level="3.1.0")
        ena = data.one(document="001", transport=rec.transport, metric=rec.metric, level="4.1.0")
    else:
        dis, ena = (data.one(document="001", transport=rec.transport, metric=rec.metric,
                             level=lvl, stat="mean") for lvl in ("3.1.0", "4.1.0"))
    change = (ena.value / dis.value - 1) * 100
    if (rec.transport, rec.metric) == ("LCS", "cp_cpusec_per_io"):
        # printed -39.4%; its own row (3.167E-05 -> 1.922E-05) and the means both give -39.31%
        assert change == pytest.approx(-39.31, abs=0.01) and rec.value == -39.4
        return
    assert abs(change - rec.value) <= pct_change_tolerance(rec, ena, dis)


@pytest.mark.parametrize("rec", data.find(document="001", stat="cl"),
                         ids=lambda r: f"{r.transport}-{r.metric}")
def test_001_t_test_confidence(rec):
    s = {(lvl, st): data.one(document="001", transport=rec.transport, metric=rec.metric,
                              level=lvl, stat=st).value
         for lvl in ("3.1.0", "4.1.0") for st in ("n", "mean", "sd")}
    conf = welch_confidence(*(s[("3.1.0", k)] for k in ("n", "mean", "sd")),
                            *(s[("4.1.0", k)] for k in ("n", "mean", "sd")))
    if rec.value == 99:
        assert conf >= 99
    else:  # the source prints cl=0 where the means do not differ significantly
        assert rec.value == 0 and conf < 95


def test_001_confidence_interval_contains_mean():
    lo, hi = zvmplan.confidence_interval("ESCON_CTC", "cp_cpusec_per_mb", "3.1.0")
    assert lo < 14.64 / 500 < hi
    # t(0.975, 3) = 3.1824: half-width = 3.1824 * 0.1901 / 2
    assert (hi - lo) / 2 * 500 == pytest.approx(3.18245 * 0.1901 / 2, rel=1e-4)


# ---------------------------------------------------------------- 002 ----
@pytest.mark.parametrize("rec", data.find(document="002", stat="value", accounting="ON"),
                         ids=lambda r: f"{r.table}-{r.workload}")
def test_002_accounting_on_is_the_430_guest_lan_value(rec):
    ans = zvmplan.per_tx("GUEST_LAN", rec.workload, 57344, 50, rec.metric, "4.3.0")
    assert ans.value == rec.value and ans.basis == "measured"


@pytest.mark.parametrize("rec", data.find(document="002", stat="delta_pct"),
                         ids=lambda r: f"{r.table}-{r.workload}")
def test_002_percent_changes(rec):
    on, off = (data.one(document="002", workload=rec.workload, metric=rec.metric, accounting=a,
                        stat="value") for a in ("ON", "OFF"))
    change = (on.value / off.value - 1) * 100
    if (rec.table, rec.workload) == ("Table 1", "RR"):
        # printed -0.1%; 15998.35 -> 15844.28 tx/s is -0.96%: a slip in the source
        assert change == pytest.approx(-0.963, abs=0.001) and rec.value == -0.1
        return
    assert abs(change - rec.value) <= pct_change_tolerance(rec, on, off)


# ---------------------------------------------------------------- 003 ----
@pytest.mark.parametrize("rec", data.find(document="003", stat="value"),
                         ids=lambda r: f"{r.table}-{r.connections}-{r.level}-{r.metric}")
def test_003_tables_2_to_19_exact(rec):
    ans = zvmplan.per_tx(rec.transport, rec.workload, rec.size_bytes, rec.connections, rec.metric,
                         rec.level)
    assert ans.value == rec.value
    assert ans.basis == "measured"


def _pair(rec):
    return [data.one(document="003", table=rec.table, connections=rec.connections,
                     metric=rec.metric, level=lvl) for lvl in ("4.3.0", "4.4.0")]


@pytest.mark.parametrize("rec", data.find(document="003", stat="delta"),
                         ids=lambda r: f"{r.table}-{r.connections}-{r.metric}")
def test_003_delta_rows(rec):
    base, new = _pair(rec)
    assert abs((new.value - base.value) - rec.value) <= rec.half_ulp + 2 * base.half_ulp


@pytest.mark.parametrize("rec", data.find(document="003", stat="delta_pct"),
                         ids=lambda r: f"{r.table}-{r.connections}-{r.metric}")
def test_003_percent_delta_rows(rec):
    base, new = _pair(rec)
    change = (new.value / base.value - 1) * 100
    assert abs(change - rec.value) <= pct_change_tolerance(rec, new, base)


def test_003_table_1_recomputed():
    """Table 1 is the mean of the detailed %delta cells, to its printed whole percent --
    except HiperSockets STRG tx/sec, where one 1-connection MTU 32768 run changed by +175%:
    the mean is +15.7%, the source prints +6%. Documented in README."""
    rows = summary_003()
    assert len(rows) == 24
    for row in rows:
        if (row["transport"], row["workload"], row["metric"]) == ("HIPERSOCKETS", "STRG",
                                                                   "tx_per_sec"):
            assert row["recomputed_pct"] == pytest.approx(15.68, abs=0.01)
            continue
        assert abs(row["difference_pts"]) <= 0.5 + 1e-9, row


# ---------------------------------------------------------------- 004 ----
def test_004_stack_ranges():
    assert stack_improvement("HIPERSOCKETS", "STRG") == {
        "throughput_increase": (8.0, 58.0), "cpu_per_unit_decrease": (14.0, 45.0)}
    assert stack_improvement("VCTC", "RR")["throughput_increase"] == (11.0, 12.0)
    # CLAW is no zvmplan transport, so its ranges are checked in the data: the single
    # figure "RR: 2% increase" is a range of width zero
    claw = data.find(document="004", transport="CLAW", workload="RR")
    assert sorted((r.stat, r.value) for r in claw) == [
        ("throughput_increase_high_pct", 2.0), ("throughput_increase_low_pct", 2.0)]
    with pytest.raises(zvmplan.NoDataError):
        stack_improvement("OSA_GBE", "RR")


def test_half_ulp():
    rec = data.one(document="000", table="Table 2", size_bytes=9000, metric="cp_cpusec_per_mb")
    assert rec.half_ulp == pytest.approx(5e-7)
    assert math.isclose(data.one(document="001", transport="LCS", metric="cp_cpusec_per_io",
                                 level="3.1.0").half_ulp, 5e-9)
