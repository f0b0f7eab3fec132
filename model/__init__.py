"""zvmplan: IBM's published z/VM networking measurements, and projections from them."""
from .errors import (ArgumentTypeError, NoDataError, OutOfRangeError, UnknownNameError,
                     ZvmplanError)
