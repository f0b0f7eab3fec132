"""Exceptions raised by zvmplan.

One project exception type, :class:`ZvmplanError`; its subclasses say what kind
of problem it is, so every front door can map it once (the add-in maps them to
Excel errors in ``zvmplan_addin.errors``)::

    ZvmplanError                  anything zvmplan refuses; message says why
     +-- UnknownNameError         a transport, workload, level or metric we do not know
     +-- ArgumentTypeError        a value of the wrong type (text for a number, NaN, ...)
     +-- OutOfRangeError          a number outside the range the sources support
     +-- NoDataError              a valid combination the sources cannot support
"""
from __future__ import annotations


class ZvmplanError(ValueError):
    """Base of every error zvmplan raises on bad input. The message names the valid choices."""


class UnknownNameError(ZvmplanError):
    """A transport, workload, z/VM level or metric name that zvmplan does not know."""


class ArgumentTypeError(ZvmplanError, TypeError):
    """An argument of the wrong type, or a number that is not finite."""


class OutOfRangeError(ZvmplanError):
    """A size, MTU, connection count or speed factor outside the supported range."""


class NoDataError(ZvmplanError):
    """The arguments are valid, but the sources measured nothing that supports an answer."""
