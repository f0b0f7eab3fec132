"""The bulk path of :func:`~.fastsheet.read_fast`: the ``<sheetData>`` of a part in the
commonest spelling read with numpy over its bytes, and the cells filed by C-level bulk
operations, with no Python run per cell.

The regular-expression loop of :mod:`.fastsheet` runs a few lines of Python per cell and
needs expat to have read the whole part first (0.5 s for the 81 MB of a 100,000-row
planner). This reader proves what it reads well formed itself, and hands the part back
(None: the caller then runs expat over it and the loop) at the first thing it cannot
prove. It takes a ``<sheetData>`` content made only of

* ``<row r="N" ATTRS>`` ... ``</row>`` and ``<row r="N" ATTRS/>`` (no ``hidden``);
* cells ``<c r="A1" ATTRS>`` [``<f>TEXT</f>``] [``<v>TEXT</v>`` | ``<v/>`` | ``<v />``]
  [``<is><t>TEXT</t></is>``, ``<t xml:space="preserve">`` too] ``</c>``, and empty cells
  ``<c r="A1" ATTRS/>``, with no character between two tags outside a ``TEXT``;
* ATTRS: attributes as :data:`.cellread.ATTR` spells them, no name twice;
* UTF-8 (beyond ASCII only when the XML declaration names no other encoding) of XML
  characters, no control character but tab and line feed (a carriage return goes to
  the loop, which reads it as expat does), and no ``&`` but ``&lt;``, ``&gt;``,
  ``&amp;``, ``&quot;``, ``&apos;``.

Such content is well formed XML (elements nest, as the token-to-token transitions
:data:`_NEXT` allow only; attribute values hold no ``<`` or ``&``; character data holds
only characters XML allows and the five references it predefines, and no ``]]>``, which
needs a ``>`` outside a tag), so what lies outside ``<sheetData>`` is all expat still has
to read (the caller does, with the general reader). Each cell is converted by the rules
of the loop (:func:`.cellread.value` for the rarer types, the same ``float`` and
``int`` calls for the others), so both give the same dicts, extent, budget and layout;
``tests/test_xlsx_fastsheet.py`` checks it.

The content is read in chunks of about :data:`CHUNK` bytes ending at a ``</row>``, which
bounds the memory the arrays take beside the part.
"""
from __future__ import annotations

import re
from itertools import chain, compress, repeat

import numpy as np

from . import cellread, sheet as S

CHUNK = 1 << 20     #: [bytes] of <sheetData> content read at a time
MAX_KINDS = 64      #: distinct attribute spellings of cells (or rows) taken in a chunk

# token codes
(_BAD, _ROW, _ROW_END, _ROW_EMPTY, _C, _C_END, _C_EMPTY, _F, _F_END, _V, _V_END, _V_EMPTY,
 _IS, _IS_END, _T, _T_END, _F_EMPTY) = range(17)
_CODES = 32         # table size: more than the codes

# a tag by its first two bytes after "<" (``key``): its code, and the spelling its first
# eight bytes must have (``_MASK`` selects the bytes that count). A fixed tag's spelling
# ends with its ">", so it also fixes the tag's length; a row's and a cell's spelling is
# the start of their tag, read on by :func:`_rows` and :func:`_cells`
_CODE = np.zeros(1 << 16, dtype=np.uint8)
_SPELLING = np.ones(1 << 16, dtype=np.uint64)      # 1 & a mask of 0 never holds
_MASK = np.zeros(1 << 16, dtype=np.uint64)
_T_PRESERVE = b'<t xml:space="preserve">'
for _tag, _code in ((b'<row r="', _ROW), (b"</row>", _ROW_END), (b'<c r="', _C),
                    (b"</c>", _C_END), (b"<f>", _F), (b"<f ", _F), (b"<f/>", _F_EMPTY),
                    (b"</f>", _F_END), (b"<v>", _V),
                    (b"</v>", _V_END), (b"<v/>", _V_EMPTY), (b"<v />", _V_EMPTY),
                    (b"<is>", _IS), (b"</is>", _IS_END), (b"<t>", _T), (b"</t>", _T_END),
                    (_T_PRESERVE[:8], _T)):
    _key = _tag[1] | _tag[2] << 8
    _CODE[_key] = _code
    _SPELLING[_key] = int.from_bytes(_tag, "little")
    _MASK[_key] = (1 << 8 * len(_tag)) - 1
_F_ATTRS_KEY = ord("f") | ord(" ") << 8
_PAD = bytes(32)    # read past the end of a chunk as zeros (no tag's byte)

#: which token may follow which: rows of cells, each cell <c> [<f>..</f>] [<v>..</v> |
#: <v/>] [<is><t>..</t></is>] </c>
_NEXT = np.zeros((_CODES, _CODES), dtype=bool)
for _a, _bs in ((_ROW, (_C, _C_EMPTY, _ROW_END)), (_ROW_END, (_ROW, _ROW_EMPTY)),
                (_ROW_EMPTY, (_ROW, _ROW_EMPTY)),
                (_C, (_F, _F_EMPTY, _V, _V_EMPTY, _IS, _C_END)),
                (_F_EMPTY, (_V, _V_EMPTY, _IS, _C_END)),
                (_C_EMPTY, (_C, _C_EMPTY, _ROW_END)), (_C_END, (_C, _C_EMPTY, _ROW_END)),
                (_F, (_F_END,)), (_F_END, (_V, _V_EMPTY, _IS, _C_END)), (_V, (_V_END,)),
                (_V_END, (_IS, _C_END)), (_V_EMPTY, (_IS, _C_END)), (_IS, (_T,)),
                (_T, (_T_END,)), (_T_END, (_IS_END,)), (_IS_END, (_C_END,))):
    _NEXT[_a, list(_bs)] = True
_FOLLOWS = _NEXT.ravel()     # by _CODES * code before + code after
#: tokens followed by character data (up to the next tag)
_CARRIES_TEXT = np.zeros(_CODES, dtype=bool)
_CARRIES_TEXT[[_F, _V, _T]] = True
_FORMULA = re.compile(r"<f>([^<]*)")
_FORMULA_BYTES = re.compile(rb"<f>([^<]*)")
#: the encoding an XML declaration names (expat takes any spelling of UTF-8 for it)
_ENCODING = re.compile(rb"""(?:\xef\xbb\xbf)?<\?xml[^>]*?\sencoding\s*=\s*["']([^"']*)["']""")
#: the UTF-8 of U+FFFE and U+FFFF, which are not XML characters (Python decodes them)
_NOT_CHARACTERS = (b"\xef\xbf\xbe", b"\xef\xbf\xbf")

_ATTRS_OK = re.compile(rb'(?: [A-Za-z][A-Za-z0-9:]*="[^"&<\t\n\r]*")*')
_ATTR_NAMES = re.compile(rb' ([A-Za-z][A-Za-z0-9:]*)="')
#: the five references XML predefines, each as the bytes after "&"
_REFERENCES = (b"lt;", b"gt;", b"amp;", b"quot;", b"apos;")


class _Refused(Exception):
    """Something this reader does not prove well formed or does not read as the loop
    does: the part goes to the loop."""


def read_bulk(data: bytes, body: int, stop: int, strings: list, values: dict,
              formulas: dict, cached: dict, left: tuple, columns: list | None = None):
    """The cells between offsets ``body`` and ``stop`` (the content of ``<sheetData>``)
    filed in the dicts: (layout, max row, max column, (cells left, other elements left)),
    as :func:`.fastsheet._read_cells` gives them; or None (the dicts left as they were
    given, empty) if the content is not in the spelling this reader proves well formed.

    Given a list ``columns``, the cells are handed over as :class:`CellColumns`
    appended to it instead, the dicts left empty, when every formula is plain (an
    ``<f>`` without attributes) and no cell comes twice or out of order; else they are
    filed in the dicts as without it (and nothing is appended)."""
    try:
        return _read(data, body, stop, strings, values, formulas, cached, left, columns)
    except (_Refused, LookupError, ValueError, TypeError, ArithmeticError):
        # (anything unforeseen in the arrays, too: the loop reads the part as before
        # and words its own errors)
        for d in (values, formulas, cached):
            d.clear()
        return None


def _read(data, body, stop, strings, values, formulas, cached, left, columns=None):
    cells_left, others_left = left
    layout = S.Layout(len(data))
    max_row = max_col = 0
    kinds = _Kinds()
    shared: tuple = ({}, [])    # shared formulas: masters by si, dependents (r, c, si)
    sink = _Sink(values, formulas, cached, columns is not None)
    # text beyond ASCII only as UTF-8: what the loop decodes it as, and what expat reads
    # it as when the declaration names no other encoding
    m = _ENCODING.match(data, 0, body)
    utf8 = m is None or m.group(1).upper() == b"UTF-8"
    pos = body
    while pos < stop:
        end = data.find(b"</row>", pos + CHUNK, stop) if stop - pos > CHUNK else -1
        end = stop if end < 0 else end + 6
        cells, others, rmax, cmax = _chunk(data, pos, end, strings, sink, layout, kinds,
                                           utf8, shared)
        cells_left -= cells
        others_left -= others
        if cells_left < 1 or others_left < 1:
            raise _Refused      # the loop refuses the part at the cell that spends it
        max_row, max_col = max(max_row, rmax), max(max_col, cmax)
        pos = end
    if sink.parts is not None:
        columns.append(CellColumns.joined(sink.parts))
    S._file_dependents(formulas, *shared)
    return layout, max_row, max_col, (cells_left, others_left)


class _Sink:
    """Where :func:`_cells` files a chunk's cells: the dicts ``values``, ``formulas``,
    ``cached``; or, while ``parts`` is a list, that list (one tuple of columns a chunk,
    as :meth:`CellColumns.joined` takes them), which holds so long as every formula is
    plain and each cell's (row, column) comes after the one before (``last``: the
    last, as ``row << 15 | column``; a column number here is at most 18,278)."""

    def __init__(self, values: dict, formulas: dict, cached: dict, columns: bool):
        self.values, self.formulas, self.cached = values, formulas, cached
        self.parts: list | None = [] if columns else None
        self.last = -1

    def in_order(self, row: np.ndarray, col: np.ndarray) -> bool:
        """Do the cells (row, col), in document order, each come after the one before
        (and after the last filed)? Notes the last."""
        key = row << 15 | col
        ok = bool(key[0] > self.last and np.all(key[1:] > key[:-1]))
        self.last = int(key[-1])
        return ok

    def to_dicts(self) -> None:
        """File the columns taken so far in the dicts, in order, and take no more."""
        parts, self.parts = self.parts, None
        if parts:
            v, f, c = CellColumns.joined(parts).dicts()
            self.values.update(v)
            self.formulas.update(f)
            self.cached.update(c)


class _Kinds(dict):
    """A cell's attributes after ``r`` (bytes) -> its ``t`` and layout flag 1 as
    :class:`.cellread.Kinds` gives them, after proving them well formed (else
    :class:`_Refused`)."""

    def __missing__(self, raw: bytes) -> tuple:
        _attrs_proved(raw, b"r")
        kind = self[raw] = cellread.Kinds()[raw]
        return kind


def _attrs_proved(raw: bytes, first: bytes) -> None:
    """Refuse attributes not in :data:`.cellread.ATTR`'s spelling or naming one twice
    (``first``: the name already given before them)."""
    if _ATTRS_OK.fullmatch(raw) is None:
        raise _Refused
    names = _ATTR_NAMES.findall(raw)
    if first in names or len(set(names)) != len(names):
        raise _Refused


def row_attributes_read(raw: bytes) -> bool:
    """Would this reader take ``raw`` as the attributes of a ``<row r="N"`` tag after
    its ``r`` (spelt as :data:`.cellread.ATTR`, no name twice, no ``r``, not hidden)?"""
    try:
        _attrs_proved(raw, b"r")
    except _Refused:
        return False
    return b"hidden" not in raw


def byte_words(data: bytes, size: int) -> np.ndarray:
    """Element ``i``: the ``size`` bytes of ``data`` from offset ``i`` as one little-endian
    unsigned integer (an overlapping view, nothing copied)."""
    return np.ndarray((max(0, len(data) - size + 1),), dtype=f"<u{size}", buffer=data,
                      strides=(1,))


def starts_with(data: bytes, at: np.ndarray, text: bytes) -> bool:
    """Do the bytes of ``data`` at each offset ``at`` start with ``text`` (at most 8
    bytes)? False if an offset leaves no room for a word there."""
    size = 8 if len(text) > 4 else 4
    words = byte_words(data, size)
    if len(at) and (int(at.min()) < 0 or int(at.max()) >= len(words)):
        return False
    mask = (1 << 8 * len(text)) - 1
    return bool(np.all(words[at] & np.uint64(mask) == np.uint64(int.from_bytes(text,
                                                                              "little"))))


def _require(ok) -> None:
    if not ok:
        raise _Refused


class _Chunk:
    """The tokens of one chunk of ``<sheetData>`` content: ``a`` its bytes (padded),
    ``lt``/``gt`` the offsets of each tag's "<" and ">", ``code`` each tag's code."""

    def __init__(self, raw: bytes, utf8: bool):
        n = len(raw)
        self.raw = raw
        self.a = a = np.frombuffer(raw + _PAD, dtype=np.uint8)
        body = a[:n]
        # ASCII, and no control character but tab and line feed (a CR goes to the loop)
        ascii = raw.isascii()
        if not ascii:   # well-formed UTF-8 of XML characters only
            _require(utf8 and not any(c in raw for c in _NOT_CHARACTERS))
            self.text = raw.decode("utf-8")         # (UnicodeDecodeError: the loop)
        low = body[body < 32]
        _require(not low.size or np.all((low == 9) | (low == 10)))
        self.lt = lt = np.flatnonzero(body == 60)
        gts = np.flatnonzero(body == 62)
        _require(len(lt) and lt[0] == 0)
        if len(gts) == len(lt):
            gt = gts
            _require(np.all(lt < gt) and np.all(gt[:-1] < lt[1:]))
        else:   # a ">" in character data: each tag ends at the first ">" after its "<"
            k = np.searchsorted(gts, lt)
            _require(k[-1] < len(gts))
            gt = gts[k]
            _require(np.all(gt[:-1] < lt[1:]) and b"]]>" not in raw)
        _require(gt[-1] == n - 1)
        self.gt = gt
        words = np.ndarray((n + 24,), dtype="<u8", buffer=a, strides=(1,))
        w = words[lt]
        key = (w >> np.uint64(8)) & np.uint64(0xFFFF)
        _require(np.all(w & _MASK[key] == _SPELLING[key]))
        self.code = code = _CODE[key]
        kept = np.flatnonzero(key == _T_PRESERVE[1] | _T_PRESERVE[2] << 8)
        if kept.size:       # <t xml:space="preserve">: its 24 bytes
            _require(np.all(gt[kept] - lt[kept] == len(_T_PRESERVE) - 1)
                     and np.all(self.spelt(lt[kept], _T_PRESERVE)))
        closed = a[gt - 1] == 47
        code[(code == _ROW) & closed] = _ROW_EMPTY
        code[(code == _C) & closed] = _C_EMPTY
        # <f with attributes (a shared, array or volatile formula): filed one by one
        self.f_attrs = np.flatnonzero(key == _F_ATTRS_KEY)
        code[self.f_attrs[closed[self.f_attrs]]] = _F_EMPTY
        # nesting: each token may follow the one before; whole rows
        _require(code[0] in (_ROW, _ROW_EMPTY) and code[-1] in (_ROW_END, _ROW_EMPTY))
        _require(np.all(_FOLLOWS[code[:-1].astype(np.intp) * _CODES + code[1:]]))
        # no character between tags but in a formula, a value or an inline string's text
        gap = lt[1:] - gt[:-1] - 1
        _require(not np.any(gap[~_CARRIES_TEXT[code[:-1]]]))
        self.amp = amp = np.flatnonzero(body == 38)
        if amp.size:    # each "&" starts one of the five references (else: the loop)
            after = words[amp + 1]
            ok = np.zeros(len(amp), dtype=bool)
            for ref in _REFERENCES:
                ok |= after & np.uint64((1 << 8 * len(ref)) - 1) == \
                    np.uint64(int.from_bytes(ref, "little"))
            _require(ok.all())
            self.amp_in = np.zeros(len(lt), dtype=bool)     # tags whose text holds one
            self.amp_in[np.searchsorted(lt, amp, side="right") - 1] = True
        self.ascii = ascii
        if ascii:       # offsets into the text are offsets into the bytes
            self.text = raw.decode("ascii")

    def texts(self, tok: np.ndarray) -> list[str]:
        """The character data after each tag in ``tok``, references replaced."""
        whole = self.text if self.ascii else self.raw
        out = list(map(whole.__getitem__, map(slice, (self.gt[tok] + 1).tolist(),
                                              self.lt[tok + 1].tolist())))
        if not self.ascii:
            out = list(map(bytes.decode, out))
        self.unescape(tok, out)
        return out

    def formulas(self, tok: np.ndarray) -> list[str]:
        """The text of each ``<f>`` of the chunk (``tok``: all of them, in order),
        references replaced: one pass of a regular expression with a literal start,
        cheaper than cutting this many texts one by one."""
        out = _FORMULA.findall(self.text) if self.ascii else \
            list(map(bytes.decode, _FORMULA_BYTES.findall(self.raw)))
        _require(len(out) == len(tok))
        self.unescape(tok, out)
        return out

    def unescape(self, tok: np.ndarray, out: list) -> None:
        """Replace the references in the texts ``out`` after the tags ``tok``: those
        holding one, joined by NULs (which no text holds) and replaced at once."""
        if self.amp.size:
            hit = np.flatnonzero(self.amp_in[tok]).tolist()
            if hit:
                new = S._unescaped("\0".join([out[i] for i in hit])).split("\0")
                for i, s in zip(hit, new):
                    out[i] = s

    def spelt(self, at: np.ndarray, spelling: bytes) -> np.ndarray:
        """Whether the bytes at each offset ``at`` are ``spelling`` (each row of the
        result: one offset)."""
        got = self.a[at[:, None] + np.arange(len(spelling))]
        return np.all(got == np.frombuffer(spelling, dtype=np.uint8), axis=1)

    def rests(self, start: np.ndarray, stop: np.ndarray) -> tuple[np.ndarray, list]:
        """The distinct byte strings ``a[start:stop]`` (attributes: few in a sheet, each
        compared in bulk), and the index of each one's among them."""
        which = np.full(len(start), -1, dtype=np.int64)
        length = stop - start
        distinct: list[bytes] = []
        todo = np.arange(len(start))
        while todo.size:
            _require(len(distinct) < MAX_KINDS)
            j = todo[0]
            key = self.a[start[j]:stop[j]].tobytes()
            same = todo[length[todo] == len(key)]
            if key:
                same = same[self.spelt(start[same], key)]
            which[same] = len(distinct)
            distinct.append(key)
            todo = todo[which[todo] < 0]
        return which, distinct

    def attributes(self, tok: np.ndarray, after: np.ndarray):
        """The attributes of the tags ``tok`` from offset ``after`` to their end (less
        the "/" and a space before it of an empty element): (which, distinct)."""
        ends = self.gt[tok]
        empty = self.a[ends - 1] == 47
        stops = ends - empty
        stops -= empty & (self.a[stops - 1] == 32)
        return self.rests(after, stops)


def _digits(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(value, count) of the decimal digits at the start of each row of the byte
    matrix ``m`` (refused if a row is all digits)."""
    isdigit = (m >= 48) & (m <= 57)
    _require(not np.any(isdigit.all(axis=1)))
    count = np.argmin(isdigit, axis=1)
    value = np.zeros(len(m), dtype=np.int64)
    for i in range(m.shape[1] - 1):
        here = i < count
        if not here.any():
            break
        value = np.where(here, value * 10 + m[:, i] - 48, value)
    return value, count


def _chunk(data, p, q, strings, sink, layout, kinds, utf8, shared):
    """File the cells of ``data[p:q]`` (whole rows) in ``sink`` (:class:`_Sink`);
    returns (cells, rows and other elements spent, max row, max column) of what it
    filed."""
    if q <= p:
        return 0, 0, 0, 0
    t = _Chunk(data[p:q], utf8)
    rows = _rows(t)
    return _cells(t, data, p, strings, sink, layout, kinds, rows, shared)


def _rows(t: _Chunk) -> int:
    """Prove the row tags (``<row r="N"`` then attributes, none ``hidden``); their
    number (each spends one of the budget's other elements)."""
    tok = np.flatnonzero((t.code == _ROW) | (t.code == _ROW_EMPTY))
    at = t.lt[tok]
    _, digits = _digits(t.a[at[:, None] + np.arange(8, 16)])
    quote = at + 8 + digits
    _require(np.all(digits > 0) and np.all(t.a[quote] == 34))
    _, distinct = t.attributes(tok, quote + 1)
    for raw in distinct:
        _attrs_proved(raw, b"r")
        _require(b"hidden" not in raw)      # hidden rows: the loop notes them
    return len(tok)


def _cells(t, data, p, strings, sink, layout, kinds, rows, shared):
    code, lt, gt = t.code, t.lt, t.gt
    is_cell = (code == _C) | (code == _C_EMPTY)
    tok = np.flatnonzero(is_cell)
    n = len(tok)
    if n == 0:
        return 0, rows, 0, 0
    at = lt[tok]
    # the reference: one to three column letters, one to seven row digits, a quote
    ref = t.a[at[:, None] + np.arange(6, 17)]
    up = (ref[:, :3] >= 65) & (ref[:, :3] <= 90)
    _require(up[:, 0].all())
    letters = 1 + up[:, 1] + (up[:, 1] & up[:, 2])
    l1, l2, l3 = (ref[:, i].astype(np.int64) - 64 for i in range(3))
    col = np.where(letters == 1, l1, np.where(letters == 2, l1 * 26 + l2,
                                              (l1 * 26 + l2) * 26 + l3))
    end = np.argmax(ref == 34, axis=1)          # the first quote (0: none)
    digits = end - letters
    place = np.arange(ref.shape[1]) - letters[:, None]      # 0 at the first digit
    run = (place >= 0) & (place < digits[:, None])
    isdigit = (ref >= 48) & (ref <= 57)
    _require(np.all((digits > 0) & (digits <= 7))
             and np.array_equal(np.count_nonzero(run & isdigit, axis=1), digits))
    row = np.zeros(len(at), dtype=np.int64)
    for i in range(1, ref.shape[1]):        # Horner's rule down the digits
        here = run[:, i]
        row = np.where(here, row * 10 + ref[:, i] - 48, row)
    quote = at + 6 + end
    # the attributes after r: each distinct spelling proved and looked up once
    which, distinct = t.attributes(tok, quote + 1)
    kind = [kinds[k] for k in distinct]
    types = sorted({k[0] for k in kind})
    t_of = np.array([types.index(k[0]) for k in kind], dtype=np.int64)[which]
    flag = np.array([k[1] for k in kind], dtype=np.uint8)[which]
    empty = code[tok] == _C_EMPTY
    # each cell's children: token index of its <f>, its <v> or <v/>, its <t> (-1: none)
    cell_of = np.cumsum(is_cell) - 1

    def child(*codes) -> np.ndarray:
        mine = code == codes[0]
        for c in codes[1:]:
            mine |= code == c
        got = np.flatnonzero(mine)
        out = np.full(n, -1, dtype=np.int64)
        out[cell_of[got]] = got
        return out

    f_tok, v_tok, t_tok = child(_F, _F_EMPTY), child(_V, _V_EMPTY), child(_T)
    has_f, has_v, has_is = f_tok >= 0, v_tok >= 0, t_tok >= 0
    v_text = has_v & (code[np.maximum(v_tok, 0)] == _V)
    others = rows + 2 * int(np.count_nonzero(has_is))
    flag |= has_is.astype(np.uint8) << 1
    def raws(toks: np.ndarray) -> list[bytes]:
        """The character data after each token in ``toks``, as bytes (b"" for <v/>)."""
        return list(map(data.__getitem__, map(slice, (p + gt[toks] + 1).tolist(),
                                               (p + lt[toks + 1]).tolist())))

    value = np.full(n, None, dtype=object)
    for number, kind_t in enumerate(types):
        mine = (t_of == number) & ~empty
        if kind_t == "inlineStr":
            sel = np.flatnonzero(mine & has_is)
            got = t.texts(t_tok[sel])
            if "_x" in "\0".join(got):
                got = list(map(S.unescape_ooxml, got))
        else:
            sel = np.flatnonzero(mine & (v_text if kind_t == "n" else has_v))
            if kind_t == "n":
                got = _floats(t.texts(v_tok[sel]), lambda: raws(v_tok[sel]), strings)
            elif kind_t == "s":
                got = _shared(t.texts(v_tok[sel]), strings) if t.ascii else \
                    [_value(kind_t, b, strings) for b in raws(v_tok[sel])]
            else:
                got = [_value(kind_t, b, strings) for b in raws(v_tok[sel])]
        if sel.size:
            value[sel] = _objects(got)
    present = value != None     # noqa: E711 (elementwise)
    filed_value = ~has_f & ~empty & present
    keep = has_f | filed_value
    if not keep.any():
        return n, others, 0, 0
    rmax, cmax = int(row[keep].max()), int(col[keep].max())
    _layout(layout, t, p, v_tok, has_f, row, col, at, flag)
    if sink.parts is not None:
        if not t.f_attrs.size and sink.in_order(row[keep], col[keep]):
            fsel = np.flatnonzero(has_f)
            held = np.flatnonzero(present[fsel])    # formula cells with a cached value
            sink.parts.append((row[filed_value], col[filed_value], value[filed_value],
                               row[fsel], col[fsel],
                               t.formulas(f_tok[fsel]) if fsel.size else [],
                               held, value[fsel[held]]))
            return n, others, rmax, cmax
        sink.to_dicts()
    values, formulas, cached = sink.values, sink.formulas, sink.cached
    if filed_value.any():
        values.update(zip(_keys(row[filed_value], col[filed_value]),
                          value[filed_value].tolist()))
    if has_f.any():
        fsel = np.flatnonzero(has_f)
        fval = value[fsel]
        held = fval != None      # noqa: E711 (elementwise)
        fkeys = list(_keys(row[fsel], col[fsel])) if held.any() or t.f_attrs.size else \
            _keys(row[fsel], col[fsel])
        new, cell = tuple.__new__, S.FormulaCell
        if not t.f_attrs.size:
            formulas.update(zip(fkeys, map(new, repeat(cell),
                                           zip(t.formulas(f_tok[fsel]),
                                               repeat("plain"), repeat(None)))))
        else:
            _file_attributed(t, f_tok[fsel], row[fsel], col[fsel], fkeys, formulas, shared)
        if held.all():
            cached.update(zip(fkeys, fval.tolist()))
        elif held.any():
            cached.update(zip([fkeys[i] for i in np.flatnonzero(held).tolist()],
                              fval[held].tolist()))
    return n, others, rmax, cmax


def _layout(layout: S.Layout, t: _Chunk, p: int, v_tok: np.ndarray, has_f: np.ndarray,
            row: np.ndarray, col: np.ndarray, at: np.ndarray, flag: np.ndarray) -> None:
    """Note the chunk's formula cells (``has_f``) in ``layout``: their place, and that
    of their ``<v>`` (``v_tok``: each cell's token, -1: none), offset by ``p``."""
    fsel = np.flatnonzero(has_f)
    if not fsel.size:
        return
    code, lt, gt = t.code, t.lt, t.gt
    vt = v_tok[fsel]
    hv = vt >= 0
    vt0 = np.maximum(vt, 0)
    v_end = np.where(code[vt0] == _V, vt0 + 1, vt0)     # </v>, or <v/> itself
    out = np.empty(len(fsel), dtype=_LAYOUT)
    out["r"], out["c"] = row[fsel], col[fsel]
    out["c0"] = at[fsel] + p
    out["v0"] = np.where(hv, lt[vt0] + p, -1)
    out["v1"] = np.where(hv, gt[v_end] + 1 + p, -1)
    out["flags"] = flag[fsel]
    layout.cells.extend(out.tobytes())


def _file_attributed(t: _Chunk, f_tok, row, col, keys: list, formulas: dict,
                     shared: tuple) -> None:
    """File the formulas of a chunk in which some ``<f>`` has attributes (``f_tok``: the
    token of each formula cell's ``<f>``, in order): those without as plain formulas,
    those with one by one by :func:`.sheet._file_formula`, as the loop does (a shared
    formula's dependent waits in ``shared`` for its master, filed at the end)."""
    texts = t.texts(f_tok)              # "" for an empty <f/>
    made = list(map(tuple.__new__, repeat(S.FormulaCell),
                    zip(texts, repeat("plain"), repeat(None))))
    tok = t.f_attrs
    which, distinct = t.attributes(tok, t.lt[tok] + 2)
    for raw in distinct:
        _attrs_proved(raw, b"")
    parsed = [cellread.attrs(raw) for raw in distinct]
    at = np.searchsorted(f_tok, tok)     # the formula cells with attributes
    masters, dependents = shared
    for i, k, r, c in zip(at.tolist(), which.tolist(), row[at].tolist(), col[at].tolist()):
        one: dict = {}
        S._file_formula(one, masters, dependents, r, c, parsed[k], texts[i])
        made[i] = one.get((r, c))       # None: a dependent
    if None in made:
        formulas.update(compress(zip(keys, made), [m is not None for m in made]))
    else:
        formulas.update(zip(keys, made))


class CellColumns:
    """A sheet's cells as the bulk reader hands them over (:attr:`.sheet.SheetData.columns`),
    in document order, each (row, column) after the one before (no cell twice): the
    cells without a formula (``value_rows``, ``value_cols`` int64 arrays, ``values`` an
    object array of what the dicts would hold), and the formula cells, all plain
    (``formula_rows``, ``formula_cols``, ``texts`` a list of str), of which those at
    ``cached_index`` (int64, increasing) hold the cached value ``cached`` (an object
    array). :meth:`dicts` makes the :class:`~.sheet.SheetData` dicts from them, equal
    to what the bulk reader files without columns, in the same order."""

    __slots__ = ("value_rows", "value_cols", "values", "formula_rows", "formula_cols",
                 "texts", "cached_index", "cached")

    def __init__(self, value_rows, value_cols, values, formula_rows, formula_cols, texts,
                 cached_index, cached):
        self.value_rows, self.value_cols, self.values = value_rows, value_cols, values
        self.formula_rows, self.formula_cols = formula_rows, formula_cols
        self.texts, self.cached_index, self.cached = texts, cached_index, cached

    @classmethod
    def joined(cls, parts: list) -> "CellColumns":
        """The columns of a sheet read in chunks: ``parts`` holds one tuple a chunk,
        (value rows, value cols, values, formula rows, formula cols, texts, the chunk's
        formula cells with a cached value (their index among its formula cells), those
        values)."""
        if not parts:
            none, objects = np.zeros(0, dtype=np.int64), np.empty(0, dtype=object)
            return cls(none, none, objects, none, none, [], none, objects)
        # each chunk's cached-value indices moved past the formula cells before it
        before = np.cumsum([0] + [len(part[3]) for part in parts[:-1]])
        parts = [part[:6] + (part[6] + start,) + part[7:] for part, start in zip(parts, before)]
        arrays = [np.concatenate([part[k] for part in parts]) if len(parts) > 1 else parts[0][k]
                  for k in (0, 1, 2, 3, 4, 6, 7)]
        texts = parts[0][5] if len(parts) == 1 else \
            list(chain.from_iterable(part[5] for part in parts))
        vr, vc, vv, fr, fc, index, cached = (
            a.astype(np.int64, copy=False) if a.dtype != object else a for a in arrays)
        return cls(vr, vc, vv, fr, fc, texts, index, cached)

    def counts(self) -> tuple[int, int]:
        """(cells without a formula, formula cells)."""
        return len(self.values), len(self.texts)

    def dicts(self) -> tuple[dict, dict, dict]:
        """(values, formulas, cached) as :class:`~.sheet.SheetData` holds them."""
        values = dict(zip(_keys(self.value_rows, self.value_cols), self.values.tolist()))
        fkeys = list(_keys(self.formula_rows, self.formula_cols))
        formulas = dict(zip(fkeys, map(tuple.__new__, repeat(S.FormulaCell),
                                       zip(self.texts, repeat("plain"), repeat(None)))))
        cached = dict(zip(map(fkeys.__getitem__, self.cached_index.tolist()),
                          self.cached.tolist()))
        return values, formulas, cached


_LAYOUT = np.dtype([("r", "<u4"), ("c", "<u4"), ("c0", "<u4"), ("v0", "<i4"), ("v1", "<i4"),
                    ("flags", "u1")])
assert _LAYOUT.itemsize == S._LAYOUT.size


def _keys(row: np.ndarray, col: np.ndarray):
    """The ``(row, column)`` keys of cells in document order, each row's number one int
    object for all its cells (a million cells hold some 100,000 rows: 25 MB less)."""
    if not len(row):
        return iter(())
    start = np.flatnonzero(row[1:] != row[:-1]) + 1
    count = np.diff(start, prepend=0, append=len(row))
    rows = chain.from_iterable(map(repeat, row[np.concatenate(([0], start))].tolist(),
                                   count.tolist()))
    return zip(rows, col.tolist())


def _objects(items: list) -> np.ndarray:
    """``items`` as a 1-d object array (each item kept as it is)."""
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _floats(got: list, raws, strings: list) -> list:
    """The values of number cells (``t`` "n" or none) whose ``<v>`` holds ``got`` (as
    text; ``raws()``: as bytes): as the loop reads them (``float``, else
    :func:`.cellread.value` on the bytes)."""
    try:
        return list(map(float, got))
    except ValueError:
        out = []
        for s, b in zip(got, raws()):
            try:
                out.append(float(s))
            except ValueError:
                out.append(_value("n", b, strings))
        return out


def _shared(got: list, strings: list) -> list:
    """Shared strings by index (``got``: the text of each ``<v>``), ``#REF!`` for an
    index that is not one (as the loop)."""
    try:
        return list(map(strings.__getitem__, map(int, got)))
    except (ValueError, IndexError):
        return [_value("s", s.encode("ascii"), strings) for s in got]


def _value(t: str, raw: bytes, strings: list):
    """A cell of type ``t`` whose ``<v>`` holds ``raw``, as the loop reads it."""
    return cellread.value(t, raw, strings)
