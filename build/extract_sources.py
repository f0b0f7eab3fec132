"""Transcribe the numeric tables of the IBM sources into zvmplan's data files::

    python build/extract_sources.py ../shared/seeds model/data

The parser is :mod:`zvmplan.transcribe` (in the package, so the tests re-run it against the
sources without importing from build/); each data file's header names this command.
"""
from zvmplan.transcribe import main

if __name__ == "__main__":
    main()
