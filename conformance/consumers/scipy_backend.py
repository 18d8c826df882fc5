"""pytest plugin: lazyarray as one more backend of scipy's ``xp`` fixture.

scipy's own ``conftest.py`` lists the array libraries its array API tests run on
(``xp_available_backends``, pytest params of the ``xp`` fixture) and the names its
``skip_xp_backends``/``xfail_xp_backends`` markers may use (``xp_known_backends``). When
that conftest is registered, this plugin appends lazyarray to both and rebuilds the
fixture with the longer parameter list, so every test that takes ``xp`` runs on lazyarray
too, with scipy's own body of the fixture (``default_xp``, the skip/xfail markers). It also
sets array-api-strict to the 2025.12 standard, which scipy's conftest pins to 2024.12
(``STRICT_API_VERSION``: another version; empty: scipy's pin).

Use: ``SCIPY_ARRAY_API=1 python -m pytest -p scipy_backend --pyargs scipy.special
-m array_api_backends`` with this folder on ``PYTHONPATH`` (``run.py scipy`` does it).
"""
from __future__ import annotations

import os

import pytest

import _common


def _is_scipy_conftest(plugin: object) -> bool:
    return (getattr(plugin, "__name__", "") == "scipy.conftest"
            and hasattr(plugin, "xp_available_backends"))


def _extend(conftest) -> None:
    """Add lazyarray to scipy's known and available backends and re-make ``xp``."""
    import lazyarray

    if "lazyarray" in conftest.xp_known_backends:
        return
    conftest.xp_known_backends.add("lazyarray")
    conftest.xp_available_backends.append(
        pytest.param(lazyarray, id="lazyarray", marks=pytest.mark.array_api_backends))
    body = getattr(conftest.xp, "__wrapped__", conftest.xp)
    # The decorator froze the old list into the fixture: decorate scipy's body again.
    conftest.xp = pytest.fixture(params=list(conftest.xp_available_backends))(body)
    # scipy's conftest pins array-api-strict to the 2024.12 standard; lazyarray implements
    # 2025.12 (as array-api-strict's default, and scikit-learn's and array-api-extra's tests,
    # use), so both run on the same standard: array-api-strict's 2025.12 functions
    # (linalg.eigvals) and devices are those lazyarray is compared with.
    # STRICT_API_VERSION="" keeps scipy's pin.
    version = os.environ.get("STRICT_API_VERSION", "2025.12")
    if version and "array_api_strict" in {p.id for p in conftest.xp_available_backends}:
        import array_api_strict

        array_api_strict.set_array_api_strict_flags(api_version=version)


@pytest.hookimpl(tryfirst=True)
def pytest_plugin_registered(plugin: object, manager) -> None:
    # tryfirst: before pytest's fixture manager reads the conftest's fixtures.
    if _is_scipy_conftest(plugin):
        _extend(plugin)


def pytest_configure(config: pytest.Config) -> None:
    _common.install(config, _common.backend_of)
