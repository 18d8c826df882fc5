"""pytest plugin: lazyarray as one more namespace of scikit-learn's array API tests.

scikit-learn's array API tests are parametrized by
``sklearn.utils._array_api.yield_namespace_device_dtype_combinations`` (and a few by
``yield_namespaces``), which name the libraries by module; its estimator checks call them
when they run. This plugin wraps ``yield_namespaces`` (which the first one calls) so that
lazyarray follows array-api-strict, before any test module imports it. lazyarray has one
device; it runs each test in float64 and float32 (``(lazyarray, None, float64)`` and
``(lazyarray, None, float32)``), as array-api-strict does.

Use: ``SCIPY_ARRAY_API=1 python -m pytest -p sklearn_backend --pyargs sklearn`` with this
folder on ``PYTHONPATH`` (``run.py sklearn`` does it).
"""
from __future__ import annotations

import pytest

import _common

def _with_lazyarray(original):
    def yield_namespaces(include_numpy_namespaces: bool = True):
        """scikit-learn's namespaces, then lazyarray."""
        yield from original(include_numpy_namespaces=include_numpy_namespaces)
        yield "lazyarray"
    yield_namespaces.__wrapped__ = original
    return yield_namespaces


def _with_lazyarray_dtypes(original):
    def yield_namespace_device_dtype_combinations(include_numpy_namespaces: bool = True):
        """scikit-learn's combinations, with lazyarray in float64 and float32."""
        for combo in original(include_numpy_namespaces=include_numpy_namespaces):
            if combo[0] == "lazyarray":
                yield "lazyarray", None, "float64"
                yield "lazyarray", None, "float32"
            else:
                yield combo
    yield_namespace_device_dtype_combinations.__wrapped__ = original
    return yield_namespace_device_dtype_combinations


def patch() -> None:
    """Add lazyarray to scikit-learn's namespace generators (idempotent), also where a
    module imported earlier holds them under its own name."""
    import sys

    from sklearn.utils import _array_api as aa

    if hasattr(aa.yield_namespaces, "__wrapped__"):
        return
    old = {"yield_namespaces": aa.yield_namespaces,
           "yield_namespace_device_dtype_combinations":
               aa.yield_namespace_device_dtype_combinations}
    new = {"yield_namespaces": _with_lazyarray(old["yield_namespaces"]),
           "yield_namespace_device_dtype_combinations": _with_lazyarray_dtypes(
               old["yield_namespace_device_dtype_combinations"])}
    for name, module in list(sys.modules.items()):
        if not name.startswith("sklearn") or module is None:
            continue
        for attr, fn in old.items():
            if getattr(module, attr, None) is fn:
                setattr(module, attr, new[attr])


# At import (``-p`` loads plugins before scikit-learn's conftest): test modules that
# import the generators by name then get these.
patch()


def pytest_configure(config: pytest.Config) -> None:
    patch()
    _common.install(config, _common.backend_of)
