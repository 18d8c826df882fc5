"""The persistent cache: a new process loads what an earlier one compiled, and
a damaged, truncated or foreign entry is recompiled, never trusted."""
import json
import os
import subprocess
import sys

import pytest

PROGRAM = """
import json, numpy as np, lazyarray as xp
from lazyarray.backend import native
x = xp.asarray(np.linspace(0, 2, 1000))
v = float(xp.sum(xp.sin(x) * x ** 2) + xp.max(xp.cos(x)))
native.flush()  # the optimised building blocks that follow the quick ones
print(json.dumps({"value": v, **xp.compile_cache_info()._asdict()}))
"""


def run(cache_dir, **env):
    # LAZYARRAY_PREBUILD=0: no building blocks compiled ahead of need (flush would wait)
    environ = dict(os.environ, LAZYARRAY_CACHE_DIR=str(cache_dir), LAZYARRAY_PREBUILD="0",
                   **env)
    out = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                         env=environ, check=True, timeout=120)  # a hang fails
    return json.loads(out.stdout.strip().splitlines()[-1])


def files(cache_dir):
    return sorted(p for p in cache_dir.rglob("*.o"))


@pytest.fixture
def first(tmp_path):
    info = run(tmp_path)
    assert info["compiles"] >= 1 and info["disk_hits"] == 0
    assert files(tmp_path)
    return info


def test_second_process_loads_instead_of_compiling(tmp_path, first):
    info = run(tmp_path)
    assert info["compiles"] == 0 and info["disk_hits"] >= 1
    assert info["value"] == first["value"]


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "garbage"])
def test_damaged_entries_are_recompiled(tmp_path, first, damage):
    for f in files(tmp_path):
        data = f.read_bytes()
        if damage == "flip":
            data = data[:-10] + bytes(b ^ 0xFF for b in data[-10:])
        elif damage == "truncate":
            data = data[: len(data) // 2]
        elif damage == "empty":
            data = b""
        else:
            data = b"\x7fELF" + os.urandom(200)
        f.write_bytes(data)
    info = run(tmp_path)
    assert info["compiles"] == first["compiles"] and info["disk_hits"] == 0
    assert info["value"] == first["value"]
    again = run(tmp_path)  # the recompiled entries were written back
    assert again["compiles"] == 0 and again["value"] == first["value"]


def test_disabled_cache_writes_nothing(tmp_path):
    info = run(tmp_path, LAZYARRAY_DISK_CACHE="0")
    assert info["compiles"] >= 1 and not files(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_in_place_of_an_entry_is_ignored(tmp_path, first):
    for f in files(tmp_path):  # a reader that opened these would wait forever
        f.unlink()
        os.mkfifo(f)
    info = run(tmp_path)
    assert info["value"] == first["value"] and info["compiles"] == first["compiles"]
