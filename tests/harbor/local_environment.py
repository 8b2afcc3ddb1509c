"""A Harbor environment on this machine: what Harbor's agents ask of a task container (run a shell command as the
agent, upload and download files), done here, with the container's fixed folders (/installed-agent, /logs/agent,
Harbor's ACP runner venv) mapped into the test's own temporary folders. Nothing outside them is written.

The agents only call `exec`, `upload_file`, `download_file` and read `default_user`; Harbor's `BaseEnvironment`
also builds images and starts containers, which a test on loopback has no use for."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from pathlib import Path

from harbor.environments.base import ExecResult


class LocalEnvironment:
    default_user = None

    def __init__(self, workdir: Path, mapping: dict[str, Path], env: dict[str, str]) -> None:
        """`mapping`: container path -> folder here (longest first wins); `env`: the container's environment."""
        self.workdir = workdir
        self.mapping = dict(sorted(mapping.items(), key=lambda item: -len(item[0])))
        self.env = env
        self.commands: list[str] = []
        # a container path at the start of a word (after a space, `=`, a quote or a redirection)
        self._pattern = re.compile(r"(?<![\w./-])(" + "|".join(re.escape(p) for p in self.mapping) + r")(?=/|\b|$)")

    def local(self, path: str) -> str:
        return self._pattern.sub(lambda m: str(self.mapping[m.group(1)]), path)

    async def exec(self, command: str, user: str | int | None = None, env: dict[str, str] | None = None,
                   cwd: str | None = None, timeout_sec: int | None = None, **_: object) -> ExecResult:
        self.commands.append(command)
        process = await asyncio.create_subprocess_exec(
            "bash", "-c", self.local(command), cwd=self.local(cwd) if cwd else self.workdir,
            env={**self.env, **(env or {})}, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True)
        try:
            out, err = await asyncio.wait_for(process.communicate(), timeout_sec or 300)
        except TimeoutError:
            os.killpg(process.pid, 9)
            raise
        return ExecResult(stdout=out.decode(errors="replace"), stderr=err.decode(errors="replace"),
                          return_code=process.returncode if process.returncode is not None else -1)

    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        target = Path(self.local(target_path))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source_path, target)

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        Path(target_path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.local(source_path), target_path)
