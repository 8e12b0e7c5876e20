"""The names of Cython's `cython` module that the compiled hot modules use, for running them as
plain Python where Cython is not installed (it is only a build requirement; parsers/_accel.py).

Each hot module reads, in Cython's pure-Python mode:

    try:
        import cython
    except ModuleNotFoundError:
        from parsers._cython_names import cython

When Cython compiles the module, `import cython` is its own compile-time module and `cython.locals`
gives C-level types to the named locals; run as Python (Cython's Shadow module or this one), the
decorator returns the function unchanged and `cython.compiled` is False.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])


class cython:  # noqa: N801 - stands for the module of that name
    compiled = False
    Py_ssize_t = int

    @staticmethod
    def locals(**_types: Any) -> Callable[[_F], _F]:
        return lambda f: f

    @staticmethod
    def cast(_type: Any, value: Any, typecheck: bool = False) -> Any:
        # compiled: the value read as that C type, unchecked (e.g. a NamedTuple indexed as a tuple)
        return value
