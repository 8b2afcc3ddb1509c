"""processes: what one simple command can do, read from the table (`table.py`) with its words expanded now.

`judge(command, context)` answers an `Effects`: the paths it writes (None: a path only known when it runs),
the paths it reads, the other code it runs (with the reason, as the user reads it), the command lines it
runs that can be read (judged by themselves), whether it runs the project's own code, whether it reaches
the network, and whether the table does not know it at all."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gemini_tui.core.processes import sandbox_places
from gemini_tui.core.shell.table import SAFE_GIT_CONFIG, SHELL_NAMES, Program, lookup
from gemini_tui.core.shell.words import expand

if TYPE_CHECKING:
    from gemini_tui.core.shell.grammar import Command

HARMLESS_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero",
                              "/dev/random", "/dev/urandom", "-"})
SHELLS = SHELL_NAMES
INFORMATIONAL = frozenset({"--version", "-V", "--help", "-h", "-version", "version", "help"})
_UNKNOWN_OPTION = "{label} with option {option}, which the table does not know: it could write or run code"
_SED_FLAGS = frozenset({"--posix", "--debug", "--sandbox", "--null-data", "--separate", "--unbuffered",
                        "--regexp-extended", "--quiet", "--silent", "--follow-symlinks", "--binary", "--help",
                        "--version"})
WRAPPER_WRITES = {"time": ("-o", "--output"), "strace": ("-o", "--output"), "ltrace": ("-o", "--output")}


@dataclass
class Effects:
    writes: list[tuple[str | None, str]] = field(default_factory=list)  # (path or None, how): by an option
    # what a program is for writing (`touch a`, `cp a b`, `rm a`): a rule naming it covers these inside the roots
    purpose_writes: list[tuple[str | None, str]] = field(default_factory=list)
    reads: list[str | None] = field(default_factory=list)
    code: list[str] = field(default_factory=list)  # other code it runs, that nobody can read first
    visible: list[str] = field(default_factory=list)  # command lines it runs that can be read
    project: str = ""  # it runs the project's own code (make, pytest, a script): why
    unknown: str = ""  # the table does not know this program: why
    network: bool = False
    # names it may leave as symbolic links (`ln -s`, `cp -a`, a checked-out tree): a path the line uses at or
    # below one of them is only known when it runs
    links: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Context:
    root: str
    cwd: str
    env: Mapping[str, str]
    assigned: frozenset[str] = frozenset()
    changes_directory: bool = False


def judge(command: Command, context: Context) -> Effects:
    """What `command` can do, from the table."""
    return _Judge(command, context).run()


@dataclass
class _Token:
    text: str | None  # None: only known when it runs
    index: int  # the word it came from


class _Judge:
    def __init__(self, command: Command, context: Context) -> None:
        self.command = command
        self.context = context
        self.effects = Effects()
        self.name = command.name or ""
        self.label = f"`{self.name}`"
        self.git_directory: str | None = context.cwd  # where git runs (`git -C`); None: only known when it runs

    # -- words ---------------------------------------------------------------------------------------------
    def tokens(self, start: int = 1) -> list[_Token]:
        out: list[_Token] = []
        words, forms = self.command.words, self.command.forms
        for index in range(start, len(words)):
            form = forms[index] if index < len(forms) else None
            values = None
            if form is not None:
                values = expand(form, self.context.env, self.context.cwd, self.context.assigned,
                                self.context.changes_directory)
            elif words[index] is not None:
                values = [words[index]]  # type: ignore[list-item]
            if values is None:
                out.append(_Token(None, index))
            else:
                out.extend(_Token(value, index) for value in values)
        return out

    # -- the whole command ---------------------------------------------------------------------------------
    def run(self) -> Effects:
        spec = lookup(self.name)
        if spec is None:
            self.effects.unknown = f"{self.label} is not in the table of what programs can do"
            return self.effects
        tokens = self.tokens()
        if tokens and all(t.text in INFORMATIONAL for t in tokens) and spec.special != "wrapper":
            return self.effects  # `python3 --version`, `make --help`
        if self.name in SHELLS and self.shell_script(tokens):
            return self.effects  # `sh -c '...'`: the walker read the script; its commands are judged themselves
        if spec.special:
            getattr(self, f"special_{spec.special}")(tokens)
        elif spec.subcommands is not None:
            self.subcommand(spec, tokens)
        else:
            self.generic(spec, tokens, self.label)
        return self.effects

    def shell_script(self, tokens: list[_Token]) -> bool:
        """`bash -c 'script'` with the script written out: record it as a visible command line."""
        for at, token in enumerate(tokens):
            text = token.text
            if text is None:
                return False
            if not text.startswith("-") or text == "-":
                return False
            if not text.startswith("--") and "c" in text[1:]:
                rest = tokens[at + 1:]
                if not rest or rest[0].text is None:
                    return False
                self.effects.visible.append(rest[0].text)
                self.effects.code.append(f"{self.label} -c runs `{rest[0].text}`")
                return True
        return False

    def subcommand(self, spec: Program, tokens: list[_Token]) -> None:
        assert spec.subcommands is not None
        index = 0
        options: list[_Token] = []
        while index < len(tokens):
            text = tokens[index].text
            if text is None or not text.startswith("-") or text == "-":
                break
            options.append(tokens[index])
            if text in spec.sub_values and "=" not in text:
                index += 1
                if index < len(tokens):
                    options.append(tokens[index])
            index += 1
        self.generic(global_row(spec), options, self.label)
        if self.name == "git":
            self.git_globals(options)
        if index >= len(tokens):
            self.finish(spec)
            return
        sub_token = tokens[index]
        sub = sub_token.text
        rest = tokens[index + 1:]
        label = f"`{self.name} {sub}`" if sub else self.label
        if sub is None:
            self.effects.code.append(f"{self.label} with a subcommand computed at run time")
            return
        sub_spec = spec.subcommands.get(sub)
        if sub_spec is None:
            if spec.runs:
                self.finish(spec)
                return
            what = "an alias or an external program" if self.name == "git" else "a subcommand the table does not know"
            self.effects.code.append(f"{label} is {what}: it could run anything")
            return
        if self.name == "git":
            self.git_sub(sub, sub_spec, rest, label)
        self.generic(sub_spec, rest, label)

    def finish(self, spec: Program) -> None:
        if spec.runs:
            if spec.project:
                self.effects.project = self.effects.project or f"{self.label} {spec.runs}"
            else:
                self.effects.code.append(f"{self.label} {spec.runs}")
        self.effects.network = self.effects.network or spec.network

    # -- options and arguments -----------------------------------------------------------------------------
    def generic(self, spec: Program, tokens: list[_Token], label: str) -> None:
        positional: list[_Token] = []
        patterns_given = False
        target_dir = False
        only_positional = False
        seen: set[str] = set()  # every option it was given (a copy's -r, -T, -s)
        given: dict[str, str | None] = {}  # the value of each option that takes one (the last one given)
        target: list[str | None] = []  # -t's folder
        index = 0
        while index < len(tokens):
            token = tokens[index]
            text = token.text
            index += 1
            if text is None and not only_positional and spec.capable:
                self.effects.code.append(f"{label} with an argument computed at run time (it could be an option "
                                         "that writes or runs code)")
                self.effects.writes.append((None, f"{label} with an argument computed at run time"))
                continue
            if text is None or only_positional or text == "-" or not (
                    text.startswith("-") or (text.startswith("+") and "+" in spec.code)):
                positional.append(token)
                continue
            if text == "--":
                only_positional = True
                continue
            if spec.digits and re.fullmatch(r"-\d+", text):
                continue
            if text.startswith("+"):
                self.effects.code.append(f"{label} {text}: {spec.code['+']}")
                continue
            if text.startswith("--"):
                option, has_value, value = text.partition("=")
                names = [(option, value if has_value else None)]
            elif spec.flags is not None and text in spec.flags:
                seen.add(text)
                continue
            elif len(text) > 2 and (text + "=" in spec.code or text in spec.code or text in spec.writes
                                    or text in spec.values or text in spec.commands):
                names = [(text, None)]  # a short option of several letters (`zip -TT`, `find -fprint`)
            else:
                names = []
                for at in range(1, len(text)):
                    option = "-" + text[at]
                    if self._takes_value(spec, option):
                        names.append((option, text[at + 1:] or None))
                        break
                    names.append((option, None))
            for option, value in names:
                seen.add(option)
                kind = self.classify(spec, option)
                if kind in ("write", "code", "commands", "value") and value is None and index < len(tokens) and (
                        kind != "code" or option + "=" in spec.code):
                    value = tokens[index].text
                    index += 1
                given[option] = value
                if option in ("-e", "--regexp", "-f", "--file"):
                    patterns_given = True
                if option in ("-t", "--target-directory"):
                    target_dir = True
                    target.append(value)
                if kind == "write":
                    self.write(value, f"{label} {option}")
                elif kind == "write_flag":
                    self.effects.writes.append((None, f"{label} {option} ({spec.write_flags[option]})"))
                elif kind == "commands":
                    if value is None:
                        self.effects.code.append(f"{label} {option} with a command computed at run time")
                    else:
                        self.effects.visible.append(value)
                        self.effects.code.append(f"{label} {option} runs `{value}`")
                elif kind == "code":
                    why = spec.code.get(option + "=") or spec.code.get(option) or "runs other code"
                    self.effects.code.append(f"{label} with {option} {why}".replace(" with -v assigns",
                                                                                     " -v assigns"))
                    if option == "-v" and self.name == "printf":
                        self.effects.code.pop()  # the walker judges the variable printf -v sets
                elif kind == "unknown":
                    self.effects.code.append(_UNKNOWN_OPTION.format(label=label, option=option))
                    self.effects.writes.append((value if option.startswith("--") else None,
                                                f"{label} {option}, an option the table does not know"))
        self.positional(spec, positional, label, patterns_given, target_dir)
        if spec.copies and (positional or target):
            self.copies(spec, [t.text for t in positional], target, seen, label)
        if spec.lands:
            self.lands(spec, [t.text for t in positional], given, seen, label)
        elif spec.writes_unknown:
            self.effects.writes.append((None, f"{label} (writes files it names at run time)"))
        self.finish_spec(spec, label)

    # -- archives and patches: what they write, read from them now ------------------------------------------------
    def lands(self, spec: Program, operands: list[str | None], given: dict[str, str | None], seen: set[str],
              label: str) -> None:
        """`unzip`, `patch`, `git apply` and `git am` write what the archive holds or the patch names."""
        from gemini_tui.core.shell.unpacked import Unpacked, patch_names, zip_members

        def option(*names: str) -> str | None:
            return next((given[n] for n in names if n in given), None)

        found: Unpacked | None = None
        where: str | None = "."
        what = "the patch"
        if spec.lands == "zip":
            if seen & {"-l", "-v", "-t", "-Z", "-z", "-p", "-c"}:
                return  # lists, tests or prints: writes nothing
            archive = operands[0] if operands else None
            what = f"the archive {archive}"
            where = option("-d") or "."
            if (path := self._readable(archive)) is not None:
                found = zip_members(path, junk_paths="-j" in seen)
        else:
            git = spec.lands == "apply"
            if git and seen & {"--check", "--stat", "--numstat", "--summary"} and "--apply" not in seen:
                return  # tells about the patch, applies nothing
            if git and seen & {"--continue", "-r", "--resolved", "--skip", "--abort", "--quit"}:
                self.effects.writes.append((None, f"{label} (goes on with a patch already under way)"))
                return
            if git and "--show-current-patch" in seen:
                return
            if not git and "--dry-run" in seen:
                return
            if not git and operands:
                return  # `patch FILE [PATCH]` writes FILE only: its positional write
            sources = [option("-i", "--input")] if not git and option("-i", "--input") else operands
            texts: list[str | None] = [self._patch_text(source) for source in sources] if sources else [
                self._stdin_text()]
            strip_value = option("-p", "--strip")
            try:
                strip = int(strip_value) if strip_value is not None else (1 if git else None)
            except ValueError:
                texts = [None]
                strip = None
            where = (self.git_directory if git else option("-d", "--directory")) or ("." if not git else None)
            if git and where is not None and (prefix := option("--directory")):
                where = os.path.join(where, prefix)
            found = Unpacked()
            for text in texts:
                names = patch_names(text, strip) if text is not None else None
                if names is None:
                    found = None
                    break
                found.names += names.names
                found.links += names.links
        if found is None or where is None:
            self.effects.writes.append((None, f"{label} (writes what {what} holds, which cannot be read now)"))
            return
        how = f"{label} (what {what} writes)"
        for name in found.names:
            self.write(os.path.normpath(os.path.join(where, name)), how, purpose=True)
        self.effects.links.extend(os.path.normpath(os.path.join(where, name)) for name in found.links)

    def _readable(self, path: str | None) -> str | None:
        """A file the command reads, as this process finds it now (None: only known when it runs)."""
        if path is None or path == "-" or (self.context.changes_directory and not os.path.isabs(path)):
            return None
        return os.path.join(self.context.cwd, os.path.expanduser(path))

    def _patch_text(self, source: str | None) -> str | None:
        from gemini_tui.core.shell.unpacked import read_patch

        if source == "-":
            return self._stdin_text()
        path = self._readable(source)
        return read_patch(path) if path is not None else None

    def _stdin_text(self) -> str | None:
        """The text on the command's standard input, when its own redirection names a file or holds the text."""
        from gemini_tui.core.shell.unpacked import read_patch

        if self.command.stdin_text is not None:
            return self.command.stdin_text
        path = self._readable(self.command.stdin)
        return read_patch(path) if path is not None else None

    def finish_spec(self, spec: Program, label: str) -> None:
        if spec.runs and not spec.subcommands:
            if spec.project:
                self.effects.project = self.effects.project or f"{label} {spec.runs}"
            else:
                self.effects.code.append(f"{label} {spec.runs}")
        self.effects.network = self.effects.network or spec.network

    @staticmethod
    def _takes_value(spec: Program, option: str) -> bool:
        return (option in spec.values or option in spec.writes or option + "=" in spec.code
                or option in spec.commands)

    @staticmethod
    def classify(spec: Program, option: str) -> str:
        if option in spec.writes:
            return "write"
        if option in spec.commands:
            return "commands"
        if option + "=" in spec.code or option in spec.code:
            return "code"
        if option in spec.write_flags:
            return "write_flag"
        if option in spec.values:
            return "value"
        if spec.flags is None or option in spec.flags:
            if option.startswith("--") and spec.flags is None:
                dangerous = [o.rstrip("=") for o in (*spec.writes, *spec.code, *spec.write_flags)]
                if any(o.startswith(option) and o != option for o in dangerous if o.startswith("--")):
                    return "unknown"  # an abbreviation of an option that writes or runs code
            return "flag"
        return "unknown"

    def positional(self, spec: Program, tokens: list[_Token], label: str, patterns_given: bool,
                   target_dir: bool) -> None:
        texts = [t.text for t in tokens]
        kind = spec.positional
        if spec.assigns:
            return
        if kind == "pattern" and not patterns_given:
            texts = texts[1:]
            kind = "read"
        if kind == "read":
            self.effects.reads.extend(texts)
        elif kind == "write":
            for text in texts:
                self.write(text, label, purpose=True)
        elif kind == "last":
            if target_dir or len(texts) < 2:
                self.effects.reads.extend(texts)
            else:
                self.effects.reads.extend(texts[:-1])
                self.write(texts[-1], label, purpose=True)
        elif kind == "script" and texts:
            self.effects.reads.append(texts[0])

    def copies(self, spec: Program, operands: list[str | None], target: list[str | None], seen: set[str],
               label: str) -> None:
        """A copy, move or link writes what lands in its destination: the sources' names there, and with a
        recursive copy every file of a source folder (`cp -r tpl/. .` writes tpl's `.gemini/settings.json`)."""
        from gemini_tui.core.shell.landing import landing

        def given(options: str) -> bool:
            return options == "*" or bool(seen & set(options.split()))

        if self.name == "install" and seen & {"-d", "--directory"}:
            return  # install -d makes the folders it names: they are its positional writes
        if target:
            sources, destination, into = operands, target[-1], True
        elif len(operands) >= 2:
            sources, destination = operands[:-1], operands[-1]
            into = False if seen & {"-T", "--no-target-directory"} else None
        else:
            return
        recursive = given(spec.recurse)
        if self.context.changes_directory and any(s is not None and not os.path.isabs(s) for s in sources):
            sources = [None for _ in sources]  # after a cd the sources are other folders than the ones listed now
            recursive = False
        landed = landing(sources, destination, self.context.cwd, into=into, recursive=recursive,
                         contents_slash=spec.copies == "rsync")
        how = f"{label} (what lands in {destination})"
        for path in landed:
            self.write(path, how, purpose=True)
        if spec.links and given(spec.links):
            self.effects.links.extend(p for p in landed if p is not None)

    def write(self, path: str | None, how: str, purpose: bool = False) -> None:
        if path in HARMLESS_DEVICES or (path or "").startswith("/dev/fd/"):
            return
        (self.effects.purpose_writes if purpose else self.effects.writes).append((path, how))

    # -- git -----------------------------------------------------------------------------------------------
    def git_globals(self, options: list[_Token]) -> None:
        prefix = [w for w in self.command.prefix]
        directory = self.context.cwd
        self.git_directory = directory
        texts = [p for p in prefix]
        for at, word in enumerate(texts):
            if word is None:
                self.effects.code.append("`git` with options computed at run time")
                continue
            option, has_value, value = word.partition("=")
            following = texts[at + 1] if at + 1 < len(texts) else None
            if option == "-c":
                setting = value if has_value and option != "-c" else following
                if setting is None or not SAFE_GIT_CONFIG.match(setting):
                    self.effects.code.append(f"`git -c {setting or '…'}` sets a configuration that can name a "
                                             "program")
            elif option in ("--exec-path", "--config-env") and (has_value or option == "--config-env"):
                self.effects.code.append(f"`git {option}` names programs or configuration git runs")
            elif option == "-C":
                target = following
                if target is None:
                    self.effects.code.append("`git -C` into a folder computed at run time")
                    self.git_directory = None
                    continue
                directory = os.path.normpath(os.path.join(directory, target))
                if self.git_directory is not None:
                    self.git_directory = directory
            elif option == "--git-dir":
                target = value if has_value else following
                if target is None or not _same(os.path.join(directory, target),
                                               os.path.join(self.context.root, ".git")):
                    self.effects.code.append(f"`git --git-dir={target or '…'}` uses another repository, whose "
                                             "configuration can run programs")
        if _other_repository(directory, self.context.root):
            self.effects.code.append(f"`git` in {_shown(directory, self.context.root)} uses another repository "
                                     "than the workspace's, whose configuration can run programs")
        elif self.context.changes_directory:
            self.effects.code.append("`git` after a cd: it may use another repository, whose configuration can "
                                     "run programs")

    def checks_out(self, spec: Program, rest: list[_Token], label: str) -> None:
        """A git command that checks out a tree writes every path of it that changes: read them from git now."""
        from gemini_tui.core.shell.trees import checked_out

        directory = self.git_directory
        if directory is None or self.context.changes_directory:
            paths: list[str | None] = [None]
        else:
            paths = checked_out(spec.checks_out, [t.text for t in rest], directory)
        for path in paths:
            if path is None:
                self.effects.writes.append((None, f"{label} (checks out a tree that can only be read when it runs)"))
            else:
                self.write(path, f"{label} (checks out {os.path.relpath(path, directory)})", purpose=True)
        if spec.links:
            self.effects.links.extend(p for p in paths if p is not None)

    def git_sub(self, sub: str, spec: Program, rest: list[_Token], label: str) -> None:
        if spec.checks_out:
            self.checks_out(spec, rest, label)
        if spec.config:
            reads = {"--get", "--get-all", "--get-regexp", "-l", "--list", "get", "list", "--show-origin",
                     "--name-only"}
            if not any(t.text in reads for t in rest):
                self.effects.writes.append((None, f"{label} (writes git's configuration)"))
        if spec.hooks:
            hooks = hooks_in_root(self.context.root)
            if hooks:
                self.effects.code.append(f"{label} runs the repository's hooks ({', '.join(hooks[:3])})")

    # -- programs with their own syntax ------------------------------------------------------------------------
    def special_wrapper(self, tokens: list[_Token]) -> None:
        options = WRAPPER_WRITES.get(self.name, ())
        index = 0
        while index < len(tokens):
            text = tokens[index].text
            index += 1
            if text is None or not text.startswith("-"):
                if self.name == "flock" and text is not None:
                    self.write(text, "`flock` (its lock file)")
                elif self.name == "flock":
                    self.effects.writes.append((None, "`flock` (its lock file)"))
                break
            for option in options:
                if text == option:
                    self.write(tokens[index].text if index < len(tokens) else None, f"{self.label} {option}")
                    index += 1
                elif text.startswith(option + "=") or (len(option) == 2 and text.startswith(option)
                                                         and len(text) > 2):
                    self.write(text[len(option) + (1 if text.startswith(option + "=") else 0):],
                               f"{self.label} {option}")

    def special_env(self, tokens: list[_Token]) -> None:
        return  # its assignments and its command are judged by the walker and as their own command

    def special_xargs(self, tokens: list[_Token]) -> None:
        for at, token in enumerate(tokens):
            if token.text in ("-a", "--arg-file") and at + 1 < len(tokens):
                self.effects.reads.append(tokens[at + 1].text)

    def special_dd(self, tokens: list[_Token]) -> None:
        known = ("bs", "ibs", "obs", "cbs", "count", "skip", "seek", "conv", "status", "iflag", "oflag", "iseek",
                 "oseek")
        for token in tokens:
            text = token.text
            if text is None:
                self.effects.writes.append((None, "`dd` with an operand computed at run time"))
                continue
            key, _, value = text.partition("=")
            if key == "of":
                self.write(value, "`dd of=`")
            elif key == "if":
                self.effects.reads.append(value)
            elif key not in known and text not in INFORMATIONAL:
                self.effects.code.append(_UNKNOWN_OPTION.format(label="`dd`", option=text))
                self.effects.writes.append((None, f"`dd {text}`"))

    def special_sed(self, tokens: list[_Token]) -> None:
        scripts: list[str | None] = []
        files: list[str | None] = []
        in_place = False
        index = 0
        only_files = False
        while index < len(tokens):
            text = tokens[index].text
            index += 1
            if text is None and not only_files:
                self.effects.code.append("`sed` with an argument computed at run time (it could be a script that "
                                         "writes or runs a command)")
                self.effects.writes.append((None, "`sed` with an argument computed at run time"))
                continue
            if only_files or text is None or not text.startswith("-") or text == "-":
                files.append(text)
                continue
            if text == "--":
                only_files = True
            elif text in ("-e", "--expression"):
                scripts.append(tokens[index].text if index < len(tokens) else "")
                index += 1
            elif text.startswith("--expression="):
                scripts.append(text.partition("=")[2])
            elif text in ("-f", "--file") or text.startswith(("--file=", "-f")):
                self.effects.code.append("`sed -f` reads its script from a file (it could write or run a command)")
                self.effects.writes.append((None, "`sed -f`"))
                if text in ("-f", "--file"):
                    index += 1
            elif text.startswith(("-i", "--in-place")) or (text.startswith("-") and not text.startswith("--")
                                                           and "i" in text[1:].split("e")[0]
                                                           and re.fullmatch(r"-[nrEsuz]*i.*", text)):
                in_place = True
            elif text in ("-l", "--line-length"):
                index += 1
            elif text.startswith("--line-length=") or text in _SED_FLAGS or re.fullmatch(r"-[nrEsuzb]+", text):
                continue
            elif re.fullmatch(r"-[nrEsuzb]*e", text):
                scripts.append(tokens[index].text if index < len(tokens) else "")
                index += 1
            else:
                self.effects.code.append(_UNKNOWN_OPTION.format(label="`sed`", option=text))
                self.effects.writes.append((None, f"`sed {text}`"))
        if not scripts and files:
            scripts.append(files.pop(0))
        for script in scripts:
            if script is None:
                self.effects.code.append("`sed` with a script computed at run time")
                continue
            for kind, value in sed_script(script):
                if kind == "write":
                    self.write(value, "`sed w`")
                elif kind == "read":
                    self.effects.reads.append(value)
                elif kind == "code":
                    self.effects.code.append(f"`sed` {value}")
        if in_place:
            for path in files:
                self.write(path, "`sed -i`")
        else:
            self.effects.reads.extend(files)

    def special_find(self, tokens: list[_Token]) -> None:
        value_predicates = {
            "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname",
            "-ilname", "-type", "-xtype", "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin",
            "-newer", "-anewer", "-cnewer", "-perm", "-user", "-group", "-uid", "-gid", "-maxdepth", "-mindepth",
            "-printf", "-links", "-inum", "-samefile", "-used", "-fstype", "-context", "-regextype", "-D", "-O"}
        flags = {"-print", "-print0", "-ls", "-prune", "-quit", "-true", "-false", "-empty", "-executable",
                 "-readable", "-writable", "-nouser", "-nogroup", "-depth", "-d", "-mount", "-xdev", "-follow",
                 "-noleaf", "-a", "-o", "-and", "-or", "-not", "!", "(", ")", ",", "-daystart",
                 "-ignore_readdir_race", "-noignore_readdir_race", "-warn", "-nowarn", "-help", "--help",
                 "-version", "--version", "-H", "-L", "-P"}
        writes = {"-fprint": 1, "-fprint0": 1, "-fls": 1, "-fprintf": 2}
        starts: list[str | None] = []
        index = 0
        in_predicates = False
        while index < len(tokens):
            text = tokens[index].text
            index += 1
            if text is None:
                if in_predicates:
                    self.effects.code.append("`find` with a predicate computed at run time")
                    self.effects.writes.append((None, "`find` with a predicate computed at run time"))
                else:
                    starts.append(None)
                continue
            if not in_predicates and not text.startswith(("-", "(", "!")) and text != ",":
                starts.append(text)
                continue
            if text in ("-H", "-L", "-P") and not in_predicates:
                continue
            in_predicates = True
            if text in ("-exec", "-execdir", "-ok", "-okdir"):
                end = next((i for i in range(index, len(tokens)) if tokens[i].text in (";", "+")), len(tokens))
                if all(t.text is not None for t in tokens[index:end]):
                    inner = shlex.join(t.text or "" for t in tokens[index:end])
                    self.effects.visible.append(inner)  # the walker reads it as a command too
                else:
                    inner = " ".join(t.text or "…" for t in tokens[index:end])
                self.effects.code.append(f"`find {text}` runs `{inner}`")
                index = end + 1
            elif text in writes:
                self.write(tokens[index].text if index < len(tokens) else None, f"`find {text}`")
                index += writes[text]
            elif text == "-delete":
                self.effects.writes.append((None, "`find -delete` (deletes what it finds)"))
            elif text.startswith("-newer") or text in value_predicates:
                index += 1
            elif text in flags:
                continue
            else:
                self.effects.code.append(_UNKNOWN_OPTION.format(label="`find`", option=text))
                self.effects.writes.append((None, f"`find {text}`"))
        self.effects.reads.extend(starts or ["."])

    def special_tar(self, tokens: list[_Token]) -> None:
        long_code = {"--to-command": "commands", "--checkpoint-action": "checkpoint", "--use-compress-program":
                     "program", "--rsh-command": "program", "--info-script": "program", "--new-volume-script":
                     "program", "--rmt-command": "program", "--index-file": "write"}
        values = {"--exclude", "--transform", "--xform", "--strip-components", "--owner", "--group", "--mode",
                  "--mtime", "--sort", "--format", "--warning", "--checkpoint", "--blocking-factor",
                  "--exclude-from", "--files-from", "--label", "--suffix", "--newer", "--after-date",
                  "--newer-mtime", "--record-size", "--occurrence", "--quoting-style", "--exclude-tag",
                  "--level", "--tape-length", "--volno-file", "--hole-detection", "--acls", "--xattrs-include",
                  "--xattrs-exclude", "--directory", "--file"}
        short_values = set("fCbTXLNVKgHs")
        short_code = {"I": "program", "F": "program"}
        flags = set("cxtruAdvzjJaZpPkmlOoUWShBiMRGn") | {"-"}
        mode = ""
        archive: list[str | None] = []
        directory: str | None = "."  # relative to where it runs (after a cd on the line, the rules cannot see it)
        positional: list[str | None] = []
        strip: str | None = "0"  # --strip-components
        renamed = False  # --transform: where members land is only known when it runs
        absolute = False  # -P: a leading / stays
        index = 0
        first = True
        while index < len(tokens):
            text = tokens[index].text
            index += 1
            if text is None:
                self.effects.code.append("`tar` with an argument computed at run time")
                self.effects.writes.append((None, "`tar` with an argument computed at run time"))
                continue
            old_style = first and not text.startswith("-")
            first = False
            if text.startswith("--"):
                option, has_value, value = text.partition("=")
                if option in ("--create", "--extract", "--get", "--list", "--append", "--update", "--catenate",
                              "--concatenate", "--delete", "--diff", "--compare"):
                    mode = mode or {"--create": "c", "--extract": "x", "--get": "x", "--list": "t",
                                    "--diff": "d", "--compare": "d"}.get(option, "r")
                    continue
                if option in long_code:
                    if not has_value:
                        value = tokens[index].text or "" if index < len(tokens) else ""
                        index += 1
                    kind = long_code[option]
                    if kind == "commands":
                        self.effects.visible.append(value)
                        self.effects.code.append(f"`tar {option}` runs `{value}`")
                    elif kind == "checkpoint":
                        if value.startswith("exec="):
                            self.effects.visible.append(value[5:])
                            self.effects.code.append(f"`tar {option}` runs `{value[5:]}`")
                    elif kind == "write":
                        self.write(value, f"`tar {option}`")
                    else:
                        self.effects.code.append(f"`tar {option}` runs the program `{value}`")
                    continue
                if option in values:
                    if not has_value:
                        value = (tokens[index].text or "") if index < len(tokens) else ""
                        index += 1
                    if option == "--file":
                        archive.append(value)
                    elif option == "--directory":
                        directory = value
                    elif option == "--strip-components":
                        strip = value
                    elif option in ("--transform", "--xform"):
                        renamed = True
                    elif option == "--remove-files":
                        pass
                    continue
                if option == "--remove-files":
                    self.effects.writes.append((None, "`tar --remove-files` (deletes what it archives)"))
                    continue
                if option in ("--verbose", "--gzip", "--bzip2", "--xz", "--zstd", "--auto-compress",
                              "--to-stdout", "--keep-old-files", "--skip-old-files", "--overwrite",
                              "--no-same-owner", "--same-owner", "--preserve-permissions", "--same-permissions",
                              "--numeric-owner", "--wildcards", "--anchored", "--no-recursion", "--recursion",
                              "--one-file-system", "--exclude-vcs", "--exclude-vcs-ignores", "--totals",
                              "--null", "--dereference", "--ignore-failed-read", "--sparse", "--verify", "--help",
                              "--version", "--show-transformed-names", "--full-time", "--utc", "--no-xattrs",
                              "--xattrs", "--no-acls", "--absolute-names", "--touch", "--keep-newer-files",
                              "--unlink-first", "--recursive-unlink", "--ignore-zeros", "--lzma", "--lzip",
                              "--lzop", "--compress", "--uncompress", "--gunzip", "--ungzip"):
                    absolute = absolute or option == "--absolute-names"
                    renamed = renamed or option == "--recursive-unlink"  # removes folders it finds in the way
                    continue
                self.effects.code.append(_UNKNOWN_OPTION.format(label="`tar`", option=option))
                self.effects.writes.append((None, f"`tar {option}`"))
                continue
            if text.startswith("-") or old_style:
                letters = text.lstrip("-")
                pending: list[str] = []
                for at, letter in enumerate(letters):
                    absolute = absolute or letter == "P"
                    renamed = renamed or letter in "Gg"  # incremental: deletes what the archive does not hold
                    if letter in "cxtruAd" and not mode:
                        mode = {"c": "c", "x": "x", "t": "t", "d": "d"}.get(letter, "r")
                    if letter in short_values or letter in short_code:
                        if old_style:
                            pending.append(letter)
                            continue
                        value = letters[at + 1:] or ((tokens[index].text or "") if index < len(tokens) else "")
                        if not letters[at + 1:]:
                            index += 1
                        self.tar_value(letter, value, archive, short_code)
                        if letter == "C":
                            directory = value
                        break
                    if letter not in flags:
                        self.effects.code.append(_UNKNOWN_OPTION.format(label="`tar`", option=f"-{letter}"))
                        self.effects.writes.append((None, f"`tar -{letter}`"))
                for letter in pending:  # old style: `tar czf out.tgz dir`, values follow in order
                    value = (tokens[index].text or "") if index < len(tokens) else ""
                    index += 1
                    self.tar_value(letter, value, archive, short_code)
                    if letter == "C":
                        directory = value
                continue
            positional.append(text)
        if mode in ("c", "r"):
            for path in archive:
                self.write(path, "`tar` (the archive it creates)")
            self.effects.reads.extend(positional)
        elif mode == "x":
            self.effects.reads.extend(archive)
            if "-O" not in [t.text for t in tokens] and "--to-stdout" not in [t.text for t in tokens] and not (
                    self.effects.visible):
                self.tar_lands(archive, directory, strip, absolute, renamed)
        else:
            self.effects.reads.extend(archive)

    def tar_lands(self, archive: list[str | None], directory: str | None, strip: str | None, absolute: bool,
                  renamed: bool) -> None:
        """`tar -x` writes the archive's members under its folder: read them from the archive now."""
        from gemini_tui.core.shell.unpacked import tar_members

        found = None
        source = archive[-1] if archive else "-"  # no -f: GNU tar reads its standard input
        path = self._readable(self.command.stdin if source == "-" else source)
        if path is not None and directory is not None and not renamed and strip is not None and strip.isdigit():
            found = tar_members(path, int(strip), absolute)
        if found is None or directory is None:
            self.effects.writes.append((None, f"`tar -x` (writes the archive's files under "
                                              f"{directory or 'a folder computed at run time'}, which cannot be "
                                              "read now)"))
            return
        how = f"`tar -x` (what the archive {source} holds)"
        for name in found.names:
            self.write(os.path.normpath(os.path.join(directory, name)), how, purpose=True)
        self.effects.links.extend(os.path.normpath(os.path.join(directory, name)) for name in found.links)

    def tar_value(self, letter: str, value: str, archive: list[str | None], short_code: dict[str, str]) -> None:
        if letter == "f":
            archive.append(value)
        elif letter in short_code:
            self.effects.code.append(f"`tar -{letter}` runs the program `{value}`")

    def special_awk(self, tokens: list[_Token]) -> None:
        program: str | None = None
        files: list[str | None] = []
        index = 0
        while index < len(tokens):
            text = tokens[index].text
            index += 1
            if program is not None or (text is not None and (not text.startswith("-") or text == "-")):
                if program is None:
                    program = text
                else:
                    files.append(text)
                continue
            if text is None:
                self.effects.code.append("`awk` with an argument computed at run time")
                continue
            if text in ("-v", "-F", "--assign", "--field-separator"):
                index += 1
            elif text.startswith(("-v", "-F", "--assign=", "--field-separator=")):
                continue
            elif text in ("-e", "--source"):
                program = (tokens[index].text if index < len(tokens) else "") or ""
                index += 1
            elif text in ("--", "-P", "--posix", "-S", "--sandbox", "-b", "-c", "--traditional", "-r",
                          "-O", "-M", "-N", "--version", "--help"):
                continue
            else:
                self.effects.code.append(f"`awk {text}` loads a program or a library from a file")
                return
        if program is None:
            self.effects.code.append("`awk` without a program it can read")
            return
        if "--sandbox" in [t.text for t in tokens] or "-S" in [t.text for t in tokens]:
            self.effects.reads.extend(files)
            return
        if re.search(r"\bsystem\s*\(|\||@load|@include|\bgetline\b", program):
            self.effects.code.append("`awk` runs commands from its program")
        for match in re.finditer(r"\bprintf?\b[^;{}\n]*?>>?\s*(\"([^\"]*)\"|[^\s;}]+)?", program):
            target = match.group(2)
            self.write(target if target else None, "`awk` print >")
        self.effects.reads.extend(files)


def global_row(spec: Program) -> Program:
    """The part of a program's row that judges the options before its subcommand."""
    return Program(values=spec.values | spec.sub_values, flags=spec.flags, code=spec.code,
                   writes=spec.writes, positional="none")


# -- sed scripts ------------------------------------------------------------------------------------------------
def sed_script(script: str) -> list[tuple[str, str | None]]:
    """What a sed script does beyond printing: ("write", file), ("read", file), ("code", why)."""
    found: list[tuple[str, str | None]] = []
    at, size = 0, len(script)

    def rest_of_line() -> str:
        nonlocal at
        end = script.find("\n", at)
        end = size if end < 0 else end
        text = script[at:end]
        at = end
        return text.strip()

    def delimited(delimiter: str) -> None:
        nonlocal at
        while at < size and script[at] != delimiter:
            at += 2 if script[at] == "\\" else 1
        at += 1

    while at < size:
        char = script[at]
        if char in " \t\n;":
            at += 1
            continue
        # addresses
        while at < size:
            char = script[at]
            if char.isdigit() or char in "$,~+!":
                at += 1
            elif char == "/":
                at += 1
                delimited("/")
                while at < size and script[at] in "IM":
                    at += 1
            elif char == "\\" and at + 1 < size:
                delimiter = script[at + 1]
                at += 2
                delimited(delimiter)
            elif char in " \t":
                at += 1
            else:
                break
        if at >= size:
            break
        command = script[at]
        at += 1
        if command in "{}=dDgGhHnNpPxzlLqQF":
            while at < size and script[at] in " \t0123456789":
                at += 1
            continue
        if command == "#":
            rest_of_line()
            continue
        if command in ":btTv":
            while at < size and script[at] not in ";\n":
                at += 1
            continue
        if command in "aic":
            while True:
                line = rest_of_line()
                if not line.endswith("\\") or at >= size:
                    break
                at += 1
            continue
        if command in "wW":
            found.append(("write", rest_of_line() or None))
            continue
        if command in "rR":
            found.append(("read", rest_of_line() or None))
            continue
        if command == "e":
            found.append(("code", f"e runs `{rest_of_line() or 'the pattern space'}` as a command"))
            continue
        if command in "sy":
            if at >= size:
                break
            delimiter = script[at]
            at += 1
            delimited(delimiter)
            delimited(delimiter)
            if command == "y":
                continue
            while at < size and script[at] not in ";\n}":
                flag = script[at]
                at += 1
                if flag == "w":
                    found.append(("write", rest_of_line() or None))
                    break
                if flag == "e":
                    found.append(("code", "s///e runs the result as a command"))
                elif flag not in "gpiImM0123456789 \t":
                    found.append(("code", f"s/// with the flag {flag!r}, which the table does not know"))
            continue
        found.append(("code", f"the command {command!r}, which the table does not know"))
        found.append(("write", None))
        break
    return found


# -- repositories and hooks ---------------------------------------------------------------------------------------
def _same(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _shown(path: str, root: str) -> str:
    return os.path.relpath(path, root) if _inside(os.path.realpath(path), os.path.realpath(root)) else path


def _other_repository(directory: str, root: str) -> bool:
    """Whether git run in `directory` would use another repository than the root's own (a nested one, a bare
    repository folder shipped in a clone, or one outside the root)."""
    real = os.path.realpath(directory)
    real_root = os.path.realpath(root)
    if not _inside(real, real_root):
        return True
    current = real
    while current != real_root:
        if os.path.lexists(os.path.join(current, ".git")) or all(
                os.path.exists(os.path.join(current, part)) for part in ("HEAD", "objects", "refs")):
            return True
        current = os.path.dirname(current)
    return False


def hooks_path(root: str) -> str | None:
    """The folder `core.hooksPath` names for the root's repository (read from git by the one reader the sandbox
    uses too, cached on every level of git's configuration), or None."""
    found = sandbox_places.hooks_path(Path(root))
    return str(found) if found is not None else None


def hooks_in_root(root: str) -> list[str]:
    """Hooks in a folder inside the root that git runs (core.hooksPath into the project, as husky sets it):
    files a clone or the model could have written."""
    folder = hooks_path(root)
    if folder is None or not _inside(os.path.realpath(folder), os.path.realpath(root)):
        return []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [os.path.relpath(os.path.join(folder, n), root) for n in names
            if not n.endswith(".sample") and os.path.isfile(os.path.join(folder, n))
            and os.access(os.path.join(folder, n), os.X_OK)]
