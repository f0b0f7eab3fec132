"""``zvmplan export-lite OUTDIR``: main.py and requirements.txt for xlwings Lite.

A plugin of :mod:`zvmplan_addin.cli` (listed in its ``PLUGINS``; registers through
:mod:`zvmplan_addin.commands`); the exporter itself is
:mod:`zvmplan_addin.lite`, imported only when the command runs.
"""
from __future__ import annotations

import argparse

from .commands import Command, register


def _args(p: argparse.ArgumentParser) -> None:
    p.add_argument("outdir", metavar="OUTDIR",
                   help="folder to write main.py and requirements.txt into (created if missing)")


def _run(args: argparse.Namespace) -> int:
    from .lite import NAMESPACE, export_lite
    for path in export_lite(args.outdir).values():
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    print(f"In Excel: open the xlwings Lite editor, replace its main.py and requirements.txt "
          f"with these two files, restart it, then type ={NAMESPACE}.CPCPU_PER_MB(\"IUCV\",9000)")
    return 0


register(Command("export-lite", "write main.py and requirements.txt for xlwings Lite "
                 "(the worksheet functions, self-contained)", _args, _run))
