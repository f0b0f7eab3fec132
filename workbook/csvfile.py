"""Reading the CSV files spreadsheets write: encodings, separators, decimal marks.

Accepted, and how each is recognised (nothing is guessed silently):

* **Encoding.** A byte-order mark decides: UTF-8 (Excel's "CSV UTF-8") or UTF-16 (Excel's
  "Unicode text", tab-separated). Without one the file must be UTF-8; if it is not, it is
  read as Windows-1252 (Excel's "CSV (Comma delimited)" on Windows, "Zürich" as byte
  0xFC) **with a warning** that shows the first text read that way, so a planner can check
  it. Bytes that are neither, or NUL bytes (UTF-16 without its mark), are refused with
  the line.
* **Separator.** The one of ``,`` ``;`` tab that splits the header row into known column
  names, or the one Excel's ``sep=;`` line before the header names. (:class:`csv.Sniffer` guesses from how often characters repeat, and a
  ``;``-separated file full of decimal commas fools it; the header is text we know.)
* **Decimal mark.** A comma-separated file uses a decimal point (a comma in a number can
  only group thousands: ``1,500``; ``1,5`` is refused as ambiguous). A ``;``- or
  tab-separated file may use either (European Excel writes ``1,5``): the mark is the one
  under which every number of the file reads; when both read and some number means
  different things under each (``1.500``: 1.5 or 1500?), that number is refused.

Every refusal is one line naming the file, the line and the column.
"""
from __future__ import annotations

import codecs
import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

#: Excel's limit on the characters of one cell
MAX_CELL = 32_767
#: largest input file read [bytes]; far beyond any plan (10,000 links are under 1 MB)
MAX_BYTES = 64 * 2**20
SEPARATORS = (",", ";", "\t")
_SEP_NAME = {",": "comma", ";": "semicolon", "\t": "tab"}
_LINES = re.compile(r"\r\n|\r|\n")  # the line ends the csv module knows


class BadInput(ValueError):
    """One line: a file that cannot be read as asked."""


@dataclass
class Table:
    """A CSV file's rows as text, by column key, with where each came from."""
    path: Path
    encoding: str
    separator: str
    header_line: int
    columns: dict[str, int]                 # key -> 0-based column index
    rows: list[tuple[int, dict[str, str]]]  # (line, {key: text})
    warnings: list[str] = field(default_factory=list)


# -------------------------------------------------------------- encoding ----
def decode(path: Path) -> tuple[str, str, str | None]:
    """(text, encoding, warning or None) for the bytes of ``path``."""
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise BadInput(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(data) > MAX_BYTES:
        raise BadInput(f"{path.name}: larger than {MAX_BYTES // 2**20} MB; not a links file")
    if data.startswith(codecs.BOM_UTF8):
        return _strict(path, data, "utf-8-sig", "UTF-8"), "UTF-8", None
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _strict(path, data, "utf-16", "UTF-16"), "UTF-16", None
    if b"\0" in data:
        nul = data.index(b"\0")
        raise BadInput(f"{path.name} line {_line(data, nul)}: NUL bytes; UTF-16 "
                       "without a byte-order mark, or not a text file (save as CSV UTF-8)")
    try:
        return data.decode("utf-8"), "UTF-8", None
    except UnicodeDecodeError as exc:
        bad = exc.start
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{path.name} line {_line(data, bad)}: neither UTF-8 nor Windows-1252 "
                       f"(byte 0x{data[exc.start]:02X} on line {_line(data, exc.start)}); "
                       "save it as CSV UTF-8") from None
    line = _line(data, bad)
    sample = _LINES.split(text)[line - 1]
    word = next((m.group(0) for m in re.finditer(r"\S*[^\x00-\x7f]\S*", sample)), sample)
    return text, "Windows-1252", (
        f"{path.name}: not UTF-8 (line {line}); read as Windows-1252, as Excel's "
        f"\"CSV (Comma delimited)\" writes on Windows: {word[:40]!r}. If that is wrong, "
        "save the file as \"CSV UTF-8\"")


def _strict(path: Path, data: bytes, codec: str, name: str) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        raise BadInput(f"{path.name} line {_line(data, exc.start)}: invalid {name} "
                       f"(byte offset {exc.start}); the file starts with a {name} "
                       "byte-order mark") from None


def _line(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


# ---------------------------------------------------------------- header ----
def normalise(heading: str) -> str:
    """A heading as matched: case, spacing and a trailing ``[unit]`` do not matter."""
    text = " ".join(heading.split()).lower()
    return re.sub(r"\s*\[[^\]]*\]$", "", text)


def read_table(path, aliases: dict[str, str], required: tuple[str, ...]) -> Table:
    """Decode, find the header and separator, and return every non-blank row as text.

    ``aliases`` maps each accepted heading (:func:`normalise`-d) to a column key.
    """
    path = Path(path)
    text, encoding, warning = decode(path)
    lines = _LINES.split(text)
    head_i = next((i for i, ln in enumerate(lines) if ln.strip(" \t,;")), None)
    keys = sorted(set(aliases.values()), key=list(aliases.values()).index)
    if head_i is None:
        raise BadInput(f"{path.name}: empty file; expected a header row with {', '.join(keys)}")
    head_line = head_i + 1
    hint = re.fullmatch(r'"?sep=(.)"?,*;*', lines[head_i].strip(), re.IGNORECASE)
    if hint:  # Excel's own separator line ("sep=;"), before the header
        if hint.group(1) not in SEPARATORS:
            raise BadInput(f"{path.name} line {head_line}: separator {hint.group(1)!r}; "
                           "accepted: comma, semicolon, tab")
        head_i = next((i for i, ln in enumerate(lines) if i > head_i and ln.strip(" \t,;")),
                      None)
        if head_i is None:
            raise BadInput(f"{path.name}: no header row after line {head_line} "
                           f"({lines[head_line - 1].strip()!r})")
        head_line = head_i + 1
    sep = hint.group(1) if hint else _separator(lines[head_i], aliases)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, strict=True)
    rows: list[tuple[int, list[str]]] = []
    try:
        for cells in reader:
            if reader.line_num < head_line:
                continue
            rows.append((reader.line_num, cells))
    except csv.Error as exc:
        msg = str(exc)
        if "end of data" in msg or "EOF" in msg:
            start = rows[-1][0] + 1 if rows else head_line
            msg = f"a quoted value opened on line {start} or after is never closed"
        elif "field larger" in msg:
            msg = f"a value longer than {csv.field_size_limit():,} characters (Excel's cell " \
                  f"limit is {MAX_CELL:,})"
        raise BadInput(f"{path.name} line {reader.line_num}: {msg}") from None
    header = rows.pop(0)[1]
    columns = _columns(path, head_line, header, aliases, keys, sep)
    missing = [c for c in required if c not in columns]
    if missing:
        raise BadInput(f"{path.name} line {head_line}: missing column(s) {', '.join(missing)} "
                       f"({_SEP_NAME[sep]}-separated)")
    width = len(header)
    out = []
    for n, (line, cells) in enumerate(rows):
        if not any(c.strip() for c in cells):
            continue
        if n == 0 and all(c.strip().startswith("[") and c.strip().endswith("]")
                          for c in cells if c.strip()):
            continue  # the Planner's unit row, copied with its headings
        if any(c.strip() for c in cells[width:]):
            raise BadInput(f"{path.name} line {line}: {len(cells)} values for {width} columns "
                           f"({_SEP_NAME[sep]}-separated)")
        for i, c in enumerate(cells[:width]):
            if c.strip() and i not in columns.values():
                raise BadInput(f"{path.name} line {line}, column {i + 1}: a value "
                               f"({c.strip()[:20]!r}) under no heading")
        row = len(out) + 1
        values = {k: cells[i].strip() if i < len(cells) else "" for k, i in columns.items()}
        for k, text in values.items():  # the place named only for a value refused
            if len(text) > MAX_CELL or _CONTROL.search(text):
                _text(where(path, row, line, k), text)
        out.append((line, values))
    return Table(path, encoding, sep, head_line, columns, out, [warning] if warning else [])


def _separator(line: str, aliases: dict[str, str]) -> str:
    def known(sep):
        return sum(normalise(c) in aliases for c in next(csv.reader([line], delimiter=sep)))
    return max(SEPARATORS, key=known)  # on a tie the first: the comma


def _columns(path, line, header, aliases, keys, sep) -> dict[str, int]:
    import difflib
    columns: dict[str, int] = {}
    for i, h in enumerate(header):
        if not h.strip():
            continue  # a column without a heading may only hold blanks (checked by row)
        key = aliases.get(normalise(h))
        if key is None:
            close = difflib.get_close_matches(normalise(h), list(aliases), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise BadInput(f"{path.name} line {line}, column {i + 1}: unknown column {h!r}; "
                           f"{hint}valid: {', '.join(keys)} ({_SEP_NAME[sep]}-separated)")
        if key in columns:
            raise BadInput(f"{path.name} line {line}, columns {columns[key] + 1} and {i + 1}: "
                           f"both are {key!r} ({header[columns[key]]!r}, {h!r})")
        columns[key] = i
    return columns


def where(path: Path, row: int, line: int, column: str) -> str:
    """``links.csv row 2 (line 3), column load``: row counts data rows from 1."""
    return f"{path.name} row {row} (line {line}), column {column}"


#: a character no cell here may hold: Unicode's control characters (category Cc,
#: U+0000-U+001F and U+007F-U+009F), surrogates (Cs) and the noncharacters U+FFFE, U+FFFF
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _text(at: str, text: str) -> str:
    if len(text) > MAX_CELL:
        raise BadInput(f"{at}: {len(text):,} characters; Excel's limit for a cell is "
                       f"{MAX_CELL:,}")
    bad = _CONTROL.search(text)
    if bad:
        raise BadInput(f"{at}: control character "
                       f"U+{ord(bad.group(0)):04X} in {text[:40]!r}; a cell here is one line of "
                       "printable text")
    return text


# -------------------------------------------------------------- numbers ----
_INT = {".": r"[0-9]+|[0-9]{1,3}(?:,[0-9]{3})+",
        ",": r"[0-9]+|[0-9]{1,3}(?:[.\u00a0\u202f ][0-9]{3})+"}
_NUMBER = {m: re.compile(rf"([+-]?)({g})?(?:\{m}([0-9]*))?((?:[eE][+-]?[0-9]+)?)")
           for m, g in _INT.items()}


def parse_number(text: str, mark: str) -> float | None:
    """``text`` as a number with decimal mark ``mark`` ("." or ","), or None.

    Digits are ASCII 0-9 only; thousands are grouped by threes (``,`` with a decimal point;
    ``.`` or a space with a decimal comma); an exponent is allowed (Excel writes ``1E+12``).
    """
    m = _NUMBER[mark].fullmatch(text.strip())
    if m is None or not (m.group(2) or m.group(3)):
        return None
    whole = re.sub(r"[^0-9]", "", m.group(2) or "0")
    return float(f"{m.group(1)}{whole}.{m.group(3) or '0'}{m.group(4)}")


def decimal_mark(table_name: str, separator: str, cells: list[tuple[str, str]]) -> str:
    """The decimal mark of a file, from every number cell ``(where, text)`` in it."""
    if separator == ",":
        return "."
    valid = {m: [parse_number(t, m) for _, t in cells] for m in (".", ",")}
    ok = [m for m in (".", ",") if all(v is not None for v in valid[m])]
    if len(ok) == 1:
        return ok[0]
    if not ok:  # some cell is no number either way: the mark most cells read under
        return max((".", ","), key=lambda m: sum(v is not None for v in valid[m]))
    for (where, text), a, b in zip(cells, valid["."], valid[","]):
        if a != b:
            raise BadInput(f"{where}: {text!r} is ambiguous: {a:g} with a decimal point, "
                           f"{b:g} with a decimal comma, and no other number in "
                           f"{table_name} tells which; write it without a thousands separator")
    return "."


def number_error(text: str, mark: str, separator: str) -> str:
    """Why ``text`` is not a number under ``mark``."""
    if mark == "." and parse_number(text, ",") is not None:
        if separator == ",":
            return (f"{text!r} has a decimal comma in a comma-separated file (ambiguous); "
                    "write a decimal point, or save the file with ; as separator")
        return (f"{text!r} has a decimal comma, but other numbers in the file have a "
                "decimal point; use one decimal mark")
    if mark == "," and parse_number(text, ".") is not None:
        return (f"{text!r} has a decimal point, but other numbers in the file have a "
                "decimal comma; use one decimal mark")
    return f"{text!r} is not a number"
