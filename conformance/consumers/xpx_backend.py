"""pytest plugin: lazyarray as one more member of array-api-extra's test backends.

array-api-extra's tests (from its sdist) take the ``library`` fixture, parametrized over
the members of the enum ``array_api_extra._lib._backends.Backend``; the ``xp`` fixture
imports ``library.modname``. An enum with members cannot be extended, so this plugin
replaces it, before the tests' conftest imports it, by an enum of the same name with the
same members and methods plus ``LAZYARRAY = "lazyarray"``. Tests that branch on a member
(``library.like(Backend.NUMPY)``) keep doing so; lazyarray matches none of the others.

Use: ``python -m pytest -p xpx_backend <sdist>/tests`` with this folder on ``PYTHONPATH``
(``run.py xpx`` does it).
"""
from __future__ import annotations

from enum import Enum, EnumMeta

import pytest

import _common


def _extended(old: type[Enum]) -> type[Enum]:
    """A copy of the enum ``old`` (members, methods, docstring) with LAZYARRAY added."""
    ns = EnumMeta.__prepare__(old.__name__, (Enum,))
    for member in old:
        ns[member.name] = member.value
    ns["LAZYARRAY"] = "lazyarray"
    for attr, value in vars(old).items():
        if attr in old.__members__ or (attr.startswith("_") and attr not in
                                       ("__doc__", "__module__", "__qualname__")):
            continue
        ns[attr] = value
    return EnumMeta(old.__name__, (Enum,), ns)


def patch() -> None:
    """Replace array-api-extra's ``Backend`` by the extended enum (idempotent)."""
    from array_api_extra._lib import _backends

    if "LAZYARRAY" not in _backends.Backend.__members__:
        # pytest_param() reads the global name Backend: it now finds the new enum.
        _backends.Backend = _extended(_backends.Backend)


patch()  # at import: -p loads plugins before the tests' conftest imports the enum


def pytest_configure(config: pytest.Config) -> None:
    _common.install(config, _common.backend_of)
