"""`referee serve` as a newcomer runs it: embedded Redis, Ctrl-C stops everything, data survives a restart."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest
import requests

from clients.client import Referee
from service.infra.embedded import free_port
from tests.conftest import ROOT, wait_for


def descendants(pid: int) -> set[int]:
    kids = {int(p) for p in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()}
    for kid in list(kids):
        kids |= descendants(kid)
    return kids


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:  # a zombie is gone for our purposes
        return fh.read().split()[2] != "Z"


def start(data, port):
    """Started from the data folder's parent with a relative --data, as `referee serve` is by default."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.Popen([sys.executable, "-m", "clients.cli", "serve", "--port", str(port), "--workers", "1",
                             "--processes", "1", "--data", data.name], cwd=data.parent, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: _ready(port), timeout=30)
    return proc


def _ready(port):
    try:
        return requests.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200
    except requests.RequestException:
        return False


def stop(proc) -> None:
    tree = descendants(proc.pid)
    assert len(tree) >= 3  # embedded server, API, worker(s) and sweeper
    proc.send_signal(signal.SIGINT)  # Ctrl-C
    proc.wait(30)
    deadline = time.monotonic() + 10
    while any(alive(p) for p in tree) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in tree if alive(p)], "orphan processes after Ctrl-C"


def test_serve_embedded_survives_restart_and_leaves_no_orphans(tmp_path):
    data, port = tmp_path / "data", free_port()
    proc = start(data, port)
    ref = Referee(f"http://127.0.0.1:{port}")
    m = ref.create_match("super_blatt", 2, [{"name": "ann"}, {"name": "bob"}], seed=1)
    token = m["seats"][0]["token"]
    seat = ref.match(m["id"], token)["to_act"][0]
    ref.move(m["id"], m["seats"][seat]["token"], ref.legal_moves(m["id"], m["seats"][seat]["token"])["moves"][0])
    before = ref.match(m["id"], token)
    stop(proc)
    assert (data / "appendonlydir").exists() or list(data.glob("*.aof"))

    proc = start(data, port)
    try:
        assert ref.match(m["id"], token) == before  # the match came back from the data folder
    finally:
        stop(proc)


def test_the_port_claim_is_not_held_by_forked_children():
    """A worker or RQ work-horse forked by `referee serve` must not keep the claim on the port: the
    fault test saw a horse outlive a SIGKILLed service and refuse its restart ("port ... is taken")."""
    from clients.cli import PortTaken, claim_port

    port = free_port()
    holder = claim_port("127.0.0.1", port)
    ready, started = os.pipe()
    child = os.fork()
    if child == 0:  # a process forked while the claim is held, living on after its parent let go
        os.write(started, b"1")  # (its at-fork handlers have run by now)
        time.sleep(5)
        os._exit(0)
    os.read(ready, 1)
    os.close(ready)
    os.close(started)
    try:
        try:
            claim_port("127.0.0.1", port)
            raise AssertionError("a second claim while the first is held")
        except PortTaken:
            pass
        holder.close()  # the serving process is gone; its forked child still runs
        claim_port("127.0.0.1", port).close()
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


def test_a_child_whose_parent_died_before_it_asked_to_die_with_it_stops():
    """die_with_parent(parent): when the parent is gone before PR_SET_PDEATHSIG is set (a worker
    restarted just as the service was SIGKILLed), the child is an orphan already and must stop; such
    sweepers were found running on after the fault test."""
    from service.infra.processes import die_with_parent

    child = os.fork()
    if child == 0:
        try:  # never back into pytest: this is a copy of the test process
            # as the worker and the sweeper do (a handler inherited from this process, e.g. RQ's, which an
            # in-process worker of another test left installed, raised here and the copy ran on as pytest)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            die_with_parent(parent=os.getppid() + 1_000_000)  # as if the pid that forked us were gone
            time.sleep(10)
        finally:
            os._exit(0)
    _, status = os.waitpid(child, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM


def test_a_worker_restarted_by_serve_still_stops_on_sigterm(monkeypatch):
    """`referee serve` handles SIGTERM itself; a worker or sweeper it forks (again) after installing that
    handler inherited it, so SIGTERM (its own stop, and the parent-death signal) left it running."""
    from workers.run import _spawn

    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{free_port()}/0")  # nothing there: it only retries
    stops = []
    previous = signal.signal(signal.SIGTERM, lambda s, f: stops.append(s))  # as cmd_serve has it
    try:
        sweeper = _spawn(0, 0, 0)  # index 0 of no workers: the sweeper
    finally:
        signal.signal(signal.SIGTERM, previous)
    time.sleep(0.5)
    sweeper.terminate()
    sweeper.join(5)
    alive_after = sweeper.is_alive()
    if alive_after:
        sweeper.kill()
        sweeper.join()
    assert not alive_after and sweeper.exitcode == -signal.SIGTERM and not stops


def test_the_embedded_servers_rewrite_runs_below_the_requests(tmp_path):
    """An append-only file rewrite forks the whole dataset and writes it flat out; `referee serve` lowers it to
    nice 10 (service.infra.embedded.EmbeddedRedis.lower_background), so that it takes the CPU the requests leave."""
    import redis

    data, port = tmp_path / "data", free_port()
    data.mkdir()
    proc = start(data, port)
    try:
        conf = (data / "server.conf").read_text().splitlines()
        client = redis.Redis(port=int(next(c.split()[1] for c in conf if c.startswith("port "))),
                             password=(data / "password").read_text())
        client.mset({f"filler:{i}": "x" * 100 for i in range(2000)})
        client.config_set("rdb-key-save-delay", 1000)  # a millisecond per key: the rewrite lasts ~2 s
        server = next(p for p in descendants(proc.pid) if "valkey-server" in open(f"/proc/{p}/cmdline").read())
        client.bgrewriteaof()

        def rewrite_nice() -> int | None:
            with open(f"/proc/{server}/task/{server}/children") as fh:
                kids = fh.read().split()
            return os.getpriority(os.PRIO_PROCESS, int(kids[0])) if kids else None

        assert wait_for(lambda: rewrite_nice() == 10, timeout=5)
        client.config_set("rdb-key-save-delay", 0)
        client.delete(*[f"filler:{i}" for i in range(2000)])
        assert os.getpriority(os.PRIO_PROCESS, server) == 0  # the server itself keeps its priority
    finally:
        stop(proc)


def test_an_api_server_that_cannot_start_stops_the_api_with_a_message(redis_url, monkeypatch):
    """Restarting an API server that dies at once (its port taken after `referee serve` checked it) would loop forever:
    after three quick deaths in a row the supervisor gives up, and `referee serve` exits 1 saying so."""
    from service.serving.server import ApiProcesses

    monkeypatch.setenv("REDIS_URL", redis_url)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        api = ApiProcesses("127.0.0.1", taken.getsockname()[1], 1)
        try:
            with pytest.raises(RuntimeError, match="exited 3 times at start"):
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    api.replace_dead()
                    time.sleep(0.3)
        finally:
            api.stop()
