"""Print how well zvmplan's projections reproduce the measured points they leave out,
the cost-fit parameters and residuals per transport, and the recomputed summary tables.

    python scripts/projection_report.py
"""
from __future__ import annotations

from zvmplan.tables import size_curve
from zvmplan.derived import summary_003
from zvmplan.tables import outlier_runs
from zvmplan.validation import (BAND_SIZE_METRICS, conn_errors, loo_connections, loo_size,
                                 mtu_errors, size_errors, spread, summary)


def main():
    print("Leave-one-out over transfer size, 000 Table 1 (CMS_IUCV), |error| %  [target: median <= 5, max <= 15]")
    for metric, (med, mx) in summary(loo_size("CMS_IUCV")).items():
        print(f"  {metric:18s} median {med:6.2f}  max {mx:6.2f}")
    print("\nLeave-one-out over connections, 003 (predict 10 and 20 from 1, 20/10, 50), |error| %"
          "  [target: median <= 5, max <= 25]")
    for metric, (med, mx) in summary(loo_connections()).items():
        print(f"  {metric:18s} median {med:6.2f}  max {mx:6.2f}")
    print("\nCost fit per transport: CPU-s/MB = per_byte + per_message / size_bytes")
    for t in ("CMS_IUCV", "IUCV", "VCTC"):
        c = size_curve(t)
        for label, fit in (("CP", c.cp_fit), ("virtual", c.v_fit)):
            res = ", ".join(f"{r:+.1f}" for r in fit.residuals_pct)
            print(f"  {t:9s} {label:7s} per_byte {fit.per_byte:.6g} CPU-s/MB, per_message "
                  f"{fit.per_message:.6g} CPU-s/MB x bytes; residuals % [{res}]")
    print("\n003 Table 1 recomputed (mean of the detailed %delta cells) vs published")
    for r in summary_003():
        flag = "" if abs(r["difference_pts"]) <= 0.5 else "   <- differs"
        print(f"  {r['transport']:12s} {r['workload']:4s} {r['metric']:18s} "
              f"{r['recomputed_pct']:+7.2f}  published {r['published'].text:>5s}{flag}")

    print("\nBands of projected answers (ZVM_RANGE): signed leave-one-out errors, % "
          "[low, high]; each band contains all n held-out values")
    for t in ("CMS_IUCV", "IUCV", "VCTC"):
        e = size_errors(t)
        for m in BAND_SIZE_METRICS:
            i = spread([e[m]["interp"]])
            x = spread([e[m]["interp"], e[m]["extrap"]])
            print(f"  {t:12s} {m:18s} between sizes [{100 * i[0]:+6.1f}, {100 * i[1]:+6.1f}] "
                  f"n={len(e[m]['interp'])}; beyond [{100 * x[0]:+6.1f}, {100 * x[1]:+6.1f}]")
    for t in ("OSA_GBE", "HIPERSOCKETS"):
        for w in ("RR", "CRR", "STRG"):
            ce, me = conn_errors(t, w), mtu_errors(t, w)
            for m, d in ce.items():
                c, f = spread([d["interp"]]), spread([d["flat"]])
                u = spread([me[m]]) if m in me else None
                mt = f"[{100 * u[0]:+6.1f}, {100 * u[1]:+6.1f}]" if u else "two MTUs: neighbours"
                print(f"  {t:12s} {w:4s} {m:18s} connections [{100 * c[0]:+6.1f}, "
                      f"{100 * c[1]:+6.1f}]; flat [{100 * f[0]:+6.1f}, {100 * f[1]:+6.1f}]; MTU {mt}")
    print("\nOutlier runs (left out of the bands, flagged in every answer resting on them)")
    for key, why in outlier_runs().items():
        print(f"  {key}: {why}")


if __name__ == "__main__":
    main()
