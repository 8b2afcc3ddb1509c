"""Processes room: what the sandbox hides of the home and keeps read-only inside a root.

Inside a writable root, what runs or applies later, outside the sandbox: the repository's `.git/config` and
`.git/hooks` (and `info/`, and each submodule's config and hooks), the folder `core.hooksPath` names, `.husky/` and
`.githooks/`, `.gemini/` and the context files at the top of the root. The index, objects and refs stay writable,
so `git add` and `git commit` work. A protected place is a read-only bind mount, and every folder between it and
the root is made a mount point too: a mount point cannot be renamed or removed, so `mv .git x && mkdir .git`
cannot put a writable copy where the protected one was."""

from __future__ import annotations

import os
import pwd
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

# secret folders and files of a home, hidden even when a root holds the home (the root is the home, or /home)
HOME_SECRETS = (".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".gemini", ".docker", ".kube",
                ".password-store", ".local/share/keyrings", ".netrc", ".git-credentials", ".npmrc", ".pypirc",
                ".config/gh", ".cargo/credentials.toml", ".cargo/credentials")
# files a shell or git runs or reads at start-up: read-only when a root holds the home
HOME_STARTUP = (".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
                ".zprofile", ".zlogin", ".gitconfig", ".config/git", ".config/fish")
# folders of a home that hold programs, not secrets: shown read-only so that a pyenv python or a rustup cargo
# still runs (each one's known secret files, such as ~/.cargo/credentials.toml, stay hidden)
TOOLCHAINS = (".pyenv", ".rbenv", ".nvm", ".volta", ".asdf", ".cargo", ".rustup", ".local/bin", ".local/lib",
              ".bun", ".deno", ".sdkman", ".ghcup", ".elan", ".opam", ".juliaup", "go", ".poetry")
HOOK_FOLDERS = (".husky", ".githooks")
GIT_READ_ONLY = ("config", "hooks", "info")
# created (empty, on the real disk) when missing, so that a command cannot create them with content: a folder
# holds no data. Not `.gemini/`: the default sandbox would leave one in every folder it starts in; a `.gemini/`
# a command creates is set aside after it (protected_snapshot.py)
CREATED_WHEN_MISSING: tuple[str, ...] = ()
GIT_TIMEOUT_S = 5.0


def homes(env: Mapping[str, str]) -> list[Path]:
    """Every folder that is the user's home here: $HOME, the account's home, GEMINI_CLI_HOME, and /home and /root
    (the homes of everyone else)."""
    found: list[Path] = []
    candidates = [env.get("HOME"), env.get("GEMINI_CLI_HOME"), "/home", "/root"]
    try:
        candidates.append(pwd.getpwuid(os.getuid()).pw_dir)
    except KeyError:
        pass
    for candidate in candidates:
        if not candidate:
            continue
        real = Path(os.path.realpath(candidate))
        if real != Path("/") and real.is_dir() and real not in found:
            found.append(real)
    return found


def outermost(paths: Iterable[Path]) -> list[Path]:
    """`paths` without those inside another one of them (mounting over the outer one covers them)."""
    unique = sorted(set(paths), key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in unique:
        if not any(path.is_relative_to(outer) for outer in kept):
            kept.append(path)
    return kept


def linked_repository(root: Path) -> list[Path]:
    """When `root` is a linked worktree (its `.git` a file naming a git dir elsewhere, as `git worktree add`
    writes it), that git dir and the repository's common dir, so that the sandbox can show them read-only: without
    them git finds no repository there (they sit in the main checkout, often in a hidden home or /tmp). Only a
    git dir whose `gitdir` file points back at `root/.git` counts, so a planted `.git` file cannot show any other
    folder; a submodule's (no such back link) is left as it was."""
    dotgit = root / ".git"
    try:
        if dotgit.is_symlink() or not dotgit.is_file():
            return []
        first = dotgit.read_text(encoding="utf-8").partition("\n")[0]
        if not first.startswith("gitdir:"):
            return []
        gitdir = (root / first.removeprefix("gitdir:").strip()).resolve()
        back = Path(gitdir.joinpath("gitdir").read_text(encoding="utf-8").strip())
        if back.resolve() != dotgit.resolve():
            return []
        common = (gitdir / gitdir.joinpath("commondir").read_text(encoding="utf-8").strip()).resolve()
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    if not (common.joinpath("HEAD").is_file() and common.joinpath("objects").is_dir()):
        return []
    return outermost([gitdir, common])


_HOOKS_SEEN: dict[Path, tuple[tuple[object, ...], Path | None]] = {}


def _config_state(root: Path) -> tuple[object, ...]:
    """What the answer of `git config` depends on, as the files' sizes and times (an included file aside)."""
    files = [root / ".git" / "config", Path(os.path.expanduser("~/.gitconfig")),
             Path(os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")) / "git" / "config",
             Path("/etc/gitconfig")]
    state: list[object] = [os.environ.get("GIT_CONFIG_GLOBAL"), os.environ.get("GIT_CONFIG_SYSTEM")]
    for file in files:
        try:
            stat = file.stat()
            state.append((stat.st_mtime_ns, stat.st_size, stat.st_ino))
        except OSError:
            state.append(None)
    return tuple(state)


_IDENTITY_SEEN: dict[tuple[object, ...], dict[str, str]] = {}


def git_identity(env: Mapping[str, str]) -> dict[str, str]:
    """The user's git name and e-mail as git's environment variables: ~/.gitconfig is hidden in the sandbox (it
    can hold credentials in URLs), and `git commit` needs who is committing. Asked of git again only when a file
    it comes from changed: each sandbox built needs it, and starting git costs milliseconds."""
    state = _global_config_state(env)
    if state is not None and state in _IDENTITY_SEEN:
        return dict(_IDENTITY_SEEN[state])
    found = _ask_identity(env)
    if state is not None:
        _IDENTITY_SEEN[state] = dict(found)
    return found


def _global_config_state(env: Mapping[str, str]) -> tuple[object, ...] | None:
    """What `git config --global` answers from, for `env` (it follows no include there): the variables that
    choose git and its files, and each file's size and times. None (not kept) when one cannot be looked at."""
    home = env.get("HOME", "")
    xdg = env.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else "")
    chosen = env.get("GIT_CONFIG_GLOBAL")
    files = [chosen] if chosen is not None else [os.path.join(home, ".gitconfig") if home else "",
                                                 os.path.join(xdg, "git", "config") if xdg else ""]
    state: list[object] = [home, xdg, chosen, env.get("PATH")]
    for name in files:
        try:
            stat = os.stat(name) if name else None
        except FileNotFoundError:
            stat = None
        except OSError:
            return None
        state.append((name, None) if stat is None else
                     (name, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino, stat.st_dev))
    return tuple(state)


def _ask_identity(env: Mapping[str, str]) -> dict[str, str]:
    found: dict[str, str] = {}
    try:
        done = subprocess.run(["git", "config", "--global", "-z", "--get-regexp", r"^user\.(name|email)$"],
                              capture_output=True, timeout=GIT_TIMEOUT_S, stdin=subprocess.DEVNULL, env=dict(env))
    except (OSError, subprocess.SubprocessError):
        return found
    if done.returncode != 0:
        return found
    values: dict[str, str] = {}
    for entry in done.stdout.decode("utf-8", "replace").split("\0"):
        key, _, value = entry.partition("\n")
        if value.strip():
            values[key.lower()] = value.strip()  # the last one wins, as with --get
    for key, names in (("user.name", ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME")),
                       ("user.email", ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"))):
        if key in values:
            found.update(dict.fromkeys(names, values[key]))
    return found


def hooks_path(root: Path) -> Path | None:
    """The folder git takes hooks from for this repository when the configuration names one (core.hooksPath,
    from every level of git's configuration, relative to the root), else None. Asked of git again only when a
    configuration file changed: every sandboxed command needs it, and starting git costs milliseconds."""
    state = _config_state(root)
    seen = _HOOKS_SEEN.get(root)
    if seen is not None and seen[0] == state:
        return seen[1]
    found = _ask_hooks_path(root)
    _HOOKS_SEEN[root] = (state, found)
    return found


def _ask_hooks_path(root: Path) -> Path | None:
    try:
        done = subprocess.run(["git", "-C", str(root), "config", "--get", "core.hooksPath"], capture_output=True,
                              text=True, timeout=GIT_TIMEOUT_S, stdin=subprocess.DEVNULL,
                              env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
    except (OSError, subprocess.SubprocessError):
        return None
    value = done.stdout.strip()
    if done.returncode != 0 or not value:
        return None
    return Path(os.path.realpath(root / os.path.expanduser(value)))


def protected_in(root: Path, context_names: Sequence[str], hidden_homes: Sequence[Path]) -> list[Path]:
    """The places inside `root` that the sandbox keeps read-only (those that exist, as real paths)."""
    places: list[Path] = []
    git = root / ".git"
    if git.is_dir() and not git.is_symlink():
        places += [git / name for name in GIT_READ_ONLY]
        modules = git / "modules"
        if modules.is_dir():
            for config in modules.glob("**/config"):  # a submodule's git dir: its own config and hooks
                places += [config, config.parent / "hooks"]
    hooks = hooks_path(root)
    if hooks is not None:
        places.append(hooks)
    places += [root / name for name in (*HOOK_FOLDERS, ".gemini")]
    places += [root / name for name in context_names if name and "/" not in name and ".." not in name]
    if root in hidden_homes:  # a home below a root is hidden whole; a root that is the home shows it
        places += [root / name for name in HOME_STARTUP]
    kept: list[Path] = []
    for place in places:
        if place.is_symlink() or not place.exists():
            continue  # a link's target is read-only already unless it is itself in here
        real = Path(os.path.realpath(place))
        if real != root and real.is_relative_to(root) and real not in kept:
            kept.append(real)
    return kept


def secrets_in(place: Path, hidden_homes: Sequence[Path]) -> list[Path]:
    """The secret folders and files of a home that `place` shows (a root that is the home, a toolchain folder
    such as ~/.cargo with its credentials.toml)."""
    found: list[Path] = []
    for home in hidden_homes:
        if place == home or place.is_relative_to(home):
            for name in HOME_SECRETS:
                secret = home / name
                if secret.is_relative_to(place) and secret.exists() and not secret.is_symlink():
                    found.append(secret)
    return found


def toolchains(hidden_homes: Sequence[Path], path_variable: str) -> list[Path]:
    """The folders of a home that hold programs, shown read-only in the hidden home: the top folder (below the
    home) of every PATH entry inside it, and the usual toolchain folders (pyenv, rustup, nvm, ...)."""
    candidates = [home / name for home in hidden_homes for name in TOOLCHAINS]
    innermost_first = sorted(hidden_homes, key=lambda h: len(h.parts), reverse=True)
    for entry in path_variable.split(os.pathsep):
        real = Path(os.path.realpath(entry)) if entry.startswith("/") else None
        home = next((h for h in innermost_first if real is not None and real != h and real.is_relative_to(h)), None)
        if real is not None and home is not None:
            top = home / real.relative_to(home).parts[0]
            candidates.append(real if top.name in (".local", ".config") else top)
    found: list[Path] = []
    for candidate in candidates:
        if not candidate.is_dir() or candidate.is_symlink() or candidate in found:
            continue
        if any(home.is_relative_to(candidate) for home in hidden_homes):
            continue  # a folder holding a home would show that home
        if any(candidate.is_relative_to(home / name) for home in hidden_homes for name in HOME_SECRETS):
            continue
        found.append(candidate)
    return outermost(found)


def create_missing(root: Path) -> None:
    """The folders a command must not be able to create with content, made empty (see CREATED_WHEN_MISSING)."""
    for name in CREATED_WHEN_MISSING:
        place = root / name
        if not os.path.lexists(place):
            try:
                place.mkdir()
            except OSError:
                pass  # a read-only root: nothing can be created in it from inside either
    git = root / ".git"
    if git.is_dir() and not git.is_symlink() and not os.path.lexists(git / "hooks"):
        try:
            (git / "hooks").mkdir()
        except OSError:
            pass


# files git reads from a repository folder that a command could create there (git itself never writes them in a
# main repository): `commondir` would send git to another folder's config and hooks
PLANTED_IN_GIT = ("commondir",)


def set_aside_planted(root: Path) -> list[str]:
    """Files a sandboxed command planted in the root's `.git` that would make git run code later, renamed so that
    git no longer reads them (kept, not deleted); what was done, a line each."""
    done: list[str] = []
    git = root / ".git"
    if not git.is_dir() or git.is_symlink():
        return done
    for name in PLANTED_IN_GIT:
        planted = git / name
        if os.path.lexists(planted):
            aside = git / f"{name}.refused-{os.getpid()}-{len(done)}"
            try:
                os.rename(planted, aside)
            except OSError as exc:
                done.append(f"{planted} could not be set aside ({exc.strerror}): remove it before running git")
                continue
            done.append(f"{planted} was set aside as {aside.name}: git would have read another folder's config")
    return done


def mount_points_between(root: Path, place: Path) -> list[Path]:
    """The folders from just below `root` down to `place`'s parent."""
    relative = place.relative_to(root)
    return [root.joinpath(*relative.parts[:end]) for end in range(1, len(relative.parts))]
