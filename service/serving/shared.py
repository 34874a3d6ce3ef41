"""What the API processes of one server share: the requests under way per client address, and each one's pulse.

A client's connections land on any of granian's workers, so a per-address limit counted in each process alone
would let an address hold as many times the limit as there are processes.  granian's server makes this table
before it forks its workers (:func:`make`), and every worker inherits it: one row per process, a slot per
address (the address hashed with the interpreter's secret, the same in every forked worker), each row written
by its own process only, so no lock is taken per request; a count is the sum of the rows.  A worker that dies
leaves its row to its successor, which clears it: nothing a dead process held is counted any longer.

Each process also beats in its row every second, from its event loop (:meth:`ClientCounts.beat`).  granian's
server process watches the beats (:func:`watch`): a process whose loop has not turned for longer than Flask's
deadline and a margin is stuck where SIGALRM cannot reach it (frozen by SIGSTOP, or in C code that never returns
to Python), and is killed, for granian to start another.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import os
import signal
import threading
import time

SLOTS = 1 << 16


class ClientCounts:
    """Requests under way per client address, over every API process of this server."""

    def __init__(self, rows: int) -> None:
        self.rows = rows
        self.table = multiprocessing.RawArray(ctypes.c_int32, rows * SLOTS)
        self.owners = multiprocessing.RawArray(ctypes.c_int32, rows)
        self.beats = multiprocessing.RawArray(ctypes.c_double, rows)  # CLOCK_MONOTONIC: the same in every process
        self.lock = multiprocessing.get_context("fork").Lock()
        self.row = -1  # this process's row: ``claim`` in each worker

    def claim(self) -> None:
        """Take the row of a process that is gone (or never was), and clear it."""
        with self.lock:
            for row in range(self.rows):
                owner = self.owners[row]
                if owner and owner != os.getpid() and _alive(owner):
                    continue
                self.owners[row] = os.getpid()
                self.beats[row] = time.monotonic()
                base = row * SLOTS
                ctypes.memset(ctypes.addressof(self.table) + base * 4, 0, SLOTS * 4)
                self.row = row
                return
        raise RuntimeError("no free row in the table of client counts")

    def beat(self) -> None:
        self.beats[self.row] = time.monotonic()

    def stuck(self, after: float) -> list[int]:
        """The live processes whose last beat is older than ``after`` seconds."""
        now, out = time.monotonic(), []
        for row in range(self.rows):
            owner = self.owners[row]
            if owner and now - self.beats[row] > after and _alive(owner):
                out.append(owner)
        return out

    def count(self, address: str) -> int:
        slot = hash(address) & (SLOTS - 1)
        table = self.table
        return sum(table[row * SLOTS + slot] for row in range(self.rows))

    def add(self, address: str, delta: int) -> None:
        self.table[self.row * SLOTS + (hash(address) & (SLOTS - 1))] += delta


class LocalCounts:
    """The same counts kept by one process alone: an application made without granian's server (tests)."""

    def __init__(self) -> None:
        self.under_way: dict[str, int] = {}

    def count(self, address: str) -> int:
        return self.under_way.get(address, 0)

    def add(self, address: str, delta: int) -> None:
        left = self.under_way.get(address, 0) + delta
        if left:
            self.under_way[address] = left
        else:
            del self.under_way[address]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


#: made by granian's server process before it forks its workers (service/serving/server.py)
COUNTS: ClientCounts | None = None


def make(processes: int) -> ClientCounts:
    """The table for ``processes`` workers, with rows to spare for the ones that replace them."""
    global COUNTS
    COUNTS = ClientCounts(2 * processes + 2)
    return COUNTS


log = logging.getLogger("referee.processes")
#: seconds past Flask's deadline before a process whose loop stopped turning is killed (SIGALRM had its chance)
MARGIN = 5.0


def watch(counts: ClientCounts, deadline: float, every: float = 1.0) -> threading.Thread:
    """In granian's server process: kill the API processes that stopped beating (see the module's docstring)."""

    def run() -> None:
        while True:
            time.sleep(every)
            for pid in counts.stuck(deadline + MARGIN):
                log.error("API process %s has not turned its event loop for %.0f s (REFEREE_APP_TIMEOUT %.0f s + "
                          "%.0f s): killed, granian starts another", pid, deadline + MARGIN, deadline, MARGIN)
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    thread = threading.Thread(target=run, name="referee-watch", daemon=True)
    thread.start()
    return thread
