"""Arguments every model function checks the same way: numbers, speed factor, z/VM level."""
from __future__ import annotations

import math

import numpy as np

from . import names
from .errors import ArgumentTypeError, OutOfRangeError


def number(value, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise ArgumentTypeError(f"{what} must be a number; got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ArgumentTypeError(f"{what} must be a finite number; got {value}")
    return value


def speed(speed_factor) -> float:
    if speed_factor is None:
        return 1.0
    f = number(speed_factor, "speed_factor")
    if f <= 0:
        raise OutOfRangeError(f"speed_factor must be > 0 (1 = the measured processor); got {f:g}")
    return f


def level_or_native(transport: str, level) -> str:
    return native_level(transport) if level is None else names.level(level)


def native_level(transport) -> str:
    """The z/VM level a transport was measured at (the default level).

    >>> native_level("iucv"), native_level("LCS"), native_level("QDIO")
    ('3.1.0', '4.1.0', '4.3.0')
    """
    t = names.transport(transport)
    return {"CMS_IUCV": "3.1.0", "IUCV": "3.1.0", "VCTC": "3.1.0", "LCS": "4.1.0",
            "ESCON_CTC": "4.1.0"}.get(t, "4.3.0")
