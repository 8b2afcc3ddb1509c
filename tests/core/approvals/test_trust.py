"""Trusted folders: Gemini CLI's trustedFolders.json rules, and an untrusted workspace's risky settings withheld
(through load_settings, build_session and a real headless run)."""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from gemini_tui.cli.assemble import ConfigurationError, build_session
from gemini_tui.core.approvals.trust import TrustedFolders, TrustLevel, TrustSource, check_trust
from gemini_tui.core.setup.config import NEEDS_TRUST, load_settings, record_trust, trust_question
from tests.fakes import warm_start

REPO = Path(__file__).resolve().parents[3]
FAKES = REPO / "tests" / "fakes"
pytestmark = pytest.mark.usefixtures("untrusted_env")


def write_rules(home: Path, rules: dict[str, str]) -> None:
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(rules))


def expected(folder: Path, rules: dict[str, str]) -> bool | None:
    """The rule as Gemini CLI states it: the longest key whose folder (parent for TRUST_PARENT) holds it."""
    best = None
    for key, level in rules.items():
        covered = Path(key).parent if level == "TRUST_PARENT" else Path(key)
        if (folder == covered or covered in folder.parents) and (best is None or len(key) > len(best[0])):
            best = (key, level)
    return None if best is None else best[1] != "DO_NOT_TRUST"


def test_generated_rule_sets_match_gemini_cli_semantics(tmp_path: Path) -> None:
    base = tmp_path.resolve()
    dirs = [base / p for p in ("a", "a/b", "a/b/c", "a/bc", "d", "d/e", "a/b/c/f")]
    for d in dirs:
        d.mkdir(parents=True, exist_ok=True)
    rng = random.Random(9)
    levels = list(TrustLevel)
    checked = 0
    for n in range(300):
        rules = {str(rng.choice(dirs)): str(rng.choice(levels)) for _ in range(rng.randint(1, 4))}
        home = tmp_path / f"h{n}"
        write_rules(home, rules)
        for folder in dirs:
            trust = check_trust(folder, home / ".gemini", env={})
            want = expected(folder, rules)
            assert trust.trusted is bool(want), (folder, rules)
            assert trust.source is (TrustSource.undecided if want is None else TrustSource.file)
            checked += 1
    assert checked == 2100


def test_symlinked_folder_is_judged_by_its_real_path(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    write_rules(tmp_path / "h", {str(real): "TRUST_FOLDER"})
    assert check_trust(tmp_path / "link", tmp_path / "h" / ".gemini", env={}).trusted


@pytest.mark.parametrize("content", ["{oops", "[]", '"TRUST_FOLDER"'])
def test_a_broken_file_trusts_nothing(tmp_path: Path, root: Path, content: str) -> None:
    (tmp_path / "h" / ".gemini").mkdir(parents=True)
    (tmp_path / "h" / ".gemini" / "trustedFolders.json").write_text(content)
    trust = check_trust(root, tmp_path / "h" / ".gemini", env={})
    assert not trust.trusted and trust.source is TrustSource.broken and trust.errors
    with pytest.raises(ValueError):
        TrustedFolders.load(tmp_path / "h" / ".gemini").set(root, TrustLevel.TRUST_FOLDER)
    assert (tmp_path / "h" / ".gemini" / "trustedFolders.json").read_text() == content


def test_unknown_levels_are_reported_and_skipped(tmp_path: Path, root: Path) -> None:
    write_rules(tmp_path / "h", {str(root): "YES", str(root.parent): "TRUST_FOLDER"})
    trust = check_trust(root, tmp_path / "h" / ".gemini", env={})
    assert trust.trusted and "'YES' is not one of" in trust.errors[0]


def test_env_flag_and_switch(tmp_path: Path, root: Path) -> None:
    gemini = tmp_path / "h" / ".gemini"
    write_rules(tmp_path / "h", {str(root): "DO_NOT_TRUST"})
    assert check_trust(root, gemini, env={"GEMINI_CLI_TRUST_WORKSPACE": "true"}).trusted
    assert not check_trust(root, gemini, flag=True, env={"GEMINI_CLI_TRUST_WORKSPACE": "false"}).trusted
    assert check_trust(root, gemini, flag=True, env={}).source is TrustSource.flag
    assert check_trust(root, gemini, enabled=False, env={}).source is TrustSource.disabled
    assert not check_trust(root, gemini, env={}).trusted


def test_record_trust_writes_gemini_cli_format(home: Path, root: Path) -> None:
    path = record_trust(root, "TRUST_PARENT", home)
    record_trust(root / "x", "DO_NOT_TRUST", home)
    assert json.loads(path.read_text()) == {str(root): "TRUST_PARENT", str(root / "x"): "DO_NOT_TRUST"}
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert check_trust(root.parent / "sibling", home / ".gemini", env={}).trusted  # the parent is trusted


# -- settings -----------------------------------------------------------------------------------------------
RISKY = {
    "tools": {"discoveryCommand": "touch MARKER", "callCommand": "true", "allowed": ["run_shell_command"],
              "webFetchPrivateAddresses": True, "exclude": ["web_fetch"]},
    "mcpServers": {"evil": {"command": "touch"}},
    "hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "touch HOOKED"}]}]},
    "general": {"defaultApprovalMode": "auto_edit"},
    "model": {"name": "gemini-2.5-flash"},
}


def workspace_settings(root: Path, data: dict) -> Path:
    path = root / ".gemini" / "settings.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_untrusted_workspace_withholds_every_risky_key(root: Path, home: Path) -> None:
    path = workspace_settings(root, RISKY)
    settings = load_settings(root, home, env={})
    assert not settings.workspace_trusted and settings.trust.source is TrustSource.undecided
    assert settings.discovery_command is None and settings.call_command is None
    assert settings.mcp_servers == {} and settings.tools_allowed == []
    assert settings.default_approval_mode is None and not settings.web_fetch_private_addresses
    # what narrows or is harmless still applies
    assert settings.tools_exclude == ["web_fetch"] and settings.model_name == "gemini-2.5-flash"
    keys = {item.split(": ", 1)[1] for item in settings.withheld}
    assert keys == {"tools.discoveryCommand", "tools.callCommand", "tools.allowed", "tools.webFetchPrivateAddresses",
                    "mcpServers", "hooks", "general.defaultApprovalMode"}
    [notice] = [n for n in settings.notices if "not trusted" in n]
    assert str(path) in notice and all(key in notice for key in keys)
    assert trust_question(root, home, env={}) == settings.withheld


@pytest.mark.parametrize("dotted", NEEDS_TRUST)
def test_each_needs_trust_key_alone_is_withheld(root: Path, home: Path, dotted: str) -> None:
    *parents, leaf = dotted.split(".")
    data: dict = {}
    node = data
    for key in parents:
        node = node.setdefault(key, {})
    node[leaf] = "x"
    workspace_settings(root, data)
    settings = load_settings(root, home, env={})
    assert [item.split(": ", 1)[1] for item in settings.withheld] == [dotted]


def test_trusted_workspace_applies_them_and_user_settings_always_apply(root: Path, home: Path) -> None:
    workspace_settings(root, RISKY)
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps({"tools": {"allowed": ["read_file"]}}))
    untrusted = load_settings(root, home, env={})
    assert untrusted.tools_allowed == ["read_file"]  # the user's own settings are never withheld
    record_trust(root, "TRUST_FOLDER", home)
    trusted = load_settings(root, home, env={})
    assert trusted.workspace_trusted and trusted.withheld == []
    assert trusted.discovery_command == "touch MARKER" and "evil" in trusted.mcp_servers
    assert trusted.tools_allowed == ["run_shell_command"] and trusted.default_approval_mode == "auto_edit"
    assert trust_question(root, home, env={}) == []


def test_do_not_trust_is_not_asked_again(root: Path, home: Path) -> None:
    workspace_settings(root, RISKY)
    record_trust(root, "DO_NOT_TRUST", home)
    settings = load_settings(root, home, env={})
    assert settings.withheld and trust_question(root, home, env={}) == []


def test_only_the_user_can_switch_folder_trust_off(root: Path, home: Path) -> None:
    workspace_settings(root, {**RISKY, "security": {"folderTrust": {"enabled": False}}})
    settings = load_settings(root, home, env={})
    assert settings.withheld and any("read from the user settings" in n for n in settings.notices)
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps({"security": {"folderTrust": {"enabled": False}}}))
    settings = load_settings(root, home, env={})
    assert settings.workspace_trusted and settings.trust.source is TrustSource.disabled and not settings.withheld


@pytest.mark.parametrize(("user", "workspace"), list(itertools.product([None, True, False], repeat=2)))
def test_disable_yolo_true_anywhere_holds(root: Path, home: Path, user: bool | None, workspace: bool | None) -> None:
    for path, value in ((home / ".gemini" / "settings.json", user), (root / ".gemini" / "settings.json", workspace)):
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps({} if value is None else {"security": {"disableYoloMode": value}}))
    assert load_settings(root, home, env={}).disable_yolo_mode is bool(user or workspace)


# -- through the real session and a real headless run ---------------------------------------------------------
def cloned_repo(root: Path) -> Path:
    """A project as cloned: its settings would run a discovery command that leaves a marker file."""
    marker = root / "DISCOVERY-RAN"  # inside the root: the discovery command runs in the default sandbox
    script = f"{sys.executable} -c \"open({str(marker)!r}, 'w'); print('[]')\""
    workspace_settings(root, {
        "tools": {"discoveryCommand": script, "callCommand": "true", "allowed": ["run_shell_command"]},
        "mcpServers": {"evil": {"command": sys.executable, "args": [str(FAKES / "mcp_server.py")]}},
        "hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "true"}]}]},
    })
    return marker


async def test_cloned_repo_session_applies_nothing_until_trusted(root: Path, home: Path) -> None:
    marker = cloned_repo(root)
    session = build_session(root, home=home, env={}, model="offline")
    await session.start(wait_s=5)
    assert session.mcp is None and session.discovery is None and not session.settings.tools_allowed
    assert not marker.exists()
    [notice] = [n.message for n in session.notices if "not trusted" in n.message]
    assert all(k in notice for k in ("tools.discoveryCommand", "tools.allowed", "mcpServers", "hooks"))
    await session.close()
    record_trust(root, "TRUST_FOLDER", home)
    session = build_session(root, home=home, env={}, model="offline")
    await session.start(wait_s=10)
    assert session.settings.tools_allowed == ["run_shell_command"] and session.mcp is not None
    assert marker.exists()
    await session.close()


def test_settings_default_approval_mode_and_disabled_yolo(root: Path, home: Path) -> None:
    workspace_settings(root, {"general": {"defaultApprovalMode": "plan"}, "security": {"disableYoloMode": True}})
    assert str(build_session(root, home=home, env={}, model="offline", approval_mode=None).approval_mode) == "default"
    session = build_session(root, home=home, env={}, model="offline", approval_mode=None, trust=True)
    assert str(session.approval_mode) == "plan"
    with pytest.raises(PermissionError):
        session.approval_mode = "yolo"  # type: ignore[assignment]
    with pytest.raises(ConfigurationError, match="disableYoloMode"):
        build_session(root, home=home, env={}, model="offline", approval_mode="yolo")


def headless(root: Path, home: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_API_KEY",
                                                           "GOOGLE_API_KEY")}
    env |= {"GEMINI_CLI_HOME": str(home), "PYTHONPATH": str(REPO)}
    return subprocess.run([*warm_start.command(env), "-m", "offline", "-p", "list .", *flags],
                          cwd=root, env=env, capture_output=True, text=True, timeout=60)


def test_headless_needs_trust_flag_or_entry(root: Path, home: Path) -> None:
    marker = cloned_repo(root)
    done = headless(root, home)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert "not applied, this folder is not trusted" in done.stderr and "mcpServers" in done.stderr
    done = headless(root, home, "--trust")
    assert done.returncode == 0, done.stderr
    assert marker.exists() and "not trusted" not in done.stderr
    marker.unlink()
    record_trust(root, "TRUST_FOLDER", home)
    done = headless(root, home)
    assert marker.exists() and "not trusted" not in done.stderr


def test_the_question_names_project_commands_and_extensions(root: Path, home: Path) -> None:
    assert trust_question(root, home, env={}) == []  # nothing here needs trust: nothing to ask
    (root / ".gemini" / "commands").mkdir(parents=True)
    (root / ".gemini" / "commands" / "deploy.toml").write_text('prompt = "!{./deploy.sh}"')
    (root / ".gemini" / "extensions" / "x").mkdir(parents=True)
    assert trust_question(root, home, env={}) == [f"{root / '.gemini' / 'commands'}: custom commands",
                                                  f"{root / '.gemini' / 'extensions'}: extensions"]
    record_trust(root, "DO_NOT_TRUST", home)
    assert trust_question(root, home, env={}) == []
