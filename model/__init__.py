"""zvmplan: IBM's published z/VM networking measurements, and projections from them."""
from .errors import (ArgumentTypeError, NoDataError, OutOfRangeError, UnknownNameError,
                     ZvmplanError)
from .answer import BASES, Answer, Many
from .api import (band, confidence_interval, levels, native_level, per_mb, per_mb_many, per_tx,
                  per_tx_many, transports, workloads)
from .hardware import line_rate_mb_per_sec, processor
from .framing import payload_mb_per_sec
from .sizing import engines_needed, max_load
from .names import LEVELS, METRICS, PER_MB_METRICS, PER_TX_METRICS, TRANSPORTS, WORKLOADS

__all__ = ["ZvmplanError", "UnknownNameError", "ArgumentTypeError", "OutOfRangeError",
           "NoDataError", "Answer", "Many", "BASES", "per_mb", "per_tx", "per_mb_many",
           "per_tx_many", "transports", "workloads", "levels", "native_level",
           "confidence_interval", "TRANSPORTS", "WORKLOADS", "LEVELS", "METRICS",
           "PER_MB_METRICS", "PER_TX_METRICS", "processor", "line_rate_mb_per_sec", "band",
           "engines_needed", "max_load", "payload_mb_per_sec"]
