"""Policy files side by side with Gemini CLI 0.61's own policy engine (its bundled code run by node): a corpus of
rules from its policy-engine docs, every call of a generated set, the same decision per call and mode."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.tooling.needs import CallNeeds
from tests.fakes.node_clients import NODE_ENVIRONMENT, gemini_cli_bundle, node
from tests.fakes.scripted_model import ScriptedModel, scripted_session

ORACLE = Path(__file__).resolve().parents[2] / "fakes" / "gemini_policy_oracle.mjs"

# rules as Gemini CLI's docs/reference/policy-engine.md writes them
CORPUS = {
    "rm": '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "rm -rf"\ndecision = "deny"\npriority = 100\n',
    "git": '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git"\ndecision = "ask_user"\npriority = 100\n',
    "git-allow": ('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ["git status", "git log"]\n'
                  'decision = "allow"\npriority = 100\n'),
    "regex": ('[[rule]]\ntoolName = "run_shell_command"\ncommandRegex = "git (commit|push)"\ndecision = "deny"\n'
              'priority = 200\n[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git"\n'
              'decision = "allow"\npriority = 100\n'),
    "args": ('[[rule]]\ntoolName = "run_shell_command"\nargsPattern = \'"command":"(git|npm)\'\n'
             'decision = "allow"\npriority = 10\n'),
    "writes": '[[rule]]\ntoolName = ["write_file", "replace"]\ndecision = "ask_user"\npriority = 10\n',
    "deny-write": ('[[rule]]\ntoolName = "write_file"\ndecision = "deny"\npriority = 500\n'
                   'denyMessage = "Deletion is permanent"\nmodes = ["default", "autoEdit"]\n'),
    "read-ask": '[[rule]]\ntoolName = "read_file"\ndecision = "ask_user"\npriority = 10\n',
    "mcp-one": '[[rule]]\nmcpName = "my-jira-server"\ntoolName = "search"\ndecision = "allow"\npriority = 200\n',
    "mcp-all": ('[[rule]]\nmcpName = "untrusted-server"\ntoolName = "*"\ndecision = "deny"\npriority = 500\n'
                'denyMessage = "This server is not trusted by the admin."\n'),
    "mcp-any": '[[rule]]\ntoolName = "*"\nmcpName = "*"\ndecision = "ask_user"\npriority = 10\n',
    "mcp-fqn": '[[rule]]\ntoolName = "mcp_my-jira-server_*"\ndecision = "deny"\npriority = 50\n',
    "yolo-deny": ('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "curl"\ndecision = "deny"\n'
                  'priority = 900\nmodes = ["yolo"]\n'),
    "interactive": ('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "make"\ndecision = "allow"\n'
                    'priority = 100\ninteractive = true\n'),
    "redirect": ('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "echo"\ndecision = "allow"\n'
                 'priority = 100\n[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "cat"\n'
                 'decision = "allow"\npriority = 100\nallowRedirection = true\n'),
    "star": '[[rule]]\ntoolName = "*"\ndecision = "deny"\npriority = 1\n',
}
COMMANDS = ["rm -rf build", "rm -r build", "git status", "git log -n 3", "git commit -m x", "git push origin main",
            "npm test", "npx vitest", "curl http://127.0.0.1/", "make all", "echo hi > out.txt", "cat a > b.txt",
            "git status && rm -rf /tmp/x", "git status && git log", "echo hi", "gitk", "python3 -c 1"]
FILES = [("write_file", {"file_path": "notes.txt", "content": "x"}),
         ("replace", {"file_path": "notes.txt", "old_string": "a", "new_string": "b"}),
         ("read_file", {"file_path": "notes.txt"})]
MCP = [("my-jira-server", "search"), ("my-jira-server", "create"), ("untrusted-server", "search"),
       ("other", "lookup")]


def calls() -> list[tuple[str, dict[str, Any], str | None]]:
    found: list[tuple[str, dict[str, Any], str | None]] = [
        ("run_shell_command", {"command": c}, None) for c in COMMANDS]
    found += [(name, args, None) for name, args in FILES]
    found += [(f"mcp_{server}_{tool}", {"q": "x"}, server) for server, tool in MCP]
    return found


def runs() -> list[tuple[str, str, bool]]:
    return [(scenario, mode, interactive) for scenario in sorted(CORPUS) for mode in MODES
            for interactive in ((True, False) if scenario in ("interactive", "git") else (True,))]


def home_for(base: Path, scenario: str) -> Path:
    home = base / scenario
    (home / ".gemini" / "policies").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "policies" / f"{scenario}.toml").write_text(CORPUS[scenario])
    (home / ".gemini" / "settings.json").write_text("{}")
    return home


@pytest.fixture(scope="module")
def gemini(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, bool], list[str]]:
    """Gemini CLI's decisions for every run, from one node process."""
    base = tmp_path_factory.mktemp("homes")
    batch = calls()
    payload = {"bundle": str(gemini_cli_bundle()), "runs": [
        {"home": str(home_for(base, scenario)), "mode": mode, "interactive": interactive,
         "calls": [{"name": n, "args": a, "server": s} for n, a, s in batch]}
        for scenario, mode, interactive in runs()]}
    done = subprocess.run([node(), str(ORACLE)], input=json.dumps(payload), capture_output=True, text=True,
                          env={**os.environ, **NODE_ENVIRONMENT}, timeout=300, check=True)
    return dict(zip(runs(), json.loads(done.stdout.strip().splitlines()[-1]), strict=True))


def ours(session: Any, name: str, args: dict[str, Any], server: str | None, interactive: bool) -> str:
    if server is not None:
        needs = CallNeeds(mcp_server=server, mcp_tool=name.split("_", 2)[2])
        aliases: set[str] = set()
    else:
        tool = session.registry.get(name)
        needs = tool.needs(tool.validate_params(args))
        aliases = session.registry.aliases(tool)
    verdict = session.policy.decide(name, needs, aliases, args=args, interactive=interactive).verdict
    return {"allow": "allow", "ask": "ask_user", "deny": "deny"}[str(verdict)]


MODES = {"default": ApprovalMode.default, "autoEdit": ApprovalMode.auto_edit, "yolo": ApprovalMode.yolo}
# where gemini-tui decides on its own grounds, not the policy files': Gemini CLI's built-in list of known-safe
# commands runs them unasked (gemini-tui asks for a command no rule allows), and gemini-tui asks before a
# command line it cannot see through (a redirection to a file it may not know), as documented in docs/policy.md
OWN_GROUNDS = {("run_shell_command", "git status"), ("run_shell_command", "git log -n 3"),
               ("run_shell_command", "echo hi"), ("run_shell_command", "git status && git log")}


@pytest.mark.parametrize("scenario", sorted(CORPUS))
def test_same_decisions_as_gemini_cli(scenario: str, tmp_path: Path,
                                      gemini: dict[tuple[str, str, bool], list[str]]) -> None:
    home = home_for(tmp_path, scenario)
    root = tmp_path / "work"
    root.mkdir()
    batch = calls()
    differences = []
    for run in [r for r in runs() if r[0] == scenario]:
        _, mode_name, interactive = run
        session = scripted_session(root, ScriptedModel(), home, approval_mode=MODES[mode_name],
                                   interactive=interactive)
        assert not [n for n in session.notices if "polic" in n.text], session.notices
        for (name, args, server), want in zip(batch, gemini[run], strict=True):
            got = ours(session, name, args, server, interactive)
            if not interactive:  # headless, a call that would ask is refused (by either scheduler)
                got, want = ("deny" if d == "ask_user" else d for d in (got, want))
            if got == want:
                continue
            key = (name, args.get("command", ""))
            if key in OWN_GROUNDS and not session.policy.files.best([name], args, server, mode_name):
                continue
            differences.append((mode_name, interactive, name, args, server, "gemini", want, "ours", got))
    assert not differences, "\n".join(map(str, differences))
