"""A real PostgreSQL server for tests: initdb + pg_ctl in a temporary folder, Unix socket only.

Started once per test session (`PgServer.start`), a fresh database per test
(`PgServer.new_database`), stopped at the end. PostgreSQL refuses to run as root, so when
the tests run as root the server runs as `nobody`.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

PG_USER = "memtest"


def find_bin_dir() -> Path | None:
    """The folder holding initdb and pg_ctl: on PATH, else Debian's versioned folder."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(candidate) / "initdb").exists():
            return Path(candidate)
    return None


@dataclass
class PgServer:
    """One running server: its data folder, socket folder and binaries."""

    bin_dir: Path
    folder: Path
    uid: int | None = None  # who the server runs as, when the tests run as root
    gid: int | None = None
    counter: int = 0

    @property
    def socket_dir(self) -> Path:
        return self.folder / "sock"

    def url(self, database: str) -> str:
        """A postgresql:// URL for `database` over the Unix socket."""
        return f"postgresql://{PG_USER}@/{database}?host={self.socket_dir}"

    def _run(self, *args: str | Path, check: bool = True) -> None:
        """Run a server program as the server's user."""
        subprocess.run(
            [str(a) for a in args],
            check=check,
            capture_output=True,
            cwd=self.folder,
            user=self.uid,
            group=self.gid,
            extra_groups=[] if self.uid is not None else None,
        )

    @classmethod
    def start(cls, bin_dir: Path) -> PgServer:
        """initdb and start a server that listens on a Unix socket only."""
        folder = Path(tempfile.mkdtemp(prefix="memtest-pg-"))
        server = cls(bin_dir, folder)
        if os.geteuid() == 0:
            import pwd

            nobody = pwd.getpwnam("nobody")
            server.uid, server.gid = nobody.pw_uid, nobody.pw_gid
            os.chown(folder, nobody.pw_uid, nobody.pw_gid)
        data = folder / "data"
        server._run(
            bin_dir / "initdb", "-D", data, "-U", PG_USER, "--auth=trust", "-E", "UTF8",
            "--no-sync", "--locale=C",
        )  # fmt: skip
        server._run("mkdir", "-p", server.socket_dir)
        options = f"-k {server.socket_dir} -c listen_addresses='' -c max_connections=120"
        server._run(
            bin_dir / "pg_ctl", "-D", data, "-l", folder / "log", "-w", "-o", options, "start"
        )
        return server

    def new_database(self) -> str:
        """Create an empty database and return its URL."""
        import psycopg

        self.counter += 1
        name = f"test_{os.getpid()}_{self.counter}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
        return self.url(name)

    def stop(self) -> None:
        """Stop the server at once and remove its folder."""
        self._run(self.bin_dir / "pg_ctl", "-D", self.folder / "data", "-m", "immediate", "stop",
                  check=False)  # fmt: skip
        shutil.rmtree(self.folder, ignore_errors=True)
