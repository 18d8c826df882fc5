"""IR text shipped with the package, for the unit a new machine needs first.

A new machine's first evaluation waits for the sequencer (backend/sequencer.py) as
quick code.  Writing its IR with llvmlite's builder is 30-40 ms of Python (importing
``llvmlite.ir``, building, printing), as long as LLVM's compile of it, and it holds
the GIL the caller's own building blocks need meanwhile.  The text depends on no
machine, so it is written once (``python -m backend.shipped`` in a checkout) into
``sequencer.ll`` beside this file, headed by a hash of the sources it came from, and
read back while those sources are unchanged; otherwise it is built as before.
tests/test_shipped.py fails while the file is stale.
"""
from __future__ import annotations

import os

from .names import digest

_HERE = os.path.dirname(os.path.abspath(__file__))
SEQUENCER_FILE = os.path.join(_HERE, "sequencer.ll")
# every module whose code or constants shape the sequencer's IR
SEQUENCER_SOURCES = ("sequencer.py", "bytecode.py", "abi.py")
_HEAD = "; lazyarray sequencer, sources "


def sources_hash() -> str:
    """The hash of the sources the sequencer's IR is written from."""
    texts = []
    for name in SEQUENCER_SOURCES:
        with open(os.path.join(_HERE, name), "rb") as f:
            texts.append(f.read())
    return digest(b"\0".join(texts), 32)


def _read() -> str | None:
    """The shipped text, or None when it is missing or stale."""
    try:
        with open(SEQUENCER_FILE, encoding="utf-8") as f:
            text = f.read()
        current = sources_hash()
    except OSError:
        return None
    head, _, body = text.partition("\n")
    return body if head == _HEAD + current else None


def sequencer_ir(vector_variants: dict | None = None) -> str:
    """The sequencer's IR (a unit builder, see backend/native.py): the shipped text when
    it is current, else written by backend/sequencer.py."""
    text = _read()
    if text is None:
        from . import sequencer
        text = sequencer.unit_ir()
    return text


def write() -> str:
    """Write the sequencer's IR and the hash of its sources to ``SEQUENCER_FILE``."""
    from . import sequencer
    with open(SEQUENCER_FILE, "w", encoding="utf-8") as f:
        f.write(f"{_HEAD}{sources_hash()}\n{sequencer.unit_ir()}")
    return SEQUENCER_FILE


if __name__ == "__main__":
    print(f"wrote {write()}")
