"""What the harness runs on: the competitors that import, versions, CPU, environment.

Nothing here changes the environment: OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE
are reported as found (they slow numpy's BLAS on this machine; see README).
"""
from __future__ import annotations

import os
import platform
import sys
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

REPORTED_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS",
                "OMP_NUM_THREADS", "NUMEXPR_MAX_THREADS", "XLA_FLAGS")


@dataclass
class Libs:
    """Importable competitors (None when missing) and why the missing ones are."""

    numexpr: Any = None
    numba: Any = None
    jax: Any = None
    jnp: Any = None
    missing: dict = field(default_factory=dict)


def load_libs() -> Libs:
    """Import numexpr, numba and jax (x64 enabled) if they are installed."""
    libs = Libs()
    for name in ("numexpr", "numba"):
        try:
            setattr(libs, name, __import__(name))
        except Exception as e:  # noqa: BLE001 - any import failure just drops the competitor
            libs.missing[name] = f"{type(e).__name__}: {e}"
    try:
        import jax
        import jax.numpy as jnp
        jax.config.update("jax_enable_x64", True)  # float64 like everyone else
        libs.jax, libs.jnp = jax, jnp
    except Exception as e:  # noqa: BLE001
        libs.missing["jax"] = f"{type(e).__name__}: {e}"
    return libs


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(mod: Optional[Any]) -> str:
    return getattr(mod, "__version__", "?") if mod is not None else "not installed"


def _blas() -> str:
    try:
        b = np.__config__.CONFIG["Build Dependencies"]["blas"]
        return f"{b.get('name', '?')} {b.get('version', '')}".strip()
    except (AttributeError, KeyError, TypeError):
        return "unknown"


def _git_state(root: Optional[str] = None) -> str:
    """The commit of the lazyarray checkout being measured (read-only git calls); by
    default the checkout holding these benchmarks."""
    import subprocess
    root = root or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (head or "unknown") + (" + uncommitted changes" if dirty else "")


def installed_from() -> str:
    """Where the imported lazyarray was installed from (pip's direct_url.json) and, for a
    local folder that is a git checkout, its commit now: the commit measured if nothing
    was committed there since the install."""
    import json
    from importlib import metadata
    try:
        url = json.loads(metadata.distribution("lazyarray").read_text("direct_url.json") or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        return "unknown"
    src = url.get("url", "unknown")
    if src.startswith("file://") and not url.get("dir_info", {}).get("editable"):
        return f"{src} (its git now: {_git_state(src[len('file://'):])})"
    return src


def header(libs: Libs, quick: bool, title: str = "lazyarray benchmarks") -> list[str]:
    """Lines describing machine, environment and versions."""
    import llvmlite
    import llvmlite.binding as llvm
    import lazyarray
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = os.cpu_count()
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    env = "  ".join(f"{k}={os.environ[k]!r}" if k in os.environ else f"{k}=<unset>"
                    for k in REPORTED_ENV)
    jaxlib = "not installed"
    if libs.jax is not None:
        import jaxlib
        jaxlib = jaxlib.__version__
    llvm_v = ".".join(map(str, llvm.llvm_version_info))
    lines = [
        f"{title} ({'quick' if quick else 'full'} run)",
        f"CPU: {_cpu_model()}  cores: {os.cpu_count()} (usable {affinity})  load avg: {load}",
        f"env: {env}",
        f"python {platform.python_version()}  numpy {np.__version__} (BLAS: {_blas()})  "
        f"lazyarray {lazyarray.__version__} (git {_git_state()})  llvmlite {llvmlite.__version__} (LLVM {llvm_v})",
        f"numexpr {_version(libs.numexpr)}"
        + (f" ({libs.numexpr.nthreads} threads)" if libs.numexpr is not None else "")
        + f"  numba {_version(libs.numba)}  jax {_version(libs.jax)}  jaxlib {jaxlib}",
    ]
    for name, why in libs.missing.items():
        lines.append(f"skipped {name}: {why}")
    lines.append(f"platform: {platform.platform()}  {sys.implementation.name}")
    return lines
