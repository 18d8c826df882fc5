"""The register and cache blocking of the GEMM routine (backend/matmul.py), chosen
for the host CPU.  A module of its own, without llvmlite: the runtime reads the row
split of threaded matrix products from here without loading the code generator."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tiling:
    """Register and cache blocking of one dtype (on a narrower target than it was
    chosen for the vectors split, still correct)."""

    lanes: int   # elements per vector register
    mr: int      # micro-tile rows (broadcast A elements)
    nv: int      # vectors per micro-tile row: nr = nv * lanes
    kc: int      # k block: an A micro-panel (mr x kc) stays in L1
    mc: int      # rows of the packed A block (L3)
    nc: int      # columns of the packed B block (kc x nc in L2)
    dmr: int     # direct path: micro-tile rows
    dnv: int     # direct path: vectors per row
    direct_work: int  # the direct path runs while m * n * k is at most this
    split: int   # threaded row chunks start at multiples of this (runtime._chunks)
    prefetch_c: bool = False  # prefetch a packed tile's C rows before its k loop
    narrow: int = 2  # direct path however large, for n within this many column tiles

    @property
    def nr(self) -> int:
        return self.nv * self.lanes


# AVX-512 (32 vector registers).  Measured on an AVX-512 Xeon core with two FMA ports
# (LLVM: rocketlake): packed runs at 75-80 GFLOP/s (float64) and 150-180 (float32) from
# about 128^3 up, as OpenBLAS on one thread; below about 128^3 (float64) or 160^3
# (float32) packing costs more than it saves.  A narrow product (n within 8 column tiles
# of the direct path: 128 float64 columns) takes the direct path however large: it reads
# A once where packing copies it to use each element a few times (measured on an AVX-512
# EPYC core, 2000^2 @ 2000xN, one thread: N=48 4.4 against 9.5-9.9 ms packed, N=100
# 10.3-10.5 against 13.6-14.4; X.T @ W N=100 12.3-12.6 against 17.3-19.8; at N=192 and 256
# plain products were even or worse).
TILINGS_AVX512 = {
    "float64": Tiling(lanes=8, mr=14, nv=2, kc=256, mc=1008, nc=512, dmr=8, dnv=2,
                      direct_work=1 << 21, split=8, narrow=8),
    "float32": Tiling(lanes=16, mr=14, nv=2, kc=512, mc=1008, nc=512, dmr=8, dnv=2,
                      direct_work=1 << 22, split=8, narrow=8),
}
# AVX2 (16 vector registers), measured on an AMD EPYC Zen 3 core (LLVM: znver3, 32 KB
# L1D, 512 KB L2) against OpenBLAS 0.3.31 (Haswell kernels) on one thread.  The AVX-512
# tile above is 56 ymm accumulators there, mostly spilled to the stack (2.4-3.3x
# OpenBLAS's time); 6 rows x 2 vectors is 12 accumulators, 2 B vectors and a broadcast
# (BLIS's Haswell and Zen shape; 4 rows x 3 vectors measured 2-10% slower).  The B
# block (kc x nc) is half of L2 (256 KB float64, 512 KB float32); the A block is all
# of A up to 4080 rows, so B is packed once per k block (with mc = 1008 a 1024^2
# float32 product packed B twice, 10% of its time).  Prefetching the C tile before the
# k loop: 2000^2 float64 1.05 -> 0.96x OpenBLAS.  The direct path (masked loads of B in
# place, 6 row pointers) lost to packing from 24^3 (float64) and 16^3 (float32) up; its
# narrow limit stays at two column tiles (16 float64 columns), not measured wider here.
TILINGS_AVX2 = {
    "float64": Tiling(lanes=4, mr=6, nv=2, kc=256, mc=4080, nc=256, dmr=6, dnv=2,
                      direct_work=1 << 12, split=6, prefetch_c=True),
    "float32": Tiling(lanes=8, mr=6, nv=2, kc=512, mc=4080, nc=256, dmr=6, dnv=2,
                      direct_work=1 << 9, split=6, prefetch_c=True),
}
_tilings: dict | None = None


def tilings() -> dict:
    """The tiling of each dtype for this CPU: ``TILINGS_AVX512`` where it has AVX-512,
    else ``TILINGS_AVX2``.  Told by the first processor's flags in /proc/cpuinfo, which
    the disk cache's fingerprint holds too (backend/native.py), so a cached routine was
    built with this choice; without that file, the AVX-512 values (either is correct on
    any CPU, only slower)."""
    global _tilings
    if _tilings is None:
        from .native import _cpu
        flags = next((line.split(":", 1)[1].split() for line in _cpu().splitlines()
                      if line.split(":", 1)[0].strip() == "flags"), None)
        _tilings = TILINGS_AVX2 if flags is not None and "avx512f" not in flags \
            else TILINGS_AVX512
    return _tilings


def split_rows(dtype_name: str) -> int:
    """Threaded row chunks of a matrix product of ``dtype_name`` start at multiples of
    this (runtime._chunks): the GEMM routine's register tile rows, so no chunk but the
    last has a partial row tile.  Any split gives the same bits: every path of the
    routine sums each element in the same k blocks (backend/matmul.py)."""
    t = tilings().get(dtype_name)
    return t.split if t is not None else 8
