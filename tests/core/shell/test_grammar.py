"""Reading command lines as bash does: the real commands in every construct, wrappers looked through, opaque
constructs named. Generated: every command wrapped in every construct."""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest

from gemini_tui.core.shell.grammar import RESERVED_WORDS, analyze, ansi_c

COMMANDS = ["ls -la", "git status", "grep -r x .", "cat a.txt", "make test", "npm run build"]
NAMES = {"ls -la": "ls", "git status": "git status", "grep -r x .": "grep", "cat a.txt": "cat",
         "make test": "make", "npm run build": "npm"}
CONSTRUCTS = [
    "{a}; {b}", "{a} && {b}", "{a} || {b}", "{a} | {b}", "{a} |& {b}", "{a} & {b}", "{a}\n{b}", "({a}; {b})",
    "{{ {a}; {b}; }}", "if {a}; then {b}; fi", "if {a}; then :; else {b}; fi", "for f in x y; do {a}; {b}; done",
    "while {a}; do {b}; break; done", "until {a}; do {b}; done", "case $x in a) {a};; *) {b};; esac",
    "! {a} && {b}", "echo $({a}) `{b}`", "diff <({a}) <({b})", "time {a}; {b}", "{a} > out.txt 2>&1 && {b}",
    "[[ -n x ]] && {a} || {b}", "select s in a; do {a}; {b}; done", "for ((i=0; i<1; i++)); do {a}; {b}; done",
    "x=$({a}) {b}", "{a} # comment ; rm -rf /\n{b}", "sudo {a}; env X=1 {b}", "timeout 5 {a} && nice -n 2 {b}",
]


@pytest.mark.parametrize("construct", CONSTRUCTS)
def test_every_command_is_found_and_keywords_never_are(construct: str) -> None:
    for first, second in itertools.permutations(COMMANDS, 2):
        line = construct.format(a=first, b=second)
        names = set(analyze(line).command_names())
        expected = {NAMES[first], NAMES[second]}
        names.discard(":")
        names -= {"echo", "diff", "sudo", "true", "break"}
        assert names == expected, (line, names)
        assert not names & RESERVED_WORDS


OPAQUE = {
    "eval ls": "eval", "source x.sh": "source", ". x.sh": "source (.)", "bash -c 'ls'": "bash -c",
    "sh -ec 'ls'": "sh -c", "bash -lxc ls": "bash -c", "bash x.sh": "bash running a script file",
    "echo ls | bash": "bash reading commands from standard input", "bash <<< ls": "bash reading commands",
    "python3 -c 'print(1)'": "python3 -c", "node -e 1": "node -e", "perl -ne 'print'": "perl -ne",
    "awk 'BEGIN{system(\"ls\")}'": "awk program that runs commands", "find . -exec rm {} +": "find -exec",
    "echo x | xargs rm": "xargs running a command", "f() { ls; }": "function definition f",
    "alias ls=rm": "alias", "$CMD x": "a command name computed at run time", "l${x}s": "a command name computed",
    "ls\\\n-la; r\\\nm x": "a line continuation inside a word", "coproc ls": "coproc", "ls )(": "a part the parser",
    "git -c alias.x='!rm' x": "git -c alias.x=!rm", "env -S 'rm x'": "env -S", "sudo -s": "sudo -s",
    "trap 'rm x' EXIT": "trap", "PATH=. ls": "setting PATH", "export BASH_ENV=x": "setting BASH_ENV",
    "x='a[$(rm y)]'; echo $((x))": "arithmetic on a variable", "echo ${x@P}": "a ${var@...}",
    "sed 's/a/b/e' f": "sed e", "git rebase -x 'rm x' main": "git rebase -x", "watch ls": "watch",
}


@pytest.mark.parametrize("line", list(OPAQUE))
def test_opaque_constructs_are_named(line: str) -> None:
    constructs = [o.construct for o in analyze(line).opaque]
    assert any(c.startswith(OPAQUE[line]) for c in constructs), (line, constructs)


@pytest.mark.parametrize("line", ["ls -la", "git -C . status", "echo 'a;b' \"$HOME\"", "grep -r 'x|y' src",
                                  "python3 script.py", "python3 -m pytest -q", "awk '{print $1}' f",
                                  "find . -name '*.py' -delete", "sed -n '1,5p' f", "bash --version",
                                  "cat <<EOF\n$(date)\nEOF", "timeout 5 make test", "git -c color.ui=always log"])
def test_plain_lines_are_not_opaque(line: str) -> None:
    assert analyze(line).opaque == (), line


@pytest.mark.parametrize("line, words", [
    ("sudo -u root timeout -s KILL 5 nice -n 3 git -C . --no-pager push x", ("git", "push", "x")),
    ("env -i A=1 B=2 command -p rm -f x", ("rm", "-f", "x")),
    ("$'\\x72\\x6d' x", ("rm", "x")), ("'r'\"m\" x", ("rm", "x")), ("\\rm x", ("rm", "x")),
    ("git --git-dir=.git --work-tree=. -c a.b=c push", ("git", "push")),
    ("find . -exec rm -f {} \\;", ("rm", "-f", "{}")), ("bash -c 'rm -rf y'", ("rm", "-rf", "y")),
    ("eval 'rm z'", ("rm", "z")), ("echo $(rm q)", ("rm", "q")), ("bash <<EOF\nrm h\nEOF", ("rm", "h")),
])
def test_wrappers_git_options_and_scripts_are_looked_through(line: str, words: tuple[str, ...]) -> None:
    assert words in [c.words for c in analyze(line).commands], [c.words for c in analyze(line).commands]


def test_ansi_c_strings_decode_as_bash_does() -> None:
    for body in ["\\x72\\x6d", "\\162\\155", "a\\tb\\n", "\\u00e9", "\\'q", "\\cA", "\\e[1m"]:
        expected = subprocess.run(["bash", "-c", f"printf %s $'{body}'"], capture_output=True).stdout
        assert ansi_c(body).encode("utf-8", "surrogateescape") == expected, body


def test_the_parser_loads_lazily() -> None:
    code = ("import sys, gemini_tui.core.shell.grammar, gemini_tui.core.approvals.policy, "
            "gemini_tui.core.session.scheduler;"
            "print('tree_sitter' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
