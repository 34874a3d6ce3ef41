"""The processes ``referee serve``, ``referee api`` and ``referee worker`` start, and how they stop.

A terminal's Ctrl-C reaches every process of its foreground process group at once, and so does
``kill -TERM -PGID`` (what a shell's job control and some container setups send).  Were the children
in the parent's group, the embedded server would go first and the rest would fail against it.  So
every child runs in a process group of its own (:func:`fork`, and ``process_group=0`` for the
embedded server): a group-wide signal reaches the parent alone, which stops the children in order,
each when its turn comes (the API server and its processes, the workers, the store last).

The parent counts the stop signals it gets (:func:`catch_stop_signals`): the first asks for an
orderly stop, a second one while stopping for a quick one (:func:`hurried`), in which what is
still running is killed at once; nothing is lost by that, as each commit is atomic and the sweeper
re-enqueues a job a killed worker held.
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import signal
import time
from collections.abc import Callable
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_signals: list[int] = []


def catch_stop_signals() -> None:
    """Count SIGINT and SIGTERM in this (supervising) process from now on, instead of dying of them."""
    _signals.clear()
    for sig in STOP_SIGNALS:
        signal.signal(sig, lambda signum, frame: _signals.append(signum))


def stop_requested() -> bool:
    return bool(_signals)


def hurried() -> bool:
    """A second stop signal came: stop now rather than in order."""
    return len(_signals) > 1


def fork(target: Callable[..., Any], args: tuple, name: str) -> mp.Process:
    """Start ``target(*args)`` in a forked child that leads a process group of its own.

    The stop signals stay blocked from the fork until the child has left the parent's group and
    set its own dispositions, so a Ctrl-C at that moment cannot reach it (nor run a handler it
    inherited from the parent)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        proc = mp.get_context("fork").Process(target=_child, args=(target, args, previous), name=name)
        proc.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    return proc


def _child(target: Callable[..., Any], args: tuple, mask: set) -> None:
    os.setpgid(0, 0)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent stops us with SIGTERM when our turn comes
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # only a terminal sends it; the parent decides
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    target(*args)


def exec_in_own_group(parent: int) -> None:
    """``preexec_fn`` of a program the parent starts with ``process_group=0`` while the stop signals are
    blocked (:meth:`service.infra.embedded.EmbeddedRedis.start`): a blocked mask would outlive ``exec``."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    die_with_parent(parent)


def stop_processes(procs: list, timeout: float = 10.0) -> None:
    """SIGTERM forked children (multiprocessing's, started by :func:`fork`), then SIGKILL those still alive
    after ``timeout`` seconds, or at once when the stop is :func:`hurried`, with their own children."""
    for p in procs:
        if p.is_alive():
            p.terminate()
    deadline = time.monotonic() + timeout
    for p in procs:
        while p.is_alive() and time.monotonic() < deadline and not hurried():
            p.join(0.05)
        if p.is_alive():  # with what it started (RQ's scheduler): each child leads a process group
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.join()


def name_process(name: str) -> None:
    """Name this process as ``ps -o comm`` and /proc/<pid>/comm show it (15 bytes): a forked child otherwise
    shows its parent's name (``referee-api``, ``referee-app``, ``referee-worker``...)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(15, name.encode()[:15])  # PR_SET_NAME
    except (OSError, AttributeError):
        pass


def die_with_parent(parent: int | None = None) -> None:
    """Ask Linux to SIGTERM this process when its parent dies, so a crash of the parent leaves no orphan.

    ``parent``: the pid that started this process.  If it died between the fork and this request
    (a worker restarted just as ``referee serve`` was killed), the request comes too late: this
    process is an orphan already, and stops now (seen as sweepers outliving a SIGKILLed service).
    """
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)
