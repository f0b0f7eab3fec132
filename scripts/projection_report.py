"""Print how well zvmplan's projections reproduce the measured points they leave out,
the cost-fit parameters and residuals per transport, and the recomputed summary tables.

    python scripts/projection_report.py
"""
from __future__ import annotations

from zvmplan.tables import size_curve
from zvmplan.derived import summary_003
from zvmplan.tables import outlier_runs
from zvmplan.validation import loo_connections, loo_size, summary


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

    print("\nBands of projected answers (ZVM_RANGE) and their measured coverage: "
          "python scripts/band_coverage.py")
    print("\nOutlier runs (left out of the bands, flagged in every answer resting on them)")
    for key, why in outlier_runs().items():
        print(f"  {key}: {why}")


if __name__ == "__main__":
    main()
