"""Write the xlwings Lite export (main.py + requirements.txt) into a folder.

    python build/export_lite.py OUTDIR        # same as: zvmplan export-lite OUTDIR

The exporter lives in the installed package (:mod:`zvmplan_addin.lite`) so that the
``zvmplan`` command can run it; build/ is not an installed package. This script is
kept for people who look in build/ for build steps.
"""
import sys

from zvmplan_addin.lite import export_lite, main

__all__ = ["export_lite"]

if __name__ == "__main__":
    sys.exit(main())
