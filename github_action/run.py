"""The GitHub Action's run step (action.yml): check the actor may write to the repository, then run gemini-tui
headless on the prompt with the given settings and hand back the answer and the ATIF trajectory as outputs.

Only gemini-tui itself is given the API key. Its commands run in the sandbox's minimal environment (no key, no
token), and the GitHub token used for the permission check is not passed to gemini-tui at all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

WRITERS = {"admin", "maintain", "write"}
APPROVAL_MODES = {"default", "auto_edit", "plan", "yolo"}
# what the agent's process keeps of the runner's environment (never a token or a secret of another step)
KEPT = ("PATH", "LANG", "LC_ALL", "TMPDIR", "RUNNER_TEMP", "GITHUB_WORKSPACE", "GOOGLE_GEMINI_BASE_URL")


def fail(message: str) -> int:
    print(f"::error::{message}", flush=True)
    return 1


def may_write(actor: str, repository: str) -> str | None:
    """The actor's permission on the repository, through the gh CLI (GH_TOKEN); None when it cannot be read."""
    try:
        done = subprocess.run(["gh", "api", f"repos/{repository}/collaborators/{actor}/permission", "--jq",
                               ".permission"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def set_output(name: str, value: str) -> None:
    target = os.environ.get("GITHUB_OUTPUT")
    if not target:
        return
    delimiter = f"gemini_tui_{uuid.uuid4().hex}"
    with open(target, "a", encoding="utf-8") as out:
        out.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def main() -> int:
    actor, repository = os.environ.get("GITHUB_ACTOR", ""), os.environ.get("GITHUB_REPOSITORY", "")
    permission = may_write(actor, repository)
    if permission not in WRITERS:  # fail closed: an unknown permission is no permission
        return fail(f"{actor or 'the actor'} cannot write to {repository or 'this repository'} "
                    f"(permission: {permission or 'unknown'}); gemini-tui runs only for users with write access.")
    prompt = os.environ.get("INPUT_PROMPT", "")
    if not prompt and (prompt_file := os.environ.get("INPUT_PROMPT_FILE", "")):
        try:
            prompt = Path(prompt_file).read_text(encoding="utf-8")
        except OSError as exc:
            return fail(f"cannot read prompt-file {prompt_file}: {exc}")
    if not prompt.strip():
        return fail("give a prompt or a prompt-file")
    try:
        settings = json.loads(os.environ.get("INPUT_SETTINGS") or "{}")
    except ValueError as exc:
        return fail(f"settings is not JSON: {exc}")
    if not isinstance(settings, dict):
        return fail("settings must be a JSON object")
    mode = os.environ.get("INPUT_APPROVAL_MODE") or "auto_edit"
    if mode not in APPROVAL_MODES:
        return fail(f"approval-mode must be one of {', '.join(sorted(APPROVAL_MODES))}")
    key = os.environ.get("INPUT_GEMINI_API_KEY", "")
    if not key:
        return fail("gemini-api-key is empty")

    base = Path(tempfile.mkdtemp(prefix="gemini-tui-", dir=os.environ.get("RUNNER_TEMP") or None))
    (base / ".gemini").mkdir()
    (base / ".gemini" / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    trajectory = base / "trajectory.json"
    env = {name: os.environ[name] for name in KEPT if name in os.environ}
    env |= {"HOME": str(base), "GEMINI_CLI_HOME": str(base), "GEMINI_API_KEY": key}
    command = ["gemini-tui", "-p", prompt, "-o", "json", "--trajectory", str(trajectory), "--approval-mode", mode]
    if os.environ.get("INPUT_SANDBOX", "true").lower() != "false":
        command.append("--sandbox")  # refused (not run bare) when the sandbox cannot start
    if model := os.environ.get("INPUT_MODEL", ""):
        command += ["-m", model]
    done = subprocess.run(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True,
                          cwd=os.environ.get("GITHUB_WORKSPACE") or None)
    try:
        answer = json.loads(done.stdout).get("response", "")
    except ValueError:
        answer = ""
    set_output("answer", answer)
    set_output("trajectory", str(trajectory) if trajectory.exists() else "")
    print(answer, flush=True)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
