"""The capability judgement through the real Session, scheduler, policy and shell tool, with real bash: families
generated as wrappers x programs x write options x code options x environment assignments x path spellings.

Every line leaves a harmless effect if it runs (a file outside the root, a file in a fake home's protected
places, a marker made by the other code it runs, a victim file deleted). In default, auto_edit and plan mode,
with the program allowed by tools.allowed, no effect appears; under yolo with no rules every effect appears (the
corpus is live bash, not lines that would fail anyway); under yolo with a deny list, a hidden inner command is
refused and a visible one is judged by itself."""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from gemini_tui.core.approvals.policy import ApprovalMode
from gemini_tui.core.shell.table import ARCH_WRAPPERS, EVALUATED_SYNTAX, EVALUATES, WRITE_VARIABLES
from tests.fakes.scripted_model import ScriptedModel, call, scripted_session, text

NEEDED = ("git", "flock", "setarch", "prlimit", "strace", "tar", "sed", "find", "sort", "rg", "zip", "make",
          "python3", "sqlite3", "vim", "ed", "ssh", "less", "awk")
WRAPPERS = ["", "env ", "command ", "nice ", "timeout 9 ", "nohup ", "stdbuf -o0 ", "flock lockfile ",
            f"setarch {platform.machine()} ", "prlimit --nofile=256 ", "strace -f -o /dev/null "]
WRAPPER_RULES = ["flock", "setarch", "prlimit", "strace"]
# program rule -> a line writing {P}; `word` spellings fit wherever a word goes, `quoted` inside a sed script
WRITERS = {
    "sort": "sort -o {P} README.md", "git diff": "git diff --output={P}", "git log": "git log -1 --output={P}",
    "find": "find README.md -fprint {P}", "echo": "echo x > {P}", "printf": "printf x >> {P}",
    "shuf": "shuf -o {P} README.md", "cp": "cp README.md {P}", "tee": "echo x | tee {P}",
    "sed": "sed -n \"w {P}\" README.md",
}
# how a path is spelled -> (spelling with {N} for a fresh name, where the file lands relative to (root, home,
# outside)); `$OUTSIDE` is set in the environment
SPELLINGS = {
    "absolute outside": ("{outside}/{N}", "outside"), "$VAR outside": ("$OUTSIDE/{N}", "outside"),
    "${VAR} outside": ("${OUTSIDE}/{N}", "outside"), "relative .. outside": ("../outside/{N}", "outside"),
    "~ home": ("~/{N}", "home"), "~ start-up file": ("~/.bashrc", "home"), "$HOME profile": ("$HOME/.profile", "home"),
    "${HOME} gitconfig": ("${HOME}/.gitconfig", "home"), "~ ssh": ("~/.ssh/{N}", "home"),
    "$PWD .gemini": ("$PWD/.gemini/{N}", "root"), "~+ .gemini": ("~+/.gemini/{N}", "root"),
    "glob .git": (".gi?/description", "root"), "context file": ("GEMINI.md", "root"),
    "~+ .husky": ("~+/.husky/{N}", "root"),
}
NO_TILDE = {"sed"}  # inside a quoted sed script bash expands $VAR but not ~ or globs
QUOTED_SPELLINGS = {"absolute outside", "$VAR outside", "${VAR} outside", "relative .. outside", "$HOME profile",
                    "${HOME} gitconfig", "$PWD .gemini"}

# runs other code -> (rule(s) that allow the program, line making marker {M}); {M} is an absolute path
CODE = {
    "GIT_EXTERNAL_DIFF": (["git diff"], "GIT_EXTERNAL_DIFF='touch {M};:' {W}git diff"),
    "GIT_CONFIG_* fsmonitor": (["git status"], "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor "
                                               "GIT_CONFIG_VALUE_0='touch {M};false' {W}git status"),
    "git -c fsmonitor": (["git status"], "{W}git -c core.fsmonitor='touch {M};false' status"),
    "git --git-dir other repository": (["git status"], "{W}git --git-dir=vendor/x --work-tree=. status"),
    "git -C nested repository": (["git status"], "{W}git -C vendor/nested status"),
    "sed e": (["sed"], "{W}sed -n '1e touch {M}' README.md"),
    "rg --pre": (["rg"], "{W}rg --pre {S} foo README.md"),
    "LESSOPEN": (["less"], "LESSOPEN='|touch {M}; cat %s' {W}less README.md"),
    "tar --checkpoint-action": (["tar"], "{W}tar --checkpoint=1 --checkpoint-action=exec='touch {M}' -cf "
                                         "/dev/null README.md"),
    "tar --to-command": (["tar"], "{W}tar --to-command='touch {M}' -xf a.tar"),
    "printf -v PATH": (["printf", "ls"], "printf -v PATH '%s' \"$PWD/bin{K}:$PATH\"; {W}ls"),
    "read PATH": (["read", "ls"], "read -r PATH <<< \"$PWD/bin{K}:$PATH\"; {W}ls"),
    "PATH assignment": (["ls"], "PATH=\"$PWD/bin{K}:$PATH\" {W}ls"),
    "BASH_ENV": (["bash"], "BASH_ENV={S} {W}bash -c true"),
    "zip -TT": (["zip"], "{W}zip -q -T -TT 'touch {M};:' out.zip README.md"),
    "awk system": (["awk"], "{W}awk 'BEGIN{system(\"touch {M}\")}'"),
    "find -exec": (["find"], "{W}find README.md -exec touch {M} \\;"),
}
VISIBLE = {"tar --checkpoint-action", "tar --to-command", "find -exec", "zip -TT"}  # its inner command can be read


def _git(root: Path, *args: str) -> None:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root)}
    subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)


@pytest.fixture
def scene(root: Path, tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    missing = [name for name in NEEDED if shutil.which(name) is None]
    assert not missing, f"make test installs these: {missing}"
    user = tmp_path / "user"
    (user / ".ssh").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setenv("OUTSIDE", str(outside))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")  # lines that overwrite ~/.gitconfig must not break git
    (root / "README.md").write_text("foo\n")
    (root / ".gemini").mkdir()
    (root / ".husky").mkdir()
    _git(root, "init", "-q", ".")
    _git(root, "add", "README.md")
    _git(root, "commit", "-q", "-m", "x")
    (root / "README.md").write_text("foo changed\n")  # git diff has something to show
    return {"root": root, "user": user, "outside": outside, "home": home}


def _settings(home: Path, data: dict[str, object]) -> None:
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(data))


async def run_lines(scene: dict[str, Path], lines: list[str], mode: ApprovalMode,
                    settings: dict[str, object]) -> list[dict[str, object]]:
    _settings(scene["home"], settings)
    model = ScriptedModel().add([call("run_shell_command", command=line) for line in lines]).add(text("done"))
    session = scripted_session(scene["root"], model, scene["home"], approval_mode=mode, interactive=False)
    try:
        await session.send("go")
    finally:
        await session.close()
    user = [c for c in model.requests[-1].contents if c.role == "user" and c.parts][-1]
    return [part.response for part in user.parts]  # type: ignore[union-attr]


# -- writes --------------------------------------------------------------------------------------------------------
def write_corpus(scene: dict[str, Path]) -> list[tuple[str, str, Path]]:
    """(rule, line, the file it makes or changes) for wrappers x writers x spellings."""
    cases: list[tuple[str, str, Path]] = []
    bases = {"outside": scene["outside"], "home": scene["user"], "root": scene["root"]}
    number = 0
    for rule, template in WRITERS.items():
        for label, (spelling, where) in SPELLINGS.items():
            if rule in NO_TILDE and label not in QUOTED_SPELLINGS:
                continue
            if "={P}" in template and (label == "glob .git" or "~" in label):
                continue  # bash expands neither a glob nor ~ glued to `--output=`: the line would write nothing
            for wrapper in (WRAPPERS if label == "absolute outside" else [""]):
                number += 1
                name = f"w{number}"
                shown = spelling.replace("{N}", name).replace("{outside}", str(scene["outside"]))
                relative = shown.split("/", 1)[1] if "/" in shown and not shown.startswith(("/", "..")) else shown
                if shown.startswith("/"):
                    target = Path(shown)
                elif shown.startswith(".."):
                    target = scene["outside"] / name
                elif label == "glob .git":
                    target = scene["root"] / ".git" / "description"
                else:
                    target = bases[where] / relative
                if label in ("~ start-up file", "$HOME profile", "${HOME} gitconfig", "context file"):
                    target = target.parent / target.name  # an existing victim: its content changes
                line = template.replace("{P}", shown)
                cases.append((rule, wrapper + line if not line.startswith("echo x |") else
                              f"echo x | {wrapper}tee {shown}", target))
    return cases


def _state(path: Path) -> str | None:
    try:
        return path.read_text()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _prepare_victims(scene: dict[str, Path]) -> None:
    for victim in (scene["user"] / ".bashrc", scene["user"] / ".profile", scene["user"] / ".gitconfig",
                   scene["root"] / "GEMINI.md"):
        victim.write_text("victim\n")
    for name in ("GEMINI.md",):
        (scene["root"] / name).write_text("victim\n")


@pytest.mark.parametrize("mode", [ApprovalMode.default, ApprovalMode.auto_edit, ApprovalMode.plan, ApprovalMode.yolo])
async def test_writes_outside_and_to_protected_paths_never_run_unasked(scene: dict[str, Path],
                                                                      mode: ApprovalMode) -> None:
    _prepare_victims(scene)
    cases = write_corpus(scene)
    assert len(cases) >= 150
    before = {target: _state(target) for _, _, target in cases}
    rules = sorted({rule for rule, _, _ in cases} | set(WRAPPER_RULES))
    settings: dict[str, object] = {"tools": {"allowed": [f"run_shell_command({r})" for r in rules],
                                             "shell": {"allowRedirection": True}}}
    if mode is ApprovalMode.yolo:
        settings = {}  # yolo asks nothing, yet the sandbox (on by default) keeps these writes out
    responses = await run_lines(scene, [line for _, line, _ in cases], mode, settings)
    changed = [line for (_, line, target) in cases if _state(target) != before[target]]
    if mode is ApprovalMode.yolo:
        # the sandbox keeps .git's index, objects, refs and description writable (git's own work inside) and makes
        # read-only only what runs code later (config, hooks, info): a .git/description write is the one that lands
        git_data = [line for (_, line, target) in cases if target.name == "description"]
        assert git_data and changed == git_data, [line for line in changed if line not in git_data][:5]
        # contained, not silent: every other line was refused as a step out of the sandbox, or ran inside and the
        # model was shown the sandbox's refusal (read-only) or told how to ask the user to run it outside
        # (an outside folder the sandbox hides fails as "No such file or directory"; any failure has its exit code)
        told = ("outside_sandbox: true", "Read-only file system", "Permission denied", "No such file")
        silent = [line for (_, line, _), r in zip(cases, responses, strict=True) if "error" not in r
                  and (not any(mark in str(r.get("output")) for mark in told) or "Exit Code: 0" in str(r.get("output")))
                  and line not in git_data]
        assert silent == [], silent[:5]
        return
    assert changed == [], changed[:5]
    ran = [line for (_, line, _), r in zip(cases, responses, strict=True) if "error" not in r]
    assert ran == [], ran[:5]


async def test_under_yolo_without_the_sandbox_every_write_lands(scene: dict[str, Path]) -> None:
    """--no-sandbox (tools.sandbox false) under yolo runs every line: the corpus is live bash, not lines that would
    fail anyway, so the contained outcome above is the sandbox's doing."""
    _prepare_victims(scene)
    cases = write_corpus(scene)
    before = {target: _state(target) for _, _, target in cases}
    await run_lines(scene, [line for _, line, _ in cases], ApprovalMode.yolo, {"tools": {"sandbox": False}})
    unchanged = [line for (_, line, target) in cases if _state(target) == before[target]]
    assert unchanged == [], unchanged[:5]


# -- other code ----------------------------------------------------------------------------------------------------
def code_corpus(scene: dict[str, Path]) -> list[tuple[str, list[str], str, Path]]:
    """(family, rules, line, marker) for wrappers x code options x environment assignments."""
    root = scene["root"]
    (root / "vendor").mkdir(exist_ok=True)
    cases = []
    number = 0
    for position, (family, (rules, template)) in enumerate(CODE.items()):
        # every family bare and through two wrappers in turn; the first two through every wrapper
        wrappers = WRAPPERS if position < 2 else ["", *{WRAPPERS[1 + (position * 2 + k) % (len(WRAPPERS) - 1)]
                                                           for k in range(2)}]
        for wrapper in wrappers:
            number += 1
            marker = root / f"MARK_{number}"
            script = root / f"script_{number}.sh"
            script.write_text(f"#!/bin/sh\ntouch {marker}\ncat \"$1\" 2>/dev/null\n")
            script.chmod(0o755)
            fake_bin = root / f"bin{number}"
            fake_bin.mkdir()
            (fake_bin / "ls").write_text(f"#!/bin/sh\ntouch {marker}\n")
            (fake_bin / "ls").chmod(0o755)
            line = (template.replace("{M}", str(marker)).replace("{S}", str(script)).replace("{W}", wrapper)
                    .replace("{K}", str(number)))
            if family == "git --git-dir other repository":
                line = line.replace("vendor/x", f"vendor/x{number}")
                _bare_repository(root / "vendor" / f"x{number}", marker)
            if family == "git -C nested repository":
                line = line.replace("vendor/nested", f"vendor/nested{number}")
                _nested_repository(root / "vendor" / f"nested{number}", marker)
            cases.append((family, rules, line, marker))
    return cases


def _bare_repository(folder: Path, marker: Path) -> None:
    """A repository folder shipped in a clone (HEAD, objects/, refs/, config with core.fsmonitor)."""
    subprocess.run(["git", "init", "-q", "--bare", str(folder)], check=True, capture_output=True)
    subprocess.run(["git", "--git-dir", str(folder), "config", "core.bare", "false"], check=True)
    subprocess.run(["git", "--git-dir", str(folder), "config", "core.fsmonitor", f"touch {marker};false"],
                   check=True)


def _nested_repository(folder: Path, marker: Path) -> None:
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True, capture_output=True)
    subprocess.run(["git", "-C", str(folder), "config", "core.fsmonitor", f"touch {marker};false"], check=True)


def _tar(root: Path) -> None:
    with tarfile.open(root / "a.tar", "w") as archive:
        archive.add(root / "README.md", arcname="README.md")


@pytest.mark.parametrize("mode", [ApprovalMode.default, ApprovalMode.auto_edit, ApprovalMode.plan, ApprovalMode.yolo,
                                  "yolo with a deny list", "tools.core under yolo"])
async def test_other_code_never_runs_through_an_allowed_program(scene: dict[str, Path], mode: object) -> None:
    _tar(scene["root"])
    cases = code_corpus(scene)
    assert len(cases) >= 60
    rules = sorted({r for _, rs, _, _ in cases for r in rs} | set(WRAPPER_RULES))
    listed = [f"run_shell_command({r})" for r in rules]
    settings: dict[str, object] = {"tools": {"allowed": listed}}
    run_mode = ApprovalMode.yolo
    if mode == "yolo with a deny list":
        settings = {"tools": {"exclude": ["run_shell_command(rm)"]}}
    elif mode == "tools.core under yolo":
        settings = {"tools": {"core": listed}}
    elif mode is ApprovalMode.yolo:
        settings = {}
    else:
        run_mode = mode  # type: ignore[assignment]
    responses = await run_lines(scene, [line for _, _, line, _ in cases], run_mode, settings)
    ran = {family for family, _, _, marker in cases if marker.exists()}
    if mode is ApprovalMode.yolo:
        dead = [line for _, _, line, marker in cases if not marker.exists()]
        assert dead == [], dead[:5]
    elif mode == "yolo with a deny list":
        assert ran == VISIBLE  # a visible inner command (touch) is judged by itself; nothing hidden ran
        refused = [r["error"] for (family, _, _, _), r in zip(cases, responses, strict=True)
                   if family not in VISIBLE]
        assert all("not run" in e for e in refused)
        assert any("deny list is not a sandbox" in e for e in refused)
    else:
        assert ran == set(), ran
        assert all("error" in r for r in responses)


# -- deny lists under yolo -------------------------------------------------------------------------------------------
DENY_VISIBLE = ["{W}rm {V}", "find {V} -exec rm {} \\;", "echo {V} | xargs rm", "sh -c 'rm {V}'",
                "tar --to-command='rm {V}' -xf a.tar", "flock lockfile rm {V}", "timeout 9 rm {V}",
                "bash -c 'timeout 9 rm {V}'"]
DENY_HIDDEN = {"make": "make -f mk{N}", "python3 script": "python3 py{N}.py", "bash script": "bash sh{N}.sh",
               "vim": "vim -e -s -c '!rm {V}' -c 'qa!'", "ed": "printf '!rm {V}\\nq\\n' | ed -s",
               "sqlite3": "sqlite3 :memory: '.shell rm {V}'",
               "ssh ProxyCommand": "ssh -o ProxyCommand='rm {V}' -o BatchMode=yes x 2>/dev/null; true"}


async def test_a_deny_list_under_yolo_judges_visible_inner_commands_and_refuses_hidden_ones(
        scene: dict[str, Path]) -> None:
    root = scene["root"]
    _tar(root)
    lines, victims = [], []
    for number, template in enumerate([*(t.replace("{W}", w) for t in DENY_VISIBLE[:1] for w in WRAPPERS),
                                       *DENY_VISIBLE[1:], *DENY_HIDDEN.values()]):
        victim = root / f"victim_{number}"
        victim.write_text("keep\n")
        (root / f"mk{number}").write_text(f"all:\n\trm {victim}\n")
        (root / f"py{number}.py").write_text(f"import os\nos.remove({str(victim)!r})\n")
        (root / f"sh{number}.sh").write_text(f"rm {victim}\n")
        lines.append(template.replace("{V}", str(victim)).replace("{N}", str(number)))
        victims.append(victim)
    responses = await run_lines(scene, lines, ApprovalMode.yolo, {"tools": {"exclude": ["run_shell_command(rm)"]}})
    kept = [line for line, victim in zip(lines, victims, strict=True) if victim.exists()]
    assert kept == lines
    hidden = responses[-len(DENY_HIDDEN):]
    assert all("deny list is not a sandbox" in r["error"] for r in hidden), hidden
    await run_lines(scene, lines, ApprovalMode.yolo, {})  # no deny list: every line deletes its victim
    assert [line for line, victim in zip(lines, victims, strict=True) if victim.exists()] == []


async def run_bare(scene: dict[str, Path], lines: list[str], mode: ApprovalMode,
                   settings: dict[str, object]) -> list[dict[str, object]]:
    """`run_lines` with the sandbox off: these families judge commands that run outside it."""
    tools = dict(settings.get("tools", {}))  # type: ignore[call-overload]
    tools["sandbox"] = False
    return await run_lines(scene, lines, mode, {**settings, "tools": tools})


# -- text bash evaluates, input redirections, wrappers, variables that write (generated from the tables) ------------
EVALUATED_PROGRAMS = ["echo", "printf", "read", "test", "[", "declare", "let", "cat", "git status", "flock"]


def evaluated_corpus(payload: str) -> list[str]:
    """Every EVALUATES row's example and every EVALUATED_SYNTAX example with `payload` in the evaluated place,
    and a here-doc whose backticks hold it (bash runs them whatever reads the here-doc)."""
    word = f"'a[$({payload})]'"
    lines = [row.example.replace("{X}", word) for row in EVALUATES.values() if row.example]
    lines += [template.replace("{X}", word) for template in EVALUATED_SYNTAX.values()]
    lines += [f"cat <<EOF\n`{payload}`\nEOF", f"cat > /dev/null <<EOF\nx `{payload}` y\nEOF",
              f"flock lockfile -c '{payload}'"]
    return lines


@pytest.mark.parametrize("mode", [ApprovalMode.default, ApprovalMode.auto_edit, ApprovalMode.plan, ApprovalMode.yolo,
                                  "yolo with a deny list"])
async def test_text_bash_evaluates_never_runs_unasked(scene: dict[str, Path], mode: object) -> None:
    root = scene["root"]
    markers = [root / f"EVAL_{n}" for n in range(len(evaluated_corpus("x")))]
    lines = [evaluated_corpus(f"touch {marker}")[n] for n, marker in enumerate(markers)]
    if mode == "yolo with a deny list":
        victims = [root / f"victim_e{n}" for n in range(len(lines))]
        for victim in victims:
            victim.write_text("keep\n")
        lines = [evaluated_corpus(f"rm {victim}")[n] for n, victim in enumerate(victims)]
        responses = await run_bare(scene, lines, ApprovalMode.yolo, {"tools": {"exclude": ["run_shell_command(rm)"]}})
        assert [line for line, victim in zip(lines, victims, strict=True) if not victim.exists()] == []
        assert all("error" in r for r in responses), responses
        return
    settings: dict[str, object] = {"tools": {"allowed": [f"run_shell_command({p})" for p in EVALUATED_PROGRAMS]}}
    run_mode = mode if isinstance(mode, ApprovalMode) else ApprovalMode.yolo
    responses = await run_bare(scene, lines, run_mode, {} if run_mode is ApprovalMode.yolo else settings)
    ran = [line for line, marker in zip(lines, markers, strict=True) if marker.exists()]
    if run_mode is ApprovalMode.yolo:
        assert len(ran) == len(lines), [line for line in lines if line not in ran]  # the corpus is live bash
    else:
        assert ran == [], ran
        assert all("error" in r for r in responses)


READ_FORMS = ["cat < {P}", "cat /dev/fd/3 3< {P}", 'echo "$(< {P})"', 'while read -r l; do echo "$l"; done < {P}',
              'cat <<< "$(cat < {P})"']
READ_SPELLINGS = ["~/.ssh/id_rsa", "$HOME/.ssh/id_rsa", "{outside}/secret", "../outside/secret"]


@pytest.mark.parametrize("mode", [ApprovalMode.default, ApprovalMode.auto_edit, ApprovalMode.plan, ApprovalMode.yolo])
async def test_input_redirections_are_reads(scene: dict[str, Path], mode: ApprovalMode) -> None:
    (scene["user"] / ".ssh" / "id_rsa").write_text("SECRET-KEY\n")
    (scene["outside"] / "secret").write_text("SECRET-KEY\n")
    lines = [form.replace("{P}", spelling.replace("{outside}", str(scene["outside"])))
             for form in READ_FORMS for spelling in READ_SPELLINGS]
    settings: dict[str, object] = {"tools": {"allowed": ["run_shell_command(cat)", "run_shell_command(echo)",
                                                         "run_shell_command(read)"]}}
    responses = await run_bare(scene, lines, mode, {} if mode is ApprovalMode.yolo else settings)
    leaked = [line for line, r in zip(lines, responses, strict=True) if "SECRET-KEY" in json.dumps(r)]
    if mode is ApprovalMode.yolo:
        assert len(leaked) == len(lines), [line for line in lines if line not in leaked]
    else:
        assert leaked == [], leaked


def _runner_wrappers() -> list[str]:
    """The table's wrappers that exist here, spelled as a line starts them."""
    found = [name for name in (*ARCH_WRAPPERS, "setpriv", "ssh-agent", "dbus-run-session") if shutil.which(name)]
    spelled = [f"{name} --" if name == "dbus-run-session" else name for name in found]
    loaders = [str(p) for p in Path("/lib64").glob("ld-linux*.so*")] + [str(p) for p in Path("/lib").glob("ld-*.so*")]
    return spelled + loaders[:1] + ["flock lockfile"]


async def test_wrappers_the_table_knows_are_looked_through_under_yolo_with_a_deny_list(
        scene: dict[str, Path]) -> None:
    root = scene["root"]
    wrappers = _runner_wrappers()
    assert len(wrappers) >= 6
    victims = [root / f"victim_w{n}" for n in range(len(wrappers))]
    lines = [f"{wrapper} {shutil.which('rm')} {victim}" for wrapper, victim in zip(wrappers, victims, strict=True)]
    lines += [f"mywrapper{n} rm {victim}" for n, victim in enumerate(victims[:1])]
    (root / "bin").mkdir()
    (root / "bin" / "mywrapper0").write_text('#!/bin/sh\nexec "$@"\n')
    (root / "bin" / "mywrapper0").chmod(0o755)
    lines[-1] = f"{root}/bin/" + lines[-1]
    for victim in victims:
        victim.write_text("keep\n")
    responses = await run_bare(scene, lines, ApprovalMode.yolo, {"tools": {"exclude": ["run_shell_command(rm)"]}})
    assert [line for line, victim in zip(lines, [*victims, victims[0]], strict=True) if not victim.exists()] == []
    assert all("error" in r for r in responses), responses
    await run_bare(scene, lines[:-1], ApprovalMode.yolo, {})  # no deny list: every line deletes its victim
    assert [v for v in victims if v.exists()] == []


TRACE_VARIABLES = [name for name in WRITE_VARIABLES if name in ("GIT_TRACE", "GIT_TRACE2", "GIT_TRACE2_EVENT",
                                                                "GIT_TRACE2_PERF", "GIT_TRACE_SETUP",
                                                                "GIT_TRACE_PERFORMANCE")]


@pytest.mark.parametrize("mode", [ApprovalMode.default, ApprovalMode.auto_edit, ApprovalMode.plan, ApprovalMode.yolo])
async def test_variables_that_make_an_allowed_program_write_ask(scene: dict[str, Path], mode: ApprovalMode) -> None:
    outside = scene["outside"]
    lines, targets = [], []
    for name in TRACE_VARIABLES:
        for form in ("{V}={T} git status", "env {V}={T} git status", "export {V}={T}; git status"):
            target = outside / f"trace_{len(targets)}"
            lines.append(form.replace("{V}", name).replace("{T}", str(target)))
            targets.append(target)
    settings: dict[str, object] = {"tools": {"allowed": ["run_shell_command(git status)", "run_shell_command(env)",
                                                         "run_shell_command(export)"]}}
    await run_bare(scene, lines, mode, {} if mode is ApprovalMode.yolo else settings)
    written = [line for line, target in zip(lines, targets, strict=True) if target.exists()]
    if mode is ApprovalMode.yolo:
        assert len(written) == len(lines), [line for line in lines if line not in written]
    else:
        assert written == [], written
