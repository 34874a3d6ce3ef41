"""What the API processes of one server count together: the requests under way per client address.

A client's connections land on any of granian's workers, so a per-address limit counted in each process alone
would let an address hold as many times the limit as there are processes.  granian's server makes this table
before it forks its workers (:func:`make`), and every worker inherits it: one row per process, a slot per
address (the address hashed with the interpreter's secret, the same in every forked worker), each row written
by its own process only, so no lock is taken per request; a count is the sum of the rows.  A worker that dies
leaves its row to its successor, which clears it: nothing a dead process held is counted any longer.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os

SLOTS = 1 << 16


class ClientCounts:
    """Requests under way per client address, over every API process of this server."""

    def __init__(self, rows: int) -> None:
        self.rows = rows
        self.table = multiprocessing.RawArray(ctypes.c_int32, rows * SLOTS)
        self.owners = multiprocessing.RawArray(ctypes.c_int32, rows)
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
                base = row * SLOTS
                ctypes.memset(ctypes.addressof(self.table) + base * 4, 0, SLOTS * 4)
                self.row = row
                return
        raise RuntimeError("no free row in the table of client counts")

    def count(self, address: str) -> int:
        slot = hash(address) & (SLOTS - 1)
        table = self.table
        return sum(table[row * SLOTS + slot] for row in range(self.rows))

    def add(self, address: str, delta: int) -> None:
        self.table[self.row * SLOTS + (hash(address) & (SLOTS - 1))] += delta


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
