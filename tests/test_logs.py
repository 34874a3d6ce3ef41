"""Every line a process writes when stderr is not a terminal is JSON (integrations/logs.py): an exception nothing
caught, in the process, in a thread or in a forked child, and whatever Python code prints to stderr itself;
a failure met again and again is said once as it begins and once as it ends."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap

import redis

from service.integrations import logs
from tests.conftest import ROOT

CRASHING = textwrap.dedent("""
    import multiprocessing as mp, sys, threading, warnings
    from service.integrations import logs
    logs.setup()

    def boom():
        raise ValueError("boom")

    print("a library's own line", file=sys.stderr)
    warnings.warn("a warning")
    thread = threading.Thread(target=boom)
    thread.start()
    thread.join()
    for target in (boom, logs.guarded(boom)):  # multiprocessing prints a child's traceback itself
        child = mp.get_context("fork").Process(target=target)
        child.start()
        child.join()
        print(child.exitcode)
    raise KeyError("uncaught")
""")


def test_every_line_is_json_uncaught_exceptions_included():
    done = subprocess.run([sys.executable, "-c", CRASHING], cwd=ROOT, capture_output=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "REFEREE_LOG_FORMAT": "json"})
    assert done.returncode == 1 and done.stdout.split() == [b"1", b"1"]
    lines = [json.loads(line) for line in done.stderr.splitlines()]  # (each one JSON, or this fails)
    messages = [line["message"] for line in lines]
    assert "a library's own line" in messages
    assert any("a warning" in m for m in messages)
    assert any(m.startswith("uncaught ValueError in thread") for m in messages)
    assert "boom ended: boom" in messages  # a guarded child: one line, and status 1
    printed = [line for line in lines if line["logger"] == "stderr" and line["message"] == "ValueError: boom"]
    assert len(printed) == 1 and printed[0]["error"].startswith("Traceback")  # a printed traceback: one line
    assert lines[-1]["message"] == "uncaught KeyError: 'uncaught'" and lines[-1]["level"] == "critical"


def test_an_incident_is_said_once_as_it_begins_and_once_as_it_ends(caplog):
    incident = logs.Incident(logging.getLogger("referee.test"), "worker")
    refused = redis.exceptions.OutOfMemoryError("OOM command not allowed when used memory > 'maxmemory'.")
    with caplog.at_level(logging.WARNING, "referee.test"):
        waits = [incident.failed(refused) for _ in range(12)]
        incident.ok()
        incident.ok()
    assert waits[:4] == [0.5, 1.0, 2.0, 4.0] and max(waits) == 30.0  # backing off, doubling, up to 30 s
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2
    assert said[0].startswith("worker: the store refuses writes at its maxmemory (OutOfMemoryError)")
    assert said[1].startswith("worker: recovered after") and "12 tries" in said[1]
