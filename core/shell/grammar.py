"""What a bash command line runs, read with bash's own grammar (tree-sitter-bash), for the approval policy.

Every simple command in every list, pipeline, subshell, compound command, function body, substitution and
script handed to a shell is found; keywords never count as commands. Wrappers (`sudo`, `env`, `timeout`, ...)
and git's global options are looked through. What cannot be known before it runs is reported as *opaque*
(`eval`, `bash -c`, a command word computed at run time, `find -exec`, ...): the policy never lets an opaque
line run unasked. tree-sitter loads on the first analysis, never at import (the app's first frame)."""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from gemini_tui.core.shell.table import (
    ARCH_WRAPPERS,
    EVALUATES,
    SAFE_ARITHMETIC,
    SAFE_NAME,
    program_name,
    variable_runs_code,
    variable_writes,
)
from gemini_tui.core.shell.words import Form, Part

MAX_DEPTH = 6  # scripts inside scripts (bash -c "eval '...'") deeper than this are opaque

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "yash", "csh", "tcsh", "rbash"})
# interpreter -> the flags that take a program as their argument (in a cluster for single letters)
INTERPRETERS: dict[str, tuple[str, ...]] = {
    "python": ("c",), "python2": ("c",), "python3": ("c",), "pypy": ("c",), "pypy3": ("c",),
    "node": ("e", "p", "--eval", "--print"), "nodejs": ("e", "p", "--eval", "--print"), "bun": ("e", "--eval"),
    "deno": ("eval",), "perl": ("e", "E"), "ruby": ("e",), "php": ("r",), "lua": ("e",), "luajit": ("e",),
    "Rscript": ("e",), "tclsh": (), "osascript": ("e",), "pwsh": ("c", "-Command"), "powershell": ("c", "-Command"),
    "jshell": (), "irb": (), "R": ("e",),
}
AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
# builtins and commands that run text as code, or change what later words mean
OPAQUE_COMMANDS = {
    "eval": "eval", "source": "source", ".": "source (.)", "trap": "trap", "alias": "alias",
    "enable": "enable", "fc": "fc", "coproc": "coproc", "watch": "watch (runs its arguments through sh -c)",
    "parallel": "parallel", "script": "script -c", "su": "su",
    "shopt": "shopt (changes how words expand)",
}
RESERVED_WORDS = frozenset({"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until",
                            "do", "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc"})
# commands that only read: their arguments naming a protected file are no write (redirections still count)
READ_ONLY_COMMANDS = frozenset({"cat", "ls", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "wc",
                                "stat", "file", "diff", "cmp", "du", "tree", "echo", "printf", "test",
                                "[", "realpath", "readlink", "basename", "dirname", "sha256sum", "md5sum", "git",
                                "pwd", "which", "type"})


@dataclass(frozen=True)
class Command:
    """One simple command as bash will run it. `words` are after quote removal (None: computed at run time).

    `via` says what runs it when that is not the line itself (`sudo`, `bash -c`, `find -exec`); a transparent
    `wrapper` (env, nohup, timeout, ...) is matched by deny rules but allow rules look at the command it runs."""

    words: tuple[str | None, ...]
    text: str
    via: str = ""
    wrapper: bool = False
    forms: tuple[Form | None, ...] = field(default=(), compare=False)  # each word's parts, expanded when judged
    prefix: tuple[str | None, ...] = field(default=(), compare=False)  # git's options before its subcommand
    # what it reads on its standard input when the line says so: a file (`< f`) or a here-doc's or here-string's
    # literal text; both None: something else (a pipe, a loop's input, an expansion, whatever it was started with)
    stdin: str | None = field(default=None, compare=False)
    stdin_text: str | None = field(default=None, compare=False)

    @property
    def name(self) -> str | None:
        first = self.words[0] if self.words else None
        return os.path.basename(first) if first else first

    def rule_text(self) -> str:
        """How this command reads in a rule: `git status`, `rm` (never a keyword)."""
        name = self.name or "?"
        if name == "git" and len(self.words) > 1 and self.words[1] and not self.words[1].startswith("-"):
            return f"git {self.words[1]}"
        return name


@dataclass(frozen=True)
class Opaque:
    """A construct whose effect is only known when it runs, named for the user."""

    construct: str
    text: str
    visible: bool = False  # the commands it runs were read too (`sh -c 'ls'`, `find -exec`): judged by themselves


@dataclass(frozen=True)
class ShellAnalysis:
    source: str
    commands: tuple[Command, ...]
    opaque: tuple[Opaque, ...]
    writes: tuple[str | None, ...]  # redirection targets written (None: a target computed at run time)
    path_words: tuple[str, ...]  # literal arguments of commands that may write what they name
    changes_directory: bool = False
    write_forms: tuple[Form | None, ...] = ()  # each redirection target's parts (parallel to `writes`)
    assigned: frozenset[str] = frozenset()  # variables the line sets: their value is only known when it runs
    reads: tuple[str | None, ...] = ()  # input redirection sources read (`< f`, `3< f`, `$(< f)`)
    read_forms: tuple[Form | None, ...] = ()

    def command_names(self) -> tuple[str, ...]:
        """The real commands of the line for "allow for this session": wrappers' commands, never keywords."""
        names: list[str] = []
        for command in self.commands:
            if command.wrapper or command.name is None:
                continue
            text = command.rule_text()
            if text not in names:
                names.append(text)
        return tuple(names)


# -- the parser (lazy) ---------------------------------------------------------------------------------------------
_local = threading.local()  # a tree-sitter Parser must not be shared by threads parsing at once: one per thread


@lru_cache(maxsize=1)
def _language() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Language(tree_sitter_bash.language())


def parse(source: str) -> Any:
    parser = getattr(_local, "parser", None)
    if parser is None:
        import tree_sitter

        parser = _local.parser = tree_sitter.Parser(_language())
    return parser.parse(source.encode("utf-8"))


@lru_cache(maxsize=512)
def analyze(source: str) -> ShellAnalysis:
    """What `source` runs, as bash parses it."""
    walker = _Walker()
    walker.script(source, depth=0, via="")
    return ShellAnalysis(source, tuple(walker.commands), tuple(dict.fromkeys(walker.opaque)),
                         tuple(walker.writes), tuple(dict.fromkeys(walker.path_words)), walker.changes_directory,
                         tuple(walker.write_forms), frozenset(walker.assigned), tuple(walker.reads),
                         tuple(walker.read_forms))


def command_words(rule_argument: str) -> tuple[str, ...] | None:
    """The literal words of a rule's command (`git status` in `run_shell_command(git status)`), git options
    looked through; None when the rule is not one plain command."""
    found = analyze(rule_argument)
    plain = [c for c in found.commands if not c.wrapper]
    if len(plain) != 1 or found.opaque or any(w is None for w in plain[0].words):
        return None
    return tuple(w for w in plain[0].words if w is not None)


# -- literal words -------------------------------------------------------------------------------------------------
_ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
                "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ANSI = re.compile(r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)", re.S)
_BRACE = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
_GLOB = re.compile(r"[*?\[]")


def ansi_c(body: str) -> str:
    """The value of bash's `$'...'` body."""
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code in _ANSI_SIMPLE:
            return _ANSI_SIMPLE[code]
        if code[0] in "xuU":
            return chr(int(code[1:], 16)) if int(code[1:], 16) < 0x110000 else ""
        if code[0] in "01234567":
            return chr(int(code, 8) & 0xFF)
        if code[0] == "c":
            return chr(ord(code[1].upper()) ^ 0x40) if len(code) > 1 else ""
        return "\\" + code

    return _ANSI.sub(one, body)


def _unescape_word(text: str) -> str:
    """Quote removal for an unquoted word: `\\x` is `x`, a backslash-newline disappears."""
    return re.sub(r"\\(.)", lambda m: "" if m.group(1) == "\n" else m.group(1), text, flags=re.S)


def _unescape_double(text: str) -> str:
    return re.sub(r'\\([\\"$`\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def literal(node: Any, home: str = "") -> str | None:
    """The word's value after quote removal, or None when bash computes it when it runs (expansions,
    substitutions, globs, brace expansion)."""
    pattern: list[str] = []  # the word with quoted parts masked, to see globs and braces bash would expand
    value = _literal(node, pattern)
    if value is None:
        return None
    unquoted = "".join(pattern)
    if _GLOB.search(unquoted) or _BRACE.search(unquoted):
        return None
    if unquoted.startswith("~") and (value == "~" or value.startswith("~/")):
        return (home or os.path.expanduser("~")) + value[1:]
    if unquoted.startswith("~"):
        return None  # ~user
    return value


_NOT_PLAIN = re.compile(r"[\\*?\[{~$`'\"]")


def _plain(node: Any) -> str | None:
    """A bare word with nothing bash would change (the common case), fast; None otherwise."""
    if node.type != "word" or node.child_count:
        return None
    text = node.text.decode("utf-8", "replace")
    return None if _NOT_PLAIN.search(text) else text


def _literal(node: Any, pattern: list[str]) -> str | None:
    kind = node.type
    text = node.text.decode("utf-8", "replace")
    if kind in ("word", "number", "variable_name"):
        value = _unescape_word(text)
        pattern.append(re.sub(r"\\.", "_", text, flags=re.S))
        return value
    if kind == "raw_string":
        pattern.append("_" * max(len(text) - 2, 0))
        return text[1:-1]
    if kind == "ansi_c_string":
        pattern.append("_")
        return ansi_c(text[2:-1])
    if kind in ("string", "translated_string"):
        parts = []
        for child in node.children:
            if child.type == "string_content":
                parts.append(_unescape_double(child.text.decode("utf-8", "replace")))
            elif child.type in ('"', '$"', "$"):
                continue
            else:
                return None
        pattern.append("_")
        return "".join(parts)
    if kind == "command_name":
        named = [c for c in node.children if c.is_named]
        return _literal(named[0], pattern) if len(named) == 1 else None
    if kind == "concatenation":
        values = []
        for child in node.children:
            value = _literal(child, pattern)
            if value is None:
                return None
            values.append(value)
        return "".join(values)
    return None


def word_form(node: Any) -> Form | None:
    """The word's parts for `capabilities.words.expand` (None when the parser gave no word)."""
    plain = _plain(node)
    if plain is not None:
        return (Part("lit", plain, False),)
    parts: list[Part] = []
    _form(node, parts, quoted=False)
    return tuple(parts)


_ESCAPES = re.compile(r"\\(.)|([^\\]+)|\\$", re.S)
_SIMPLE_EXPANSION = re.compile(r"^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$")


def _form(node: Any, parts: list[Part], quoted: bool) -> None:
    kind = node.type
    text = node.text.decode("utf-8", "replace")
    if kind in ("word", "number"):
        for match in _ESCAPES.finditer(text):
            if match.group(1) is not None:
                if match.group(1) != "\n":
                    parts.append(Part("lit", match.group(1), True))
            elif match.group(2) is not None:
                parts.append(Part("lit", match.group(2), quoted))
    elif kind == "raw_string":
        parts.append(Part("lit", text[1:-1], True))
    elif kind == "ansi_c_string":
        parts.append(Part("lit", ansi_c(text[2:-1]), True))
    elif kind in ("string", "translated_string"):
        for child in node.children:
            if child.type == "string_content":
                parts.append(Part("lit", _unescape_double(child.text.decode("utf-8", "replace")), True))
            elif child.type in ('"', '$"', "$"):
                continue
            else:
                _form(child, parts, quoted=True)
    elif kind in ("simple_expansion", "expansion"):
        match = _SIMPLE_EXPANSION.match(text)
        parts.append(Part("var", match.group(1), quoted) if match else Part("dyn", text, quoted))
    elif kind in ("concatenation", "command_name"):
        for child in node.children:
            if child.is_named or child.type not in ("concatenation",):
                _form(child, parts, quoted)
    elif not node.is_named and kind in ("{", "}", ",", "[", "]"):
        parts.append(Part("lit", text, quoted))
    else:
        parts.append(Part("dyn", text, quoted))


# -- walking the tree ----------------------------------------------------------------------------------------------
_EVALUATING_NODES = frozenset({"subscript", "expansion", "test_command", "array"})
_WRITE_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
_ARITHMETIC = frozenset({"arithmetic_expansion"})
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})


@dataclass
class _Walker:
    commands: list[Command] = field(default_factory=list)
    opaque: list[Opaque] = field(default_factory=list)
    writes: list[str | None] = field(default_factory=list)
    write_forms: list[Form | None] = field(default_factory=list)
    path_words: list[str] = field(default_factory=list)
    assigned: set[str] = field(default_factory=set)
    reads: list[str | None] = field(default_factory=list)
    read_forms: list[Form | None] = field(default_factory=list)
    integers: set[str] = field(default_factory=set)  # variables declared -i: bash evaluates what they are given
    changes_directory: bool = False
    home: str = field(default_factory=lambda: os.path.expanduser("~"))

    def flag(self, construct: str, node_or_text: Any, visible: bool = False) -> None:
        text = node_or_text if isinstance(node_or_text, str) else node_or_text.text.decode("utf-8", "replace")
        self.opaque.append(Opaque(construct, " ".join(text.split())[:120], visible))

    def script(self, source: str, depth: int, via: str) -> None:
        if depth > MAX_DEPTH:
            self.flag("scripts nested too deeply to read", source)
            return
        if _joins_words(source):
            # bash removes a backslash-newline inside a word (`r\<newline>m`); tree-sitter splits the word there
            self.flag("a line continuation inside a word", source, visible=True)
            self.script(_remove_continuations(source), depth + 1, via)
        tree = parse(source)
        if tree.root_node.has_error:
            self.flag("a part the parser cannot read", source)
        self.visit(tree.root_node, depth, via)

    def visit(self, node: Any, depth: int, via: str) -> None:
        kind = node.type
        if node.is_error or node.is_missing:
            self.flag("a part the parser cannot read", node)
        if kind == "command":
            self.command(node, depth, via)
            return
        if kind == "function_definition":
            name = node.child_by_field_name("name")
            self.flag(f"function definition {name.text.decode() if name else ''}".strip(), node, visible=True)
        elif kind == "redirected_statement":
            body = node.child_by_field_name("body")
            for child in node.children:
                if child is not body:
                    self.redirect(child, body, depth, via)
        elif kind == "pipeline":
            self.pipeline(node, depth, via)
        elif kind in ("variable_assignment", "declaration_command"):
            self.assignment(node)
        elif _is_arithmetic(node):
            self.arithmetic(node)
        elif kind == "expansion" and any(c.type == "@" for c in node.children):
            self.flag("a ${var@...} transformation", node)
        elif kind == "comment":
            return
        if kind in _EVALUATING_NODES:
            self.evaluated_syntax(node)
        if kind == "heredoc_redirect":
            self.heredoc_backticks(node, depth, via)
        if kind == "command_substitution":
            for child in node.children:
                if child.type == "file_redirect":
                    self.redirect(child, None, depth, via)  # `$(< f)` reads f
        for child in node.children:
            self.visit(child, depth, via)

    def evaluated_syntax(self, node: Any) -> None:
        """Places in bash's syntax where text is evaluated as a name or arithmetic (`EVALUATED_SYNTAX`)."""
        kind = node.type
        if kind == "subscript":
            index = node.child_by_field_name("index")
            text = index.text.decode("utf-8", "replace") if index is not None else ""
            if text not in ("@", "*") and not text.isdigit():
                self.flag("a subscript bash evaluates as arithmetic", node)
        elif kind == "expansion":
            tokens = [c.type for c in node.children]
            if len(tokens) > 1 and tokens[1] == "!" and not any(t in ("*", "@") for t in tokens[2:]) and not (
                    _has(node, ("subscript",)) and node.text.decode().endswith(("[@]}", "[*]}"))):
                self.flag("an indirect expansion ${!name} (bash evaluates the name it holds)", node)
            if ":" in tokens:
                offsets = node.children[tokens.index(":") + 1:]
                if any(c.is_named and not SAFE_ARITHMETIC.fullmatch(c.text.decode("utf-8", "replace"))
                       for c in offsets):
                    self.flag("a substring offset bash evaluates as arithmetic", node)
        elif kind == "test_command":
            for expression in _iter(node, ("binary_expression", "unary_expression")):
                operator = next((c for c in expression.children if c.type == "test_operator"), None)
                if operator is None:
                    continue
                op = operator.text.decode()
                operands = [c for c in expression.children if c.is_named and c is not operator]
                if op in _ARITHMETIC_TESTS:
                    for operand in operands:
                        value = literal(operand, self.home)
                        if value is None or not SAFE_ARITHMETIC.fullmatch(value):
                            self.flag(f"[[ {op} ]] on text bash evaluates as arithmetic", node)
                elif op in ("-v", "-R"):
                    for operand in operands:
                        value = literal(operand, self.home)
                        if value is None or not SAFE_NAME.fullmatch(value):
                            self.flag(f"[[ {op} ]] on a name with a subscript bash evaluates", node)
        elif kind == "array":
            for element in node.children:
                text = element.text.decode("utf-8", "replace")
                match = re.match(r"^\[([^\]]*)\]=", text)
                if match and not match.group(1).isdigit():
                    self.flag("an array subscript bash evaluates as arithmetic", element)

    def heredoc_backticks(self, node: Any, depth: int, via: str) -> None:
        """Bash runs backticks in an unquoted here-doc's body, whatever reads it; the parser leaves them as text."""
        if any(c.type == "heredoc_start" and c.text[:1] in (b"'", b'"', b"\\") for c in node.children):
            return
        for body in node.children:
            if body.type != "heredoc_body":
                continue
            for match in re.finditer(r"(?<!\\)`((?:[^`\\]|\\.)*)`", body.text.decode("utf-8", "replace")):
                self.flag("backticks in a here-doc (bash runs them)", match.group(0), visible=True)
                self.script(match.group(1), depth + 1, "a here-doc's backticks")

    def evaluated(self, name: str, words: tuple[str | None, ...], text: str) -> None:
        """A builtin's words that bash reads as names or arithmetic (`EVALUATES`): a subscript or an expression
        there runs what it holds."""
        row = EVALUATES.get(name)
        if row is None:
            return
        args = list(words[1:])
        if name == "[" and args and args[-1] == "]":
            args.pop()
        names: list[str | None] = []
        expressions: list[str | None] = []
        flags = ""
        index = 0
        options_done = False
        while index < len(args):
            word = args[index]
            index += 1
            if not options_done and word is not None and word.startswith("-") and word != "-" and (
                    row.names or row.arithmetic or word in row.name_options or word in row.values):
                if word == "--":
                    options_done = True
                elif word in row.name_options:
                    names.append(args[index] if index < len(args) else None)
                    index += 1
                elif word in row.values:
                    index += 1
                elif row.names == "assignments":
                    flags += word[1:]
                continue
            if word in row.name_options and index < len(args):  # test's expression: `-v NAME` anywhere
                names.append(args[index])
                index += 1
                continue
            options_done = True
            if row.arithmetic:
                expressions.append(word)
            elif row.names == "all":
                names.append(word)
            elif row.names == "assignments":
                if word is None:
                    names.append(None)
                    continue
                variable, has_value, value = word.partition("=")
                names.append(variable.removesuffix("+"))
                if has_value and row.arithmetic_flag in flags:
                    self.integers.add(variable.removesuffix("+"))
                    expressions.append(value)
                elif has_value and row.name_flag and row.name_flag in flags:
                    names.append(value)
                elif row.arithmetic_flag in flags:
                    self.integers.add(variable)
        for value in names:
            if value is None or not SAFE_NAME.fullmatch(value):
                self.flag(f"{name} given a name bash evaluates ({value or 'computed at run time'})", text)
                return
        for value in expressions:
            if value is None or not SAFE_ARITHMETIC.fullmatch(value):
                self.flag(f"{name} given text bash evaluates as arithmetic", text)
                return

    def arithmetic(self, node: Any) -> None:
        # bash evaluates a variable's text as an expression here, and `a[$(cmd)]` in that text runs cmd
        if _has(node, ("variable_name", "simple_expansion", "expansion")):
            self.flag("arithmetic on a variable (bash evaluates its text)", node)

    def assignment(self, node: Any) -> None:
        if node.type == "declaration_command" and node.children:
            words: list[str | None] = [node.children[0].text.decode("utf-8", "replace")]
            for child in node.children[1:]:
                if child.type == "variable_assignment":
                    name_node, value_node = child.child_by_field_name("name"), child.child_by_field_name("value")
                    name = name_node.text.decode("utf-8", "replace") if name_node is not None else ""
                    value = literal(value_node, self.home) if value_node is not None else ""
                    words.append(f"{name}={'$?' if value is None else value}")  # $?: only known when it runs
                elif child.is_named:
                    words.append(literal(child, self.home))
            self.evaluated(words[0] or "", tuple(words), node.text.decode("utf-8", "replace"))
        for name in _descendants(node, "variable_name"):
            if name.parent is not None and (
                    name.parent.type == "variable_assignment" or node.type == "declaration_command"):
                self.set_variable(name.text.decode(), node)
        for value in _descendants(node, "variable_assignment"):
            self.path_candidates(value.children[-1:])
            name_node = value.child_by_field_name("name")
            value_node = value.child_by_field_name("value")
            name = name_node.text.decode("utf-8", "replace") if name_node is not None else ""
            given = literal(value_node, self.home) if value_node is not None else ""
            if name in self.integers and (given is None or not SAFE_ARITHMETIC.fullmatch(given)):
                self.flag(f"an assignment to the integer variable {name} (bash evaluates it)", value)
            if variable_writes(name, given) is not None:
                self.writes.append(given)
                self.write_forms.append(word_form(value_node) if value_node is not None else None)

    def variables_set(self, name: str, words: tuple[str | None, ...], text: str) -> None:
        """`read X`, `mapfile X`, `printf -v X`: builtins that set the variables they name."""
        args = words[1:]
        if name == "printf":
            index = args.index("-v") if "-v" in args else -1
            names = [args[index + 1]] if 0 <= index < len(args) - 1 else [None]
        else:
            names = [w for w in args if w is None or not w.startswith("-")]
        for variable in names:
            if variable is None:
                self.flag(f"{name} setting a variable named at run time", text)
            else:
                self.set_variable(variable.split("[", 1)[0], text)

    def set_variable(self, variable: str, node_or_text: Any) -> None:
        """The line sets `variable`: its value is unknown from here on, and some variables run code."""
        self.assigned.add(variable)
        if (why := variable_runs_code(variable)) is not None:
            self.flag(f"setting {variable} ({why})", node_or_text)

    def redirect(self, child: Any, body: Any, depth: int, via: str) -> None:
        if child.type == "file_redirect":
            operator = next((c.type for c in child.children if not c.is_named), "")
            destination = child.child_by_field_name("destination") or (
                child.children[-1] if child.children else None)
            if operator in _WRITE_REDIRECTS and destination is not None:
                if operator == ">&" and destination.type == "number":
                    return  # 2>&1: a descriptor, not a file
                self.writes.append(literal(destination, self.home))
                self.write_forms.append(word_form(destination))
            if operator in ("<", "<>", "<&") and destination is not None:
                if operator == "<&" and destination.type in ("number", "word") and (
                        destination.text.decode().rstrip("-").isdigit() or destination.text == b"-"):
                    return  # 0<&3: a descriptor
                self.reads.append(literal(destination, self.home))
                self.read_forms.append(word_form(destination))
        elif child.type in ("heredoc_redirect", "herestring_redirect") and body is not None:
            self.fed_text(body, child, depth, via)

    def pipeline(self, node: Any, depth: int, via: str) -> None:
        """`echo 'rm x' | bash`: the text piped into a shell is a script; read what can be read of it."""
        stages = [c for c in node.children if c.is_named]
        if not any(_command_name(stage) in SHELLS for stage in stages[1:]):
            return
        for stage in stages[:-1]:
            if _command_name(stage) in ("echo", "printf"):
                words = [literal(w, self.home) for w in stage.children if w.is_named][1:]
                if all(w is not None for w in words):
                    self.script(" ".join(w for w in words if w is not None), depth + 1, "a pipe into a shell")

    def fed_text(self, body: Any, redirect: Any, depth: int, via: str) -> None:
        """A here-doc or here-string given to a shell or interpreter is a script: read it too."""
        name = _command_name(body)
        downstream = [_command_name(c) for c in _descendants(redirect, "command")]
        if any(n in SHELLS for n in downstream):
            name = next(n for n in downstream if n in SHELLS)
        elif name not in SHELLS and name not in INTERPRETERS:
            return
        for part in redirect.children:
            if part.type == "heredoc_body":
                quoted = any(c.type == "heredoc_start" and c.text[:1] in (b"'", b'"') for c in redirect.children)
                text = part.text.decode("utf-8", "replace")
                if not quoted and _has(part, ("simple_expansion", "expansion", "command_substitution")):
                    self.flag("a here-doc with expansions fed to a shell", redirect)
                if name in SHELLS:
                    self.script(text, depth + 1, f"{name} <<here-doc")
            elif redirect.type == "herestring_redirect" and part.is_named:
                value = literal(part, self.home)
                if value is None:
                    self.flag("a computed here-string fed to a shell", part)
                elif name in SHELLS:
                    self.script(value, depth + 1, f"{name} <<<")

    def path_candidates(self, nodes: Any) -> None:
        for node in nodes:
            value = literal(node, self.home)
            if value and ("/" in value or "." in value or value in ("GEMINI.md",)):
                self.path_words.append(value)

    # -- one simple command ---------------------------------------------------------------------------------
    def command(self, node: Any, depth: int, via: str) -> None:
        name_node = node.child_by_field_name("name")
        words_nodes: list[Any] = []
        for child in node.children:
            if child.type == "variable_assignment":
                self.assignment(child)
                self.visit_substitutions(child, depth, via)
            elif child.type in ("herestring_redirect", "file_redirect", "heredoc_redirect"):
                self.redirect(child, node, depth, via)
                self.visit(child, depth, via)
            elif child.is_named and child.type != "comment":
                words_nodes.append(child)
        for child in words_nodes:
            if child.child_count == 0:
                continue  # a plain word: nothing inside it runs or computes
            for place in _iter(child, tuple(_EVALUATING_NODES)):
                self.evaluated_syntax(place)
            self.visit_substitutions(child, depth, via)
            if child.type in _ARITHMETIC or _has(child, tuple(_ARITHMETIC)):
                self.arithmetic(child)
            if any(c.type == "@" for c in _descendants(child, "expansion") for c in c.children):
                self.flag("a ${var@...} transformation", child)
        text = node.text.decode("utf-8", "replace")
        if name_node is None or not words_nodes:
            return
        words = tuple(_plain(w) or literal(w, self.home) for w in words_nodes)
        self.run(words, text, depth, via, node, tuple(word_form(w) for w in words_nodes),
                 _stdin(node, self.home) if not via else (None, None))

    def visit_substitutions(self, node: Any, depth: int, via: str) -> None:
        """Commands inside `$(...)`, backticks and `<(...)` run too."""
        if node.type in ("command_substitution", "process_substitution"):
            self.visit(node, depth, via)
            return
        for child in node.children:
            if child.type in ("command_substitution", "process_substitution"):
                self.visit(child, depth, via)
            else:
                self.visit_substitutions(child, depth, via)

    def run(self, words: tuple[str | None, ...], text: str, depth: int, via: str, node: Any = None,
            forms: tuple[Form | None, ...] = (), stdin: tuple[str | None, str | None] = (None, None)) -> None:
        """Records `words` as a command and looks into what it runs in turn."""
        name = os.path.basename(words[0]) if words[0] else None
        if len(forms) != len(words):
            forms = tuple((Part("lit", w, True),) if w is not None else None for w in words)
        if name is None:
            self.flag("a command name computed at run time", text)
            self.commands.append(Command(words, text, via, forms=forms))
            return
        if words[0] in RESERVED_WORDS - {"time", "coproc"}:
            self.flag(f"the keyword {words[0]} where a command should be", text)
        prefix: tuple[str | None, ...] = ()
        if name == "git":
            kept, opaque = git_words(words)
            if opaque:
                self.flag(opaque, text)
            prefix = words[1:len(words) - len(kept) + 1]
            forms = (forms[0], *forms[len(words) - len(kept) + 1:]) if kept is not words else forms
            words = kept
        inner = wrapped_command(program_name(name), words)
        transparent = inner is not None and inner[0] < len(words) and name in TRANSPARENT
        self.commands.append(Command(words, text, via, wrapper=transparent, forms=forms, prefix=prefix,
                                     stdin=stdin[0], stdin_text=stdin[1]))
        if name in ("read", "mapfile", "readarray") or (name == "printf" and "-v" in words):
            self.variables_set(name, words, text)
        self.evaluated(name, words, text)
        if name == "env":
            for at, word in enumerate(words[1:], 1):
                variable, has_value, value = (word or "").partition("=")
                if has_value and variable_writes(variable, value) is not None:
                    self.writes.append(value)
                    form = forms[at] if at < len(forms) else None
                    self.write_forms.append(_after_equals(form))
        if name == "git":
            self.git(words, text)
        if name == "let" and any(w is None or re.search(r"[A-Za-z_]", w) for w in words[1:]):
            self.flag("let on a variable (bash evaluates its text)", text)
        if name in OPAQUE_COMMANDS:
            self.flag(OPAQUE_COMMANDS[name], text)
            rest = [w for w in words[1:] if w is not None]
            if name == "eval" and len(rest) == len(words) - 1:
                before = len(self.opaque)
                self.script(" ".join(rest), depth + 1, "eval")
                if not any(o.construct == "a part the parser cannot read" for o in self.opaque[before:]):
                    self.opaque[before - 1] = Opaque("eval", self.opaque[before - 1].text, True)
            elif name in ("coproc", "watch"):
                for start in range(1, len(words)):  # coproc [NAME] command: either reading may be the one
                    if words[start] is not None:
                        self.commands.append(Command(words[start:], text, name))
        if name in ("cd", "pushd"):
            self.changes_directory = True
            self.path_words.extend(w for w in words[1:] if w)
            if any(w is None for w in words[1:]):
                self.writes.append(None)  # a directory computed at run time: later relative writes are unknown
                self.write_forms.append(None)
        elif name not in READ_ONLY_COMMANDS:
            self.path_words.extend(w for w in words[1:] if w and not w.startswith("-"))
        if inner is not None:
            start, construct = inner
            if name == "flock" and start < len(words) and words[start] in ("-c", "--command"):
                self.shell("flock", ("flock", *words[start:]), text, depth, None)  # flock FILE -c 'script'
                return
            if construct:
                self.flag(construct, text, visible=construct.startswith("xargs running"))
            if start < len(words):
                self.run(words[start:], text, depth, name if not via else f"{via} {name}", None, forms[start:])
            elif name in ("chroot", "unshare", "sudo", "doas", "nsenter", "runuser"):
                self.flag(f"{name} starting a shell", text)
            return
        if name in SHELLS:
            self.shell(name, words, text, depth, node)
        elif name in INTERPRETERS or re.fullmatch(r"python\d(\.\d+)?", name):
            self.interpreter(name, words, text, node)
        elif name in AWKS:
            self.awk(words, text)
        elif name == "sed":
            self.sed(words, text)
        elif name == "find":
            self.find(words, text, depth)
        elif name == "hash" and "-p" in words:
            self.flag("hash -p (binds a command name to another program)", text)

    def shell(self, name: str, words: tuple[str | None, ...], text: str, depth: int, node: Any) -> None:
        script_flag, rest = _shell_options(words[1:])
        if script_flag:
            if not rest:
                self.flag(f"{name} -c without a script", text)
            elif rest[0] is None:
                self.flag(f"{name} -c with a script computed at run time", text)
            else:
                before = len(self.opaque)
                self.script(rest[0], depth + 1, f"{name} -c")
                readable = not any(o.construct == "a part the parser cannot read" for o in self.opaque[before:])
                self.flag(f"{name} -c", text, visible=readable)
        elif rest and rest[0] not in ("--version", "--help"):
            self.flag(f"{name} running a script file", text)
        elif not rest and not _informational(words[1:]):
            fed = node is not None and _redirected_input(node)
            self.flag(f"{name} reading commands from {'a here-doc' if fed else 'standard input'}", text)

    def interpreter(self, name: str, words: tuple[str | None, ...], text: str, node: Any) -> None:
        base = "python" if name.startswith("python") else name
        flags = INTERPRETERS.get(base, ("c",))
        args = words[1:]
        for index, word in enumerate(args):
            if word is None:
                self.flag(f"{name} with arguments computed at run time", text)
                return
            if word in flags or (word.startswith("-") and not word.startswith("--")
                                 and any(f in word[1:] for f in flags if len(f) == 1)):
                self.flag(f"{name} {word} (a program given inline)", text)
                return
            if base == "python" and word == "-m":
                return
            if word == "-":
                break
            if not word.startswith("-"):
                return  # a script file: the program is the file, as any other command
            if base == "python" and word in ("-W", "-X", "-Q") and index + 1 < len(args):
                continue
        if not _informational(words[1:]):
            self.flag(f"{name} reading its program from standard input", text)

    def awk(self, words: tuple[str | None, ...], text: str) -> None:
        args = list(words[1:])
        program: str | None = None
        while args:
            word = args.pop(0)
            if word is None:
                self.flag("awk with arguments computed at run time", text)
                return
            if word in ("-f", "--file") or word.startswith("-f"):
                self.flag("awk -f (a program from a file)", text)
                return
            if word in ("-v", "-F", "--assign", "--field-separator"):
                args = args[1:]
                continue
            if word in ("-e", "--source"):
                program = args[0] if args else ""
                break
            if word.startswith("-") and word != "-":
                continue
            program = word
            break
        if program is None or re.search(r"\bsystem\s*\(|\||@load|\bgetline\b", program):
            self.flag("awk program that runs commands", text)

    def sed(self, words: tuple[str | None, ...], text: str) -> None:
        for index, word in enumerate(words[1:], 1):
            if word is None:
                continue
            previous = words[index - 1] or ""
            script = word if (previous in ("-e", "--expression") or not word.startswith("-")) else ""
            if word.startswith(("-f", "--file")):
                self.flag("sed -f (a script from a file)", text)
            if script and re.search(r"(^|[;\n{}])\s*[0-9$,/]*[^;\n]*?\be(\s|;|$)|/[gIpmM0-9w]*e[gIpmM0-9]*\s*($|;)",
                                    script):
                self.flag("sed e (runs a command)", text)
                return
            if not previous.startswith("-") and script:
                return  # the first non-option word was the script; the rest are files

    def git(self, words: tuple[str | None, ...], text: str) -> None:
        sub = words[1] if len(words) > 1 else ""
        rest = set(words[2:])
        if sub == "config" and not rest & {"--get", "--get-all", "--get-regexp", "-l", "--list", "get", "list"}:
            self.writes.append(".git/config")  # aliases, hooksPath, pager: a later git command runs them
            self.write_forms.append((Part("lit", ".git/config", True),))
        runs = {("bisect", "run"), ("rebase", "-x"), ("rebase", "--exec"), ("submodule", "foreach"),
                ("difftool", "-x"), ("difftool", "--extcmd"), ("filter-branch", None), ("filter-repo", None),
                ("mergetool", None)}
        for command, option in runs:
            if sub == command and (option is None or option in rest or any(
                    w and w.startswith(f"{option}=") for w in rest)):
                self.flag(f"git {command} {option or ''}".strip() + " (runs commands)", text)

    def find(self, words: tuple[str | None, ...], text: str, depth: int) -> None:
        for index, word in enumerate(words):
            if word in ("-exec", "-execdir", "-ok", "-okdir"):
                self.flag(f"find {word}", text, visible=True)
                end = next((i for i in range(index + 1, len(words)) if words[i] in (";", "+")), len(words))
                if end > index + 1:
                    self.run(words[index + 1:end], text, depth, f"find {word}")


# -- wrappers ------------------------------------------------------------------------------------------------------
_LOADER_LIBRARIES = frozenset({"--library-path", "--preload", "--audit"})  # the dynamic loader loads code they name
TRANSPARENT = frozenset({"env", "command", "builtin", "exec", "nohup", "time", "nice", "timeout", "stdbuf",
                         "ionice", "setsid", "chronic", "unbuffer", "busybox", "taskset", "chrt", "caffeinate"})
# wrapper -> (options taking a value, leading positional arguments before the command)
_WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "sudo": (frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R", "--user", "--group",
                        "--host", "--prompt", "--chdir", "--role", "--type", "--other-user", "--close-from",
                        "--command-timeout"}), 0),
    "doas": (frozenset({"-u", "-C"}), 0),
    "env": (frozenset({"-u", "--unset", "-C", "--chdir"}), 0),
    "command": (frozenset(), 0), "builtin": (frozenset(), 0), "nohup": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0), "time": (frozenset({"-f", "--format", "-o", "--output"}), 0),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),
    "stdbuf": (frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), 0),
    "ionice": (frozenset({"-c", "-n", "--class", "--classdata"}), 0),
    "xargs": (frozenset({"-a", "-d", "-E", "-e", "-I", "-i", "-L", "-l", "-n", "-P", "-s", "--arg-file",
                         "--delimiter", "--eof", "--replace", "--max-lines", "--max-args", "--max-procs",
                         "--max-chars", "--process-slot-var"}), 0),
    "setsid": (frozenset(), 0), "chronic": (frozenset(), 0), "unbuffer": (frozenset(), 0),
    "busybox": (frozenset(), 0), "taskset": (frozenset(), 1), "chrt": (frozenset(), 1),
    "caffeinate": (frozenset({"-t", "-w"}), 0),
    "flock": (frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}), 1),
    "setarch": (frozenset(), 1), **{arch: (frozenset(), 0) for arch in ARCH_WRAPPERS},
    "setpriv": (frozenset({"--reuid", "--regid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set",
                           "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile",
                           "--landlock-access", "--landlock-rule", "--ruid", "--euid", "--rgid", "--egid"}), 0),
    "ssh-agent": (frozenset({"-a", "-E", "-P", "-t", "-O"}), 0),
    "dbus-run-session": (frozenset({"--config-file", "--dbus-daemon"}), 0),
    "dbus-launch": (frozenset({"--config-file", "--autolaunch"}), 0),
    "ld.so": (frozenset(_LOADER_LIBRARIES | {"--inhibit-rpath", "--argv0", "--glibc-hwcaps-prefix",
                                             "--glibc-hwcaps-mask"}), 0),
    "prlimit": (frozenset({"-p", "--pid"}), 0),
    "strace": (frozenset({"-o", "-e", "-p", "-s", "-u", "-E", "-O", "-P", "-I", "-b", "-a", "-X", "-S"}), 0),
    "ltrace": (frozenset({"-o", "-e", "-p", "-s", "-u", "-a", "-n", "-x", "-A", "-D", "-F", "-l", "-w"}), 0),
    "chroot": (frozenset({"--userspec", "--groups"}), 1),
    "unshare": (frozenset({"--map-user", "--map-group", "--map-users", "--map-groups", "-S", "--setuid", "-G",
                           "--setgid", "-R", "--root", "-w", "--wd", "--propagation", "--setgroups"}), 0),
    "nsenter": (frozenset({"-t", "--target", "-S", "--setuid", "-G", "--setgid", "-r", "-w"}), 0),
    "runuser": (frozenset({"-u", "--user", "-g", "--group", "-G"}), 0),
    "fakeroot": (frozenset({"-l", "--lib", "--faked", "-s", "-i"}), 0),
    "numactl": (frozenset(), 0), "catchsegv": (frozenset(), 0),
}
_OPTIONAL_VALUE = {"xargs": ("-i", "-e", "-l")}  # attached-only optional values (`-i{}`)


def wrapped_command(name: str, words: tuple[str | None, ...]) -> tuple[int, str] | None:
    """Where the command run by wrapper `name` starts in `words`, and the opaque construct it makes (or "")."""
    spec = _WRAPPERS.get(name)
    if spec is None:
        return None
    takes_value, positional = spec
    index = 1
    construct = "xargs running a command on its input" if name == "xargs" else ""
    while index < len(words):
        word = words[index]
        if word is None:
            return index, f"{name} with options computed at run time"
        if word == "--":
            index += 1
            break
        if name == "command" and word in ("-v", "-V"):
            return len(words), ""  # only looks the name up
        if name == "flock" and word in ("-c", "--command"):
            return len(words), "flock -c (runs a shell command)"
        if name in ("runuser", "su") and word in ("-c", "--command", "-l", "--login"):
            return len(words), f"{name} {word}"
        if name in ("sudo", "doas") and word in ("-s", "-i", "--shell", "--login", "-e", "--edit"):
            return len(words), f"{name} {word}"
        if name == "ld.so" and word.split("=", 1)[0] in _LOADER_LIBRARIES:
            construct = f"the dynamic loader with {word.split('=', 1)[0]} (loads the libraries it names)"
        if name == "env" and (word.startswith(("-S", "--split-string", "-P")) or word == "--default-signal"):
            return len(words), f"env {word}"
        if name == "env" and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
            if (why := variable_runs_code(word.split("=", 1)[0])) is not None:
                construct = f"env setting {word.split('=', 1)[0]} ({why})"
            index += 1
            continue
        if word.startswith("-") and word != "-":
            if word in _OPTIONAL_VALUE.get(name, ()):
                index += 1
                continue
            if word in takes_value or (name == "nice" and re.fullmatch(r"-\d+", word)):
                index += 1 if name == "nice" and word != "-n" else 2
                continue
            index += 1
            continue
        break
    index += positional
    while name == "setarch" and index < len(words) and (words[index] or "").startswith("-"):
        index += 1  # setarch ARCH [options] command
    if name == "xargs" and index >= len(words):
        return None  # xargs alone runs echo
    return index, construct


_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix",
                                "--config-env", "--exec-path", "--list-cmds", "--attr-source"})
# `git -c key=value` that cannot run a program: anything else may name one (alias.*, core.pager, ...)
_SAFE_GIT_CONFIG = re.compile(r"^(color\.|user\.|advice\.|core\.quotepath|log\.|init\.|safe\.directory|"
                              r"i18n\.|column\.|status\.|diff\.(color|renames|algorithm|noprefix)|pull\.|"
                              r"push\.default|merge\.conflictstyle|rebase\.autosquash)", re.I)


def git_words(words: tuple[str | None, ...]) -> tuple[tuple[str | None, ...], str]:
    """`git -C x --no-pager push` -> `git push`, and the opaque construct among the options (or "")."""
    index, opaque = 1, ""
    while index < len(words):
        word = words[index]
        if word is None:
            return words, "git options computed at run time"
        if not word.startswith("-"):
            break
        option = word.split("=", 1)[0]
        value = word.split("=", 1)[1] if "=" in word else (words[index + 1] if index + 1 < len(words) else "")
        runs_code = option == "--config-env" or (option == "--exec-path" and "=" in word) or (
            option == "-c" and (value is None or not _SAFE_GIT_CONFIG.match(value)))
        if runs_code:
            opaque = f"git {option} {value or ''}".strip()
        if option in _GIT_VALUE_OPTIONS and "=" not in word and option not in ("--exec-path", "--list-cmds"):
            index += 2
            continue
        index += 1
    return (words[0], *words[index:]), opaque


# -- small helpers -------------------------------------------------------------------------------------------------
def _shell_options(args: tuple[str | None, ...]) -> tuple[bool, tuple[str | None, ...]]:
    """Whether a shell was given `-c` (in any cluster), and the arguments after its options."""
    script = False
    index = 0
    while index < len(args):
        word = args[index]
        if word is None:
            return script, args[index:]
        if word in ("--", "-"):
            index += 1
            break
        if word.startswith("--"):
            index += 2 if word in ("--rcfile", "--init-file") else 1
            continue
        if word[:1] in "-+" and len(word) > 1:
            letters = word[1:]
            script = script or "c" in letters
            index += 1 + sum(1 for letter in letters if letter in "oO")
            continue
        break
    return script, args[index:]


def _after_equals(form: Form | None) -> Form | None:
    """The parts of `NAME=value` after the first `=` (an `env` argument's value)."""
    if form is None:
        return None
    parts: list[Part] = []
    seen = False
    for part in form:
        if seen:
            parts.append(part)
        elif part.kind == "lit" and "=" in part.text:
            seen = True
            rest = part.text.split("=", 1)[1]
            if rest:
                parts.append(Part("lit", rest, part.quoted))
        elif part.kind != "lit":
            return None
    return tuple(parts) if seen else None


def _is_arithmetic(node: Any) -> bool:
    kind = node.type
    if kind == "compound_statement":
        return bool(node.children) and node.children[0].type == "(("
    if kind == "test_command":
        return any(op.text.decode() in _ARITHMETIC_TESTS for op in _descendants(node, "test_operator"))
    return kind in ("c_style_for_statement", *_ARITHMETIC)


def _informational(args: tuple[str | None, ...]) -> bool:
    return any(w in ("--version", "-V", "--help", "-h", "-version") for w in args)


def _stdin(node: Any, home: str) -> tuple[str | None, str | None]:
    """(file, text) a command's standard input comes from, by its own redirections: the last one counts, as in bash;
    (None, None) when none of its own says, or it cannot be read now."""
    redirects = [c for c in node.children if c.type in ("file_redirect", "heredoc_redirect", "herestring_redirect")]
    parent = node.parent
    if parent is not None and parent.type == "redirected_statement" and parent.child_by_field_name("body") == node:
        redirects += [c for c in parent.children if c.type in ("file_redirect", "heredoc_redirect",
                                                                 "herestring_redirect")]
    found: tuple[str | None, str | None] = (None, None)
    for redirect in redirects:
        descriptor = next((c for c in redirect.children if c.type == "file_descriptor"), None)
        if descriptor is not None and descriptor.text != b"0":
            continue
        if redirect.type == "file_redirect":
            operator = next((c.type for c in redirect.children if not c.is_named), "")
            if operator not in ("<", "<>", "<&"):
                continue
            destination = redirect.child_by_field_name("destination") or redirect.children[-1]
            found = (literal(destination, home) if operator != "<&" else None, None)
        elif redirect.type == "heredoc_redirect":
            body = next((c for c in redirect.children if c.type == "heredoc_body"), None)
            quoted = any(c.type == "heredoc_start" and c.text[:1] in (b"'", b'"', b"\\") for c in redirect.children)
            text = body.text.decode("utf-8", "surrogateescape") if body is not None else ""
            # unquoted, bash expands it and joins lines ending in a backslash: only plain text is read
            plain = quoted or not (_has(body, ("simple_expansion", "expansion", "command_substitution"))
                                   or "\\" in text or "`" in text) if body is not None else True
            found = (None, text if plain else None)
        else:
            value = next((literal(c, home) for c in redirect.children if c.is_named), None)
            found = (None, value + "\n" if value is not None else None)
    return found


def _command_name(node: Any) -> str | None:
    if node.type != "command":
        return None
    name = node.child_by_field_name("name")
    value = literal(name) if name is not None and name.children else None
    return os.path.basename(value) if value else None


def _redirected_input(node: Any) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "redirected_statement"


def _has(node: Any, kinds: tuple[str, ...]) -> bool:
    return any(True for _ in _iter(node, kinds))


def _descendants(node: Any, kind: str) -> list[Any]:
    return list(_iter(node, (kind,)))


def _iter(node: Any, kinds: tuple[str, ...]) -> Any:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in kinds:
            yield current
        stack.extend(current.children)


_CONTINUATION_IN_WORD = re.compile(r"[^\s;&|()<>]\\\n[^\s;&|()<>]")


def _joins_words(source: str) -> bool:
    return "\\\n" in source and bool(_CONTINUATION_IN_WORD.search(source))


def _remove_continuations(source: str) -> str:
    return source.replace("\\\n", "")
