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
    counter: int = 0

    @property
    def socket_dir(self) -> Path:
        return self.folder / "sock"

    def url(self, database: str) -> str:
        """A postgresql:// URL for `database` over the Unix socket."""
        return f"postgresql://{PG_USER}@/{database}?host={self.socket_dir}"

    @classmethod
    def start(cls, bin_dir: Path) -> PgServer:
        """initdb and start a server that listens on a Unix socket only."""
        folder = Path(tempfile.mkdtemp(prefix="memtest-pg-"))
        run_as: dict[str, object] = {}
        if os.geteuid() == 0:
            import pwd

            nobody = pwd.getpwnam("nobody")
            os.chown(folder, nobody.pw_uid, nobody.pw_gid)
            run_as = {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}
        server = cls(bin_dir, folder)
        data = folder / "data"
        subprocess.run(
            [bin_dir / "initdb", "-D", data, "-U", PG_USER, "--auth=trust", "-E", "UTF8",
             "--no-sync", "--locale=C"],
            check=True, capture_output=True, cwd=folder, **run_as,  # type: ignore[arg-type]
        )  # fmt: skip
        subprocess.run(["mkdir", "-p", server.socket_dir], check=True, **run_as)  # type: ignore[call-overload]
        options = f"-k {server.socket_dir} -c listen_addresses='' -c max_connections=120"
        subprocess.run(
            [bin_dir / "pg_ctl", "-D", data, "-l", folder / "log", "-w", "-o", options, "start"],
            check=True, capture_output=True, cwd=folder, **run_as,  # type: ignore[arg-type]
        )  # fmt: skip
        server._run_as = run_as  # type: ignore[attr-defined]
        return server

    def new_database(self) -> str:
        """Create an empty database and return its URL."""
        import psycopg

        self.counter += 1
        name = f"test_{os.getpid()}_{self.counter}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        """Stop the server at once and remove its folder."""
        subprocess.run(
            [self.bin_dir / "pg_ctl", "-D", self.folder / "data", "-m", "immediate", "stop"],
            check=False, capture_output=True, cwd=self.folder,
            **self._run_as,  # type: ignore[attr-defined]
        )  # fmt: skip
        shutil.rmtree(self.folder, ignore_errors=True)
