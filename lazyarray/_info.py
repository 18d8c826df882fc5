"""``__array_namespace_info__``: capabilities, devices and default dtypes."""
from __future__ import annotations

from . import _dtypes as dt
from ._array_object import CPU


class _Devices(tuple):
    """A tuple of devices that a list can be added to (on either side), giving a list:
    ``devices() + [None]`` worked when the standard said devices() returns a list."""

    __slots__ = ()

    def __add__(self, other):
        if isinstance(other, list):
            return list(self) + other
        return tuple.__add__(self, other)

    def __radd__(self, other):
        if isinstance(other, list):
            return other + list(self)
        return NotImplemented


class _Info:
    """What this namespace supports (the standard's inspection API)."""

    def capabilities(self) -> dict:
        # Boolean masks and data-dependent shapes (nonzero, unique_*) evaluate their
        # inputs at that point; on placeholders they raise ConcretizationError.
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 64}

    def default_device(self):
        return CPU

    def devices(self) -> tuple:
        """The supported devices: a tuple, as the 2025.12 standard says (2024.12 said a
        list).  Adding a list to it gives a list, so consumers written for the older
        text keep working (scipy 1.17's ``devices() + [None]``)."""
        return _Devices((CPU,))

    def default_dtypes(self, *, device=None) -> dict:
        return {"real floating": dt.float64, "complex floating": dt.complex128,
                "integral": dt.int64, "indexing": dt.int64}

    def dtypes(self, *, device=None, kind=None) -> dict:
        out = {d.name: d for d in dt.ALL_DTYPES}
        if kind is None:
            return out
        return {n: d for n, d in out.items() if dt.isdtype(d, kind)}


def __array_namespace_info__() -> _Info:
    """The inspection namespace of lazyarray."""
    return _Info()
