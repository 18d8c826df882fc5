"""Digests that name compiled units, their symbols and disk-cache files.

BLAKE2b from ``_blake2``, not ``hashlib``: importing hashlib loads OpenSSL, about 3 ms
that a first evaluation (or a first front door) would otherwise wait for.
"""
from __future__ import annotations

try:
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover - CPython always has it
    from hashlib import blake2b as _blake2b


def digest(data: bytes, size: int = 16) -> str:
    """A hex digest of ``size`` bytes (BLAKE2b) of ``data``."""
    return _blake2b(data, digest_size=size).hexdigest()


def name_of(prefix: str, key, size: int = 10) -> str:
    """``prefix`` and a digest of ``repr(key)``: a symbol name for structure ``key``."""
    return prefix + digest(repr(key).encode(), size)
