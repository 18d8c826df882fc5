"""Benchmark cases and workloads, and the numerical check against numpy."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

RTOL = 1e-12
ATOL = 1e-12   # elementwise results are O(1); a few ulps near a zero crossing pass


@dataclass
class Case:
    """One library's way of computing a workload.

    ``make`` does the untimed setup (data conversion, compile/prepare) and
    returns the timed call.  ``check`` returns a mismatch message for the
    last result (None when it matches); ``after`` a note once timing is done
    (e.g. how many compiles happened).  Times are divided by ``per`` (e.g.
    per recorded op).  A ``reported`` call times itself (e.g. inside a child
    process) and returns ``(seconds, result)``.
    """

    lib: str
    make: Callable[[], Callable[[], Any]]
    check: Optional[Callable[[Any], Optional[str]]] = None
    after: Optional[Callable[[], str]] = None
    memory: bool = True
    fresh: bool = False
    reported: bool = False  # the call returns (seconds it measured itself, result)
    per: int = 1
    note: str = ""


@dataclass
class Workload:
    name: str
    title: str
    cases: Callable[[Any], list]   # Libs -> list[Case]
    big: bool = False              # skipped by --quick


def mismatch(got: Any, ref: np.ndarray, rtol: float = RTOL, atol: float = ATOL) -> Optional[str]:
    """Why ``got`` differs from numpy's ``ref`` (None when it is close enough)."""
    g = np.asarray(got)
    ref = np.asarray(ref)
    if g.shape != ref.shape:
        return f"shape {g.shape} != numpy's {ref.shape}"
    if g.dtype != ref.dtype:
        return f"dtype {g.dtype} != numpy's {ref.dtype}"
    if np.allclose(g, ref, rtol=rtol, atol=atol, equal_nan=True):
        return None
    with np.errstate(all="ignore"):
        err = np.nanmax(np.abs(g - ref) / np.maximum(np.abs(ref), atol / rtol))
    return f"max rel err {err:.2e} > rtol {rtol:g}"


def against(ref: np.ndarray) -> Callable[[Any], Optional[str]]:
    """A check comparing a result to a fixed numpy reference."""
    return lambda got: mismatch(got, ref)

