"""formulas' parser in time closer to proportional to a formula's length (issue 19).

A formula of 8,085 characters (1,149 terms ``A1*k`` added up, within Excel's 8,192) took
2.2 s to compile, growing about as the square of its length: two steps of formulas'
parser look at everything before them for each operator --

* the builder names each function node with schedula's ``get_unused_node_id``, which
  tries ``+``, ``+<0>``, ``+<1>``, ... from the start every time: the k-th ``+`` tries k
  names. :func:`unused_node_id` remembers, per graph and first guess, where the last
  search ended (the builder only adds nodes, and its names are numbered without gaps,
  so the name found is the one the search from the start finds);
* each ``+`` or ``-`` looks for itself in the list of all tokens read so far
  (``tokens.index(self)``) to see the token before it, which is the one before the last:
  :func:`install` hands it the last two tokens only, the same token found.

What stays is the text formulas gives each operation's node (the whole expression below
it), a cost in the square of the nesting of operations, and the schedula graph, which is
released with the compiled formula (:meth:`~.engine.Engine.release_compiled`).
"""
from __future__ import annotations

_NEXT: dict = {}            # (id of a graph's nodes, first guess, format) -> next number
_MAX_REMEMBERED = 4096      # then forgotten (a guess is checked before it is used)


def unused_node_id(graph, initial_guess="unknown", _format="{}<%d>"):
    """schedula's ``get_unused_node_id``: ``initial_guess`` if ``graph`` has no such
    node, else the first of ``initial_guess<0>``, ``<1>``, ... it has not; the search
    starts where the last one for this graph and guess ended when the name just before
    that is still taken (so names taken in order are not tried again)."""
    nodes = graph.nodes
    if initial_guess not in nodes:
        return initial_guess
    id_fmt = _format.format(initial_guess.replace("%", "%%"))
    key = (id(nodes), initial_guess, _format)
    n = _NEXT.get(key, 0)
    if n and (id_fmt % (n - 1)) not in nodes:   # another graph at the same address
        n = 0
    node_id = id_fmt % n
    while node_id in nodes:
        n += 1
        node_id = id_fmt % n
    if len(_NEXT) >= _MAX_REMEMBERED:
        _NEXT.clear()
    _NEXT[key] = n
    return node_id


def install() -> None:
    """Put :func:`unused_node_id` into formulas' builder and the two-token look-back into
    its operators (idempotent)."""
    import formulas.builder as builder
    from formulas.tokens.operator import Operator
    builder.get_unused_node_id = unused_node_id
    original = Operator.update_name
    if getattr(original, "_zvm_tail", False):
        return

    def update_name(self, tokens, stack, _original=original):
        if len(tokens) > 2 and tokens[-1] is self:
            tokens = tokens[-2:]  # tokens.index(self) - 1 is then the token before it
        return _original(self, tokens, stack)
    update_name._zvm_tail = True
    Operator.update_name = update_name
