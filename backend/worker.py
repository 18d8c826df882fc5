"""A compile worker: a child process that turns LLVM IR into object code.

llvmlite's pass pipeline keeps about 80 KB per compile that it never gives
back, so a long-running process that compiles thousands of programs would
grow without bound.  Compiling in a child process that is replaced every
``RECYCLE`` compiles bounds that; it also keeps an LLVM abort from killing the
user's process.  The parent starts the worker in the background on its first
compile and compiles in-process until the worker is ready, and whenever it is
not (died, being replaced, or turned off with ``LAZYARRAY_COMPILE_WORKER=0``).

Protocol (binary, over the child's stdin/stdout): the child writes ``READY\\n``
once LLVM is initialised; a request is a 4-byte length, a byte (1: quick
machine code, see ``llvm.Codegen.compile``) and the IR text; a
reply is a status byte (``0`` ok, ``1`` error), three float64 timings and a
4-byte length with the object code (or the error text).
"""
from __future__ import annotations

import os
import select
import struct
import subprocess
import sys
import threading
from typing import Callable, Optional

RECYCLE = 1000
_REPLY = struct.Struct("<B3dI")


def enabled() -> bool:
    return os.environ.get("LAZYARRAY_COMPILE_WORKER", "1").lower() not in ("0", "false", "off", "no")


class Worker:
    """One child process; ``compile`` is used by one thread at a time."""

    def __init__(self) -> None:
        # The child resolves imports the way this process does.
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from lazyarray.backend.worker import serve; serve()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.ready = False
        self.compiles = 0

    def poll_ready(self) -> bool:
        """True once the child said READY (never blocks)."""
        if self.ready:
            return True
        if self.proc.poll() is not None:
            return False
        r, _, _ = select.select([self.proc.stdout], [], [], 0)
        if r:
            self.ready = self.proc.stdout.readline() == b"READY\n"
        return self.ready

    def compile(self, ir_text: str, quick: bool = False) -> tuple:
        """(object code, seconds); raises RuntimeError if the worker fails."""
        data = ir_text.encode()
        try:
            self.proc.stdin.write(struct.pack("<IB", len(data), quick) + data)
            self.proc.stdin.flush()
            head = _read(self.proc.stdout, _REPLY.size)
            status, parse, opt, gen, n = _REPLY.unpack(head)
            payload = _read(self.proc.stdout, n)
        except (OSError, EOFError, struct.error) as e:
            raise RuntimeError(f"compile worker failed: {e}") from None
        self.compiles += 1
        if status:
            raise RuntimeError(f"compile worker: {payload.decode(errors='replace')}")
        return payload, {"parse": parse, "optimize": opt, "codegen": gen}

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def _read(f, n: int) -> bytes:
    chunks = []
    while n:
        c = f.read(n)
        if not c:
            raise EOFError("worker closed its output")
        chunks.append(c)
        n -= len(c)
    return b"".join(chunks)


class Pool:
    """Routes compiles to a ready worker, else to ``fallback`` (in-process)."""

    def __init__(self, fallback: Callable[[str, bool], tuple]) -> None:
        self.fallback = fallback
        self.lock = threading.Lock()
        self.current: Optional[Worker] = None
        self.next: Optional[Worker] = None
        self.failures = 0
        os.register_at_fork(after_in_child=self._after_fork_in_child)

    def _after_fork_in_child(self) -> None:
        """The workers' pipes belong to the parent: a forked child starts its own."""
        self.lock = threading.Lock()
        self.current = self.next = None

    def compile(self, ir_text: str, quick: bool = False) -> tuple:
        w = self._ready_worker()
        if w is not None:
            try:
                with self.lock:
                    return w.compile(ir_text, quick)
            except RuntimeError:
                self._drop(w)
        return self.fallback(ir_text, quick)

    def _ready_worker(self) -> Optional[Worker]:
        with self.lock:
            if self.failures > 3:
                return None  # workers keep dying here: compile in-process from now on
            if self.current is None:
                self.current = Worker()
            if self.current.compiles >= RECYCLE and self.next is None:
                self.next = Worker()
            if self.next is not None and self.next.poll_ready():
                old, self.current, self.next = self.current, self.next, None
                old.close()
            if self.current.poll_ready():
                return self.current
            if self.current.proc.poll() is not None:  # died before it was ready
                self.failures += 1
                self.current = None
            return None

    def _drop(self, w: Worker) -> None:
        with self.lock:
            self.failures += 1
            if self.current is w:
                self.current = None
        w.close()

    def close(self) -> None:
        with self.lock:
            for w in (self.current, self.next):
                if w is not None:
                    w.close()
            self.current = self.next = None


def serve() -> None:
    """The child's loop: compile each request until stdin closes."""
    from .llvm import Codegen
    gen = Codegen(in_process=True)
    gen.own_options()
    out = sys.stdout.buffer
    src = sys.stdin.buffer
    out.write(b"READY\n")
    out.flush()
    while True:
        try:
            n, quick = struct.unpack("<IB", _read(src, 5))
            text = _read(src, n).decode()
        except EOFError:
            return
        try:
            obj, s = gen.compile_here(text, bool(quick))
            out.write(_REPLY.pack(0, s["parse"], s["optimize"], s["codegen"], len(obj)) + obj)
        except Exception as e:  # the parent gets the message and compiles in-process
            msg = f"{type(e).__name__}: {e}".encode()
            out.write(_REPLY.pack(1, 0.0, 0.0, 0.0, len(msg)) + msg)
        out.flush()
