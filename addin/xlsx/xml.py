"""A defused, linear-time XML pull parser (expat) for the parts of a package.

Every XML part zvmplan reads goes through :func:`parser`: expat reads the bytes once,
in C, in time linear in their length; a document type declaration (DTD), an entity
declaration or a reference to an external entity stops it with
:class:`~zvmplan_addin.xlsx.errors.UnsafeWorkbookError` (so neither "billion laughs"
nor external entities can reach any code). :func:`check` proves a part well formed
under those rules; the sheet reader and rewriter (:mod:`.sheet`) install their own
element handlers on the same kind of parser and use expat's byte offsets
(``CurrentByteIndex``) to splice new values into the original bytes, which keeps every
namespace prefix and ``mc:Ignorable`` declaration byte for byte.
"""
from __future__ import annotations

import re
import xml.parsers.expat as expat

from .errors import UnsafeWorkbookError

#: a start tag at a known position: name, attributes, "/" if the element is empty. Used
#: only on tags expat has already read, so it always matches and runs in linear time.
START_TAG = re.compile(rb"""<([^\s/>]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(/?)>""")


class _Refused(Exception):
    pass


def _no_dtd(*_):
    raise _Refused("declares a DTD")


def _no_entity(*_):
    raise _Refused("declares an XML entity")


def _no_external(*_):
    raise _Refused("refers to an external entity")


def parser() -> "expat.XMLParserType":
    """A fresh expat parser that refuses DTDs and entities (no namespace processing:
    names keep their prefixes, as in the file)."""
    p = expat.ParserCreate()
    p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    p.StartDoctypeDeclHandler = _no_dtd
    p.EntityDeclHandler = _no_entity
    p.UnparsedEntityDeclHandler = _no_entity
    p.ExternalEntityRefHandler = _no_external
    return p


def parse(p, data: bytes, name: str) -> None:
    """Run ``p`` over ``data``; any refusal or syntax error is one line naming ``name``."""
    try:
        p.Parse(data, True)
    except _Refused as exc:
        raise UnsafeWorkbookError(f"{name} {exc}; refused as a possible XML bomb") from None
    except expat.ExpatError as exc:
        raise UnsafeWorkbookError(f"{name} is not well-formed XML "
                                  f"({expat.ErrorString(exc.code)}, line {exc.lineno})") from None
    finally:
        # the handlers are closures that hold the parser (and what they fill): a cycle
        # the reader makes with the collector paused; broken here, what they held is
        # freed as soon as the caller lets it go
        p.StartElementHandler = p.EndElementHandler = p.CharacterDataHandler = None


def check(data: bytes, name: str) -> None:
    """Prove ``data`` well-formed XML without a DTD or entities."""
    parse(parser(), data, name)


def local(name: str) -> str:
    """``x:c`` -> ``c``; ``{uri}c`` -> ``c``."""
    return name.rpartition(":")[2].rpartition("}")[2]


def start_tag(data: bytes, pos: int) -> re.Match:
    """The start tag that begins at ``pos`` (read by expat already)."""
    m = START_TAG.match(data, pos)
    if m is None:  # pragma: no cover - expat accepted this tag
        raise UnsafeWorkbookError(f"cannot read the tag at byte {pos}")
    return m


def element_end(data: bytes, start: int, end_index: int) -> tuple[re.Match, int]:
    """(start tag, end offset) of the element whose start handler saw ``start`` and
    whose end handler saw ``end_index`` (the start of its end tag, or the end of an
    empty element)."""
    tag = start_tag(data, start)
    if tag.group(3):
        return tag, tag.end()
    return tag, data.index(b">", end_index) + 1


def elements(data: bytes, name: str, wanted: set[str]) -> list[tuple[str, dict, int, int, re.Match]]:
    """(local name, attributes, start, end, start tag) of every element whose local name
    is in ``wanted``, in document order: a parser-based finder for small edits to
    small parts (``<calcPr>``, a relationship, a content-type override)."""
    p = parser()
    open_: list = []
    found: list = []

    def start(qname, attrs):
        loc = local(qname)
        open_.append((loc, attrs, p.CurrentByteIndex) if loc in wanted else None)

    def end(qname):
        item = open_.pop()
        if item is not None:
            tag, stop = element_end(data, item[2], p.CurrentByteIndex)
            found.append((item[0], item[1], item[2], stop, tag))

    p.StartElementHandler = start
    p.EndElementHandler = end
    parse(p, data, name)
    found.sort(key=lambda f: f[2])
    return found
