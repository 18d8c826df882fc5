"""ConcretizationError and the shared wording of errors."""
from __future__ import annotations


class ConcretizationError(TypeError):
    """A value was needed from an array that depends on a placeholder.

    Placeholders have no values until a compiled program runs, so Python
    control flow (``if``, ``int()``, ``float()``, printing values) cannot look
    at arrays computed from them.  Use ``lazyarray.where`` for data-dependent
    choices inside traced functions, or evaluate on concrete data.
    """


class AxisError(ValueError, IndexError):
    """An axis argument outside ``[-ndim, ndim)``: a ValueError (a bad argument value)
    and an IndexError, as numpy's AxisError is."""


def concretization_error(what: str, names: list) -> ConcretizationError:
    """The error for ``what`` (e.g. ``"bool()"``) on an array depending on ``names``."""
    shown = ", ".join(repr(n) for n in names)
    plural = "s" if len(names) > 1 else ""
    return ConcretizationError(
        f"{what} needs the value of an array that depends on placeholder{plural} {shown}, "
        "which has no value while a program is being recorded. For a data-dependent choice "
        "inside a traced function (e.g. `if xp.sum(x) > 0:`) use lazyarray.where(cond, a, b); "
        "otherwise run the program on concrete inputs first (lazyarray.compile(...)(values))."
    )


def input_label(i: int, name) -> str:
    """How error messages name program input ``i``."""
    return f"input {i} ({name!r})" if name else f"input {i}"
