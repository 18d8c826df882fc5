"""The compile worker pool (backend/worker.py) when two threads race for one worker: X's
request kills the worker (as an LLVM abort in the child would) while Y, which picked the
same worker, waits for the pool's lock.  The order is forced with events, not timing."""
import threading
import time

import pytest

from lazyarray.backend import worker

BUILDER = ("blocks", "unit_ir", (("iota",),))  # a small unit
WAIT = 120  # seconds: only a guard against hanging, never reached when the pool works
# The threads that start this test's workers: the process's own pool, which the patch of
# worker.Worker reaches too, starts its workers on its timer and compile threads.
OURS = ("MainThread", "X", "Y")


class _HeldBack:
    """The pool's lock, with thread Y's acquire held back until ``go`` is set."""

    def __init__(self, lock, waits: threading.Event, go: threading.Event) -> None:
        self.lock, self.waits, self.go = lock, waits, go

    def acquire(self, blocking: bool = True) -> bool:
        if threading.current_thread().name == "Y":
            self.waits.set()
            assert self.go.wait(WAIT)
        return self.lock.acquire(blocking)

    def release(self) -> None:
        self.lock.release()


class Race:
    def __init__(self, monkeypatch) -> None:
        self.made, self.sent = [], []  # workers started; (thread, worker, closed?) per request
        self.made_hook = lambda: None  # called when a second worker starts
        self.x_in, self.y_waits, self.y_go = (threading.Event() for _ in range(3))
        monkeypatch.setattr(worker, "Worker", self._recording_worker())
        self.pool = worker.Pool()
        if self.pool.compile(BUILDER, True, background=True) is None:
            self.pool.close()
            pytest.skip("no compile worker here")
        self.pool.lock = _HeldBack(self.pool.lock, self.y_waits, self.y_go)
        self.results = {}

    def _recording_worker(self):
        race = self

        class Recorded(worker.Worker):
            def __init__(self) -> None:
                super().__init__()
                if threading.current_thread().name in OURS:
                    race.made.append(self)
                    if len(race.made) == 2:
                        race.made_hook()

            def compile(self, builder, quick, timeout=worker.DEFAULT_TIMEOUT):
                me = threading.current_thread().name
                if self not in race.made:
                    return super().compile(builder, quick, timeout)
                race.sent.append((me, race.made.index(self), self.proc.stdin.closed))
                if me == "X":
                    race.x_in.set()
                    assert race.y_waits.wait(WAIT)
                    self.proc.kill()
                return super().compile(builder, quick, timeout)
        return Recorded

    def thread(self, name: str) -> threading.Thread:
        def go():
            self.results[name] = self.pool.compile(BUILDER, True, background=True)
        t = threading.Thread(target=go, name=name, daemon=True)
        t.start()
        return t

    def x_then_y(self) -> tuple:
        """Start X; once it is in its request, Y (which then picks X's worker)."""
        x = self.thread("X")
        assert self.x_in.wait(WAIT)
        return x, self.thread("Y")


@pytest.fixture
def race(monkeypatch):
    r = Race(monkeypatch)
    yield r
    r.pool.close()


def test_a_worker_two_threads_see_die_counts_as_one_failure(race):
    race.y_go.set()  # Y takes the lock as soon as X lets go of it
    x, y = race.x_then_y()
    x.join(WAIT)
    y.join(WAIT)
    assert race.results == {"X": None, "Y": None}  # both compile in-process
    assert race.pool.failures == 1
    assert race.pool.usable()


def test_a_request_goes_only_to_the_current_worker(race):
    """Y picked X's worker before X dropped it; its request must not go out once a new
    worker runs: the dropped worker's pipe numbers may be the new one's by then, and the
    new worker's first request read the reply to Y's ("answered request 3 to request 1")."""
    race.made_hook = race.y_go.set  # Y takes the lock once the new worker is started
    x, y = race.x_then_y()
    x.join(WAIT)
    race.results["main"] = race.pool.compile(BUILDER, True, background=True)
    y.join(WAIT)
    assert len(race.made) == 2
    assert [s for s in race.sent if s[2]] == []  # no request on a closed worker
    assert race.results["main"] is not None
    assert race.pool.failures == 1


def test_a_worn_worker_is_replaced_between_requests(monkeypatch):
    """The replacement takes over at a request (where none is in flight on the old one,
    which is then closed); every request is answered on the way."""
    monkeypatch.setattr(worker, "RECYCLE", 1)
    pool = worker.Pool()
    try:
        if pool.compile(BUILDER, True, background=True) is None:
            pytest.skip("no compile worker here")
        first = pool.current
        for _ in range(WAIT * 100):  # until the replacement is ready
            assert pool.compile(BUILDER, True, background=True) is not None
            if pool.current is not first:
                break
            time.sleep(0.01)
        assert pool.current is not first and first.proc.poll() is not None
        assert pool.failures == 0
    finally:
        pool.close()
