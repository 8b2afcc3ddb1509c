"""processes: what each program can do, as data: the options that write, that run other code, that take a value.

One `Program` per program (and per subcommand for git, npm, cargo, ...). The judge (`judge.py`) reads a
command's words against its entry; it never knows a program by name except through this table. A program
that can write or run code lists its harmless options (`flags`): any other option counts as writing *and*
running code (a table that is wrong or old fails closed). A program that can do neither (`flags=None`) takes
any option. A program that is not here at all is opaque: what it can do is unknown, so a rule never covers it.

Written with GNU coreutils, findutils, git 2.4x, ripgrep 14 and bash 5's manuals at hand."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Program:
    """What one program (or subcommand) can do. Option names are spelled as typed: `-o`, `--output`.

    `positional`: what its plain arguments are: "read" (paths it reads), "none" (not paths: echo), "pattern"
    (a pattern, then paths it reads, unless -e/-f gave the pattern), "write" (paths it writes or deletes),
    "last" (the last one is written, the others read), "script" (the first names code it runs)."""

    values: frozenset[str] = frozenset()  # harmless options that take a value
    flags: frozenset[str] | None = None  # harmless flags; None: no option of it can write or run code
    writes: frozenset[str] = frozenset()  # options whose value is a path written
    write_flags: dict[str, str] = field(default_factory=dict)  # flag -> what it writes (sed -i: its files)
    code: dict[str, str] = field(default_factory=dict)  # option -> why it runs other code ("=" suffix: takes a value)
    commands: frozenset[str] = frozenset()  # options whose value is a command line: judged by itself (visible)
    positional: str = "read"
    runs: str = ""  # the program itself runs other code: why
    project: bool = False  # ...and that code is the project's (make, pytest, a script): a rule naming it covers it
    network: bool = False
    subcommands: dict[str, Program] | None = None
    sub_values: frozenset[str] = frozenset()  # options before the subcommand that take a value
    digits: bool = False  # `-5` is an option (head -5, git log -5)
    special: str = ""  # a judge for a syntax options cannot describe (find, sed, dd, tar, awk)
    hooks: bool = False  # a git subcommand that runs the repository's hooks
    writes_unknown: bool = False  # writes files whose names it finds at run time (tar -x, patch, git clean)
    config: bool = False  # git config: writes the configuration unless it only reads it
    assigns: bool = False  # read, mapfile: its plain arguments are shell variables it sets
    # a copy, move or link into a folder writes what lands inside it: "cp" (the last operand, or -t's, is the
    # folder unless -T; GNU cp, mv, ln, install), "rsync" (a source ending in / lands its contents)
    copies: str = ""
    recurse: str = ""  # options that make it copy a folder's files ("*": always, as mv moves a folder whole)
    links: str = ""  # options that make what it writes maybe a symbolic link ("*": always): later uses are unknown
    # git: the tree it writes into the work tree: "paths" (checkout: REV's files under the paths, or a switch to
    # REV), "switch", "reset" (--hard/--keep/--merge), "restore", "merge" (what REV brings since the merge base),
    # "rebase", "commits" (cherry-pick, revert: what each commit changes), "stash", "unknown" (pull, clone,
    # bisect: only known once it fetched or chose)
    checks_out: str = ""
    # it unpacks an archive or applies a patch, whose names are read before it runs (unpacked.py): "zip" (unzip),
    # "patch", "apply" (git apply, git am: -p1 unless told)
    lands: str = ""

    @property
    def capable(self) -> bool:
        """Whether some option or argument of it writes or runs code (then unknown options fail closed)."""
        return bool(self.writes or self.write_flags or self.code or self.special or self.runs
                    or self.positional in ("write", "last", "script") or self.flags is not None)


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


def P(values: str = "", flags: str | None = None, writes: str = "", write_flags: dict[str, str] | None = None,
      code: dict[str, str] | None = None, commands: str = "", **rest: Any) -> Program:
    """A table row, options as space-separated words."""
    return Program(values=_set(values), flags=None if flags is None else _set(flags), writes=_set(writes),
                   write_flags=write_flags or {}, code=code or {}, commands=_set(commands), **rest)


# setarch's other names (`x86_64 rm x` is `setarch x86_64 rm x`)
ARCH_WRAPPERS = ("x86_64", "i386", "i486", "i586", "i686", "linux32", "linux64", "aarch64", "armv7l", "arm",
                 "ppc", "ppc32", "ppc64", "ppc64le", "s390", "s390x", "mips", "mips64", "parisc", "sparc", "sparc64",
                 "alpha", "ia64", "uname26")
_LOADER = re.compile(r"^(ld-linux[\w.-]*\.so(\.\d+)*|ld\.so(\.\d+)*|ld64\.so(\.\d+)*|ld-musl-[\w.-]+\.so(\.\d+)*)$")


def program_name(name: str) -> str:
    """The name the table knows a program by: the dynamic loader under any of its file names is `ld.so`."""
    return "ld.so" if _LOADER.match(name) else name


READER = P()  # reads its arguments, no option writes or runs code
NOT_PATHS = P(positional="none")

# -- git ------------------------------------------------------------------------------------------------------
_GIT_LOG_FLAGS = (
    "-p -u --patch -s --no-patch --raw --stat --numstat --shortstat --dirstat --summary --name-only --name-status "
    "--compact-summary --patch-with-stat --patch-with-raw -z --full-index --binary --abbrev --no-abbrev -B -M -C "
    "--find-renames --find-copies --find-copies-harder --no-renames --irreversible-delete -l -R --relative "
    "--no-relative -a --text --ignore-cr-at-eol --ignore-space-at-eol -b --ignore-space-change -w "
    "--ignore-all-space --ignore-blank-lines --inter-hunk-context -W --function-context --exit-code --quiet "
    "--ext-diff --no-ext-diff --textconv --no-textconv --ignore-submodules --src-prefix --dst-prefix --no-prefix "
    "--default-prefix --line-prefix --ita-invisible-in-index --color --no-color --color-moved --no-color-moved "
    "--color-words --word-diff --word-diff-regex --minimal --patience --histogram --diff-algorithm --anchored "
    "--indent-heuristic --no-indent-heuristic --cached --staged --merge-base --no-index --check --ws-error-highlight "
    "--oneline --graph --all --branches --tags --remotes --decorate --no-decorate --decorate-refs --source "
    "--abbrev-commit --no-abbrev-commit --reverse --first-parent --merges --no-merges --min-parents --max-parents "
    "--date --since --after --until --before --author --committer --grep --all-match --invert-grep -i "
    "--regexp-ignore-case --basic-regexp -E --extended-regexp -F --fixed-strings -P --perl-regexp --format --pretty "
    "--follow --full-diff --log-size --left-right --cherry-pick --cherry-mark --cherry --boundary "
    "--simplify-by-decoration "
    "--full-history --dense --sparse --simplify-merges --ancestry-path --topo-order --date-order --author-date-order "
    "--no-walk --do-walk --show-signature --notes --no-notes --show-notes --expand-tabs --no-expand-tabs --encoding "
    "--relative-date --parents --children --mailmap --use-mailmap --no-mailmap --walk-reflogs -g --skip --max-count -n "
    "--since-as-filter --show-linear-break --full-name --stdin --ignore-missing --bisect --not --exclude -S -G "
    "--pickaxe-all --pickaxe-regex --diff-filter --find-object -O -U --unified --output-indicator-new "
    "--output-indicator-old --output-indicator-context --stat-width --stat-name-width --stat-count --stat-graph-width "
    "--cumulative -D --irreversible-delete --remerge-diff --diff-merges --dd --cc -c -m -t --combined-all-paths "
    "--no-merges --submodule --color-moved-ws --no-color-moved-ws --break-rewrites -L --clear-decorations -q "
    "--name-rev --ignore-matching-lines -I --quiet --no-ext-diff --rotate-to --skip-to --follow --patch-with-stat "
    "--summary --single-worktree --glob --exclude-first-parent-only --count --show-pulls --signature --no-signature "
    "--show-origin --trailer --ignore-other-worktrees --porcelain --line-porcelain --root --show-stats -e -f "
    "--show-email --incremental --progress --no-progress --contents -h --help --long --short --branch --show-stash "
    "--ahead-behind --no-ahead-behind --untracked-files -uno -uall -unormal --ignored --no-renames --renames "
    "--column --no-column --no-optional-locks -v --verbose --null --show-name --no-show-name"
)
_GIT_DIFF_VALUES = ("--format --pretty --date --since --after --until --before --author --committer --grep -n "
                    "--max-count --skip --min-parents --max-parents --diff-filter -S -G -O -U --unified "
                    "--inter-hunk-context --src-prefix --dst-prefix --line-prefix --word-diff-regex --color-moved-ws "
                    "--stat-width --stat-name-width --stat-count --stat-graph-width --abbrev --encoding "
                    "--decorate-refs "
                    "--exclude --find-object -L -I --ignore-matching-lines --diff-algorithm --anchored "
                    "--ws-error-highlight --rotate-to --skip-to --trailer --contents --untracked-files --ignored "
                    "--column --glob --branches --tags --remotes --notes --show-notes --submodule --diff-merges")
_GIT_OUTPUT = "--output"
_GIT_READ = P(values=_GIT_DIFF_VALUES, flags=_GIT_LOG_FLAGS, writes=_GIT_OUTPUT, digits=True)
_GIT_NET = {"--upload-pack=": "names the program run on the other side (locally, for a local remote)",
            "-u=": "names the upload-pack program", "--receive-pack=": "names the receive-pack program",
            "--exec=": "names the receive-pack program", "-c=": "sets a configuration that can name a program",
            "--config=": "sets a configuration that can name a program",
            "--template=": "copies hooks from a template folder"}


def _git_sub(flags: str = "", values: str = "", writes: str = "", code: dict[str, str] | None = None,
             **rest: Any) -> Program:
    return P(values=values, flags=flags + " -h --help -q --quiet -v --verbose", writes=writes, code=code, **rest)


GIT_SUBCOMMANDS: dict[str, Program] = {
    **{name: _GIT_READ for name in ("log", "show", "diff", "whatchanged", "reflog", "diff-tree", "diff-index",
                                    "diff-files", "range-diff", "status", "blame", "annotate", "shortlog")},
    "grep": P(values="-e -f -A -B -C --context --after-context --before-context --max-depth -m --max-count "
                     "--threads --and --or --not",
              flags="-i --ignore-case -w --word-regexp -v --invert-match -n --line-number -l --files-with-matches "
                    "-L --files-without-match -c --count -h -H --full-name -E -F -G -P --cached --untracked "
                    "--no-index --recurse-submodules -I -r --no-recursive -a --text -z --null -o --only-matching "
                    "-q --quiet --color --no-color --heading --break -p --show-function -W --function-context "
                    "--column --all-match --exclude-standard --no-exclude-standard --textconv --no-textconv",
              code={"-O": "opens the files with a program it names", "--open-files-in-pager": "opens the files "
                    "with a program it names", "--ext-grep": ""}, positional="pattern", digits=True),
    **{name: _git_sub() for name in ("rev-parse", "rev-list", "ls-files", "ls-tree", "cat-file", "show-ref",
                                     "describe", "name-rev", "merge-base", "for-each-ref", "count-objects",
                                     "check-ignore", "check-attr", "var", "verify-commit", "verify-tag", "help",
                                     "version", "show-branch", "cherry", "fsck", "whatchanged", "get-tar-commit-id")},
    "branch": _git_sub("-a --all -r --remotes -l --list --show-current --contains --no-contains --merged "
                       "--no-merged --sort --points-at --format --color --no-color --column --no-column -vv -d -D "
                       "-m -M --delete --move --copy -c -C -f --force -u --set-upstream-to --unset-upstream "
                       "--track --no-track --create-reflog --omit-empty -i --ignore-case",
                       values="--sort --points-at --format --contains --no-contains --merged --no-merged -u "
                              "--set-upstream-to"),
    "tag": _git_sub("-l --list -n -a -s -d --delete -f --force --sort --contains --points-at --format -m "
                    "--message --column --no-column -i --ignore-case --merged --no-merged --annotate",
                    values="--sort --contains --no-contains --points-at --format -m --message --merged --no-merged"),
    "remote": _git_sub("-v --verbose show get-url"),
    "stash": _git_sub("list show -p --patch push pop apply drop clear -m --message -u --include-untracked "
                      "-k --keep-index --staged --all -a --index", values="-m --message", hooks=False,
                      checks_out="stash", links="*"),
    "add": _git_sub("-A --all -u --update -n --dry-run -f --force -N --intent-to-add --ignore-errors "
                    "--renormalize --chmod -p --patch -i --interactive --no-all"),
    "rm": _git_sub("--cached -r -f --force -n --dry-run --ignore-unmatch", positional="write"),
    "mv": _git_sub("-f --force -k -n --dry-run", positional="write"),
    "restore": _git_sub("-s --source -S --staged -W --worktree -p --patch --ours --theirs -m --merge "
                        "--ignore-unmerged --overlay --no-overlay", values="-s --source", positional="write",
                        checks_out="restore", links="*"),
    "reset": _git_sub("--soft --mixed --hard --merge --keep -p --patch -N --no-refresh", positional="none",
                      checks_out="reset", links="*"),
    "checkout": _git_sub("-b -B --orphan -f --force -m --merge --detach -t --track --no-track -p --patch --ours "
                         "--theirs --conflict", values="-b -B --orphan --conflict", positional="none", hooks=True,
                         checks_out="paths", links="*"),
    "switch": _git_sub("-c -C --create --force-create --orphan -d --detach -f --force --discard-changes -m "
                       "--merge -t --track --no-track --guess --no-guess",
                       values="-c -C --create --force-create --orphan", positional="none", hooks=True,
                       checks_out="switch", links="*"),
    "commit": _git_sub("-a --all -m --message -F --file --amend --no-edit -s --signoff --allow-empty "
                       "--allow-empty-message -n --no-verify --fixup --squash -p --patch --author --date -S "
                       "--no-gpg-sign --reset-author --short --branch --porcelain --dry-run -o --only -i --include "
                       "-C --reuse-message -c --reedit-message -e --edit --cleanup --status --no-status",
                       values="-m --message -F --file --fixup --squash --author --date -C --reuse-message "
                              "-c --reedit-message --cleanup", positional="none", hooks=True),
    "merge": _git_sub("--no-ff --ff --ff-only --squash --no-squash --abort --continue -m --no-edit --edit -s "
                      "--strategy -X --strategy-option --no-commit --commit --no-verify --allow-unrelated-histories",
                      values="-m -s --strategy -X --strategy-option", positional="none", hooks=True,
                      checks_out="merge", links="*"),
    "rebase": _git_sub("-i --interactive --continue --abort --skip --onto --autosquash --no-autosquash "
                       "--autostash --keep-base --root -r --rebase-merges --update-refs",
                       values="--onto", code={"-x=": "runs a command after each commit",
                                              "--exec=": "runs a command after each commit"},
                       positional="none", hooks=True, checks_out="rebase", links="*"),
    "cherry-pick": _git_sub("-n --no-commit -x -e --edit --continue --abort --skip -m --mainline --ff",
                            values="-m --mainline", positional="none", hooks=True, checks_out="commits",
                            links="*"),
    "revert": _git_sub("-n --no-commit --no-edit --edit --continue --abort --skip -m --mainline",
                       values="-m --mainline", positional="none", hooks=True, checks_out="commits",
                       links="*"),
    "init": _git_sub("-b --initial-branch --bare --shared -q", values="-b --initial-branch",
                     code={"--template=": "copies hooks from the folder it names",
                           "--separate-git-dir=": "puts the repository elsewhere"}),
    "apply": _git_sub("--check --stat --numstat --summary --index --cached -R --reverse -3 --3way --apply "
                      "--whitespace -p --reject -v --include --exclude --directory -C --recount --allow-empty "
                      "--unidiff-zero --ignore-space-change --ignore-whitespace --inaccurate-eof",
                      values="--whitespace -p --include --exclude --directory -C", positional="read", lands="apply"),
    "am": _git_sub("-3 --3way --no-3way -s --signoff -k --keep --keep-non-patch --no-keep-cr --keep-cr -c "
                   "--scissors --no-scissors -m --message-id --no-message-id -u --utf8 --no-utf8 --whitespace -p "
                   "-C --directory --exclude --include --reject --ignore-space-change --ignore-whitespace "
                   "--ignore-date --committer-date-is-author-date --empty --patch-format --quoted-cr "
                   "--continue -r --resolved --skip --abort --quit --show-current-patch --allow-empty -S "
                   "--gpg-sign --no-gpg-sign --no-verify -n",
                   values="--whitespace -p -C --directory --exclude --include --empty --patch-format --quoted-cr",
                   positional="read", lands="apply", hooks=True),
    "format-patch": _git_sub("--stdout -n --numbered --cover-letter -1 --root", writes="-o --output-directory",
                             digits=True),
    "archive": _git_sub("--format --prefix -l --list", values="--format --prefix", writes="-o --output",
                        code={"--remote=": "runs git-upload-archive on a remote", "--exec=": "names a program"}),
    "bundle": _git_sub("create verify list-heads unbundle", positional="write"),
    "config": _git_sub("--get --get-all --get-regexp -l --list --global --system --local --show-origin "
                       "--show-scope --name-only --null -z --type --bool --int --path get list",
                       values="--type --file -f --blob", positional="none", config=True),
    **{name: _git_sub("--all -p --prune --tags --no-tags --dry-run -n --depth --deepen --shallow-since "
                      "--unshallow -f --force --atomic --set-upstream -v --verbose --progress --no-progress "
                      "--rebase --no-rebase --ff-only --ff --no-ff --recurse-submodules --no-recurse-submodules "
                      "--jobs -j --porcelain --follow-tags --force-with-lease --delete -d --heads --refs "
                      "--branch -b --single-branch --no-single-branch --filter --sparse --bare --mirror "
                      "--origin -o --autostash --no-autostash -u --set-upstream --no-verify",
                      values="--depth --deepen --shallow-since --jobs -j --branch -b --filter --origin -o",
                      code=_GIT_NET, network=True, positional="none", hooks=name in ("pull", "push"),
                      checks_out="unknown" if name in ("pull", "clone") else "")
       for name in ("fetch", "pull", "push", "clone", "ls-remote")},
    "submodule": _git_sub("status summary", code={"foreach": "runs a command in every submodule",
                                                  "update": "runs update commands the configuration names"},
                          network=True),
    "bisect": _git_sub("start bad good new old skip reset log visualize view terms",
                       code={"run": "runs a command at every step"}, positional="none", checks_out="unknown"),
    "worktree": _git_sub("list add remove prune lock unlock move repair -b -B --detach -f --force", values="-b -B",
                         positional="write", hooks=True),
    "clean": _git_sub("-n --dry-run -f --force -d -x -X -i --interactive -e --exclude", values="-e --exclude",
                      writes_unknown=True),
    "gc": _git_sub("--aggressive --auto --prune --no-prune --force", hooks=True),
    "notes": _git_sub("list show add -m --message", values="-m --message"),
}
for _runs in ("difftool", "mergetool", "filter-branch", "filter-repo", "daemon", "instaweb", "web--browse",
              "send-email", "svn", "p4", "cvsimport", "request-pull", "credential", "credential-store",
              "upload-pack", "receive-pack", "shell", "sh-setup"):
    GIT_SUBCOMMANDS[_runs] = P(runs=f"`git {_runs}` runs programs its configuration or options name")

GIT = P(values="-C --git-dir --work-tree --namespace --super-prefix --list-cmds --attr-source",
        flags="--no-pager -p --paginate -P --bare --no-replace-objects --literal-pathspecs --glob-pathspecs "
              "--noglob-pathspecs --icase-pathspecs --no-optional-locks --no-advice --version --help -h --html-path "
              "--man-path --info-path",
        code={"-c=": "sets a configuration that can name a program", "--config-env=": "reads a configuration from "
              "the environment", "--exec-path=": "runs git's programs from a folder it names"},
        subcommands=GIT_SUBCOMMANDS,
        sub_values=_set("-C -c --git-dir --work-tree --namespace --super-prefix --config-env --list-cmds "
                        "--attr-source"))
# `git -c key=value` that names no program: anything else may (alias.*, core.pager, core.fsmonitor, ...)
SAFE_GIT_CONFIG = re.compile(r"^(color\.|user\.|advice\.|core\.quotepath|log\.|init\.defaultbranch|i18n\.|"
                             r"column\.|status\.|diff\.(color|renames|algorithm|noprefix|mnemonicprefix)\b|"
                             r"pull\.(rebase|ff)\b|push\.default|merge\.conflictstyle|rebase\.autosquash|"
                             r"safe\.directory)", re.I)

# -- package managers and build tools: project code --------------------------------------------------------------
_PROJECT = "runs the project's own code"


def _runner(network: bool = False, reads: str = "") -> Program:
    return P(runs=_PROJECT, project=True, network=network, positional="none")


_NPM_READ = P(positional="none", flags="--json --long -l --all -a --depth --global -g --parseable -p --omit "
                                      "--include --prefix --workspace -w --workspaces",
              values="--depth --omit --include --prefix --workspace -w")
NPM = P(flags="-h --help -v --version", values="--prefix -w --workspace", positional="none",
        sub_values=_set("--prefix -w --workspace"),
        subcommands={**{name: _NPM_READ for name in ("ls", "list", "ll", "la", "view", "info", "show", "outdated",
                                                     "search", "help", "config", "get", "root", "bin", "prefix",
                                                     "why", "explain", "doctor", "audit", "fund", "whoami")},
                     **{name: _runner() for name in ("test", "t", "tst", "run", "run-script", "start", "stop",
                                                      "restart", "exec", "x", "rebuild", "pack", "publish")},
                     **{name: _runner(network=True) for name in ("install", "i", "ci", "add", "update", "up",
                                                                  "uninstall", "remove", "rm", "un", "init",
                                                                  "create", "dedupe", "link", "prune")}})
YARN = P(positional="none", runs=_PROJECT, project=True,
         subcommands={"info": _NPM_READ, "list": _NPM_READ, "why": _NPM_READ, "--version": NOT_PATHS,
                      "help": NOT_PATHS})
CARGO = P(positional="none", runs=_PROJECT, project=True, sub_values=_set("--manifest-path -Z --config --color"),
          subcommands={"--version": NOT_PATHS, "-V": NOT_PATHS, "version": NOT_PATHS, "help": NOT_PATHS,
                       "tree": P(positional="none", flags="-e --edges -i --invert -d --duplicates --depth "
                                 "--prefix --no-dedupe -p --package --workspace --features --all-features -q",
                                 values="-e --edges -i --invert --depth --prefix -p --package --features"),
                       "metadata": P(positional="none", flags="--format-version --no-deps --offline -q",
                                     values="--format-version")})
GO = P(positional="none", runs=_PROJECT, project=True,
       subcommands={"version": NOT_PATHS, "env": NOT_PATHS, "help": NOT_PATHS, "doc": NOT_PATHS,
                    "list": P(positional="none", flags="-m -json -f -e -deps -test -u -versions -find -mod",
                              values="-f -mod"),
                    "fmt": P(positional="write", flags="-n -x"), "vet": _runner()})

SHELL_NAMES = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "rbash"})

# -- interpreters and tools that run code the table cannot see ----------------------------------------------------
_SCRIPT = P(runs="runs a program it is given (a script file, inline code or its standard input)", project=True,
            positional="script")
_INVISIBLE = "runs commands it reads at run time (the table cannot see them)"
_INTERACTIVE = P(runs=_INVISIBLE, positional="write")

# what makes each copying program copy a folder's files, and leave symbolic links where it writes
_RECURSE = {"cp": "-r -R --recursive -a --archive", "mv": "*", "ln": "", "install": ""}
_LINKS = {"cp": "-s --symbolic-link -r -R --recursive -a --archive -d -P --no-dereference", "mv": "*", "ln": "*",
          "install": ""}

PROGRAMS: dict[str, Program] = {
    # -- plain readers: no option writes or runs code ---------------------------------------------------------
    **{name: READER for name in (
        "cat", "tac", "nl", "head", "tail", "wc", "ls", "dir", "vdir", "stat", "file", "du", "df", "tree",
        "cmp", "diff", "diff3", "comm", "cut", "paste", "join", "fold", "fmt", "pr", "expand", "unexpand",
        "column", "od", "xxd", "hexdump", "strings", "base32", "base64", "basenc", "md5sum", "sha1sum",
        "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "realpath", "readlink",
        "rev", "tr", "look", "jq", "yq", "wc", "numfmt", "iconv", "zcat", "zless", "bzcat", "xzcat", "zstdcat",
        "lsof", "getfacl", "lsattr", "namei", "pwdx", "more", "ldd", "nm", "objdump", "readelf", "size",
        "identify", "pdftotext", "exiftool", "sqlfluff", "tsort", "csvlook", "fgrep", "egrep", "grep", "zgrep",
        "ag", "ack", "fd", "fdfind", "locate", "cloc", "tokei", "bat", "batcat", "highlight", "glow", "wdiff",
        "colordiff", "delta", "difft", "jless", "gron", "xmllint", "tidy", "pygmentize", "shellcheck",
        "hadolint", "yamllint", "actionlint", "markdownlint", "uniq-c")},
    "grep": P(positional="pattern"), "egrep": P(positional="pattern"), "fgrep": P(positional="pattern"),
    "zgrep": P(positional="pattern"), "ag": P(positional="pattern"), "ack": P(positional="pattern"),
    **{name: NOT_PATHS for name in (
        "echo", "printf", "true", "false", ":", "pwd", "date", "whoami", "id", "groups", "hostname", "uname",
        "arch", "nproc", "uptime", "which", "type", "whereis", "command -v", "hash", "basename", "dirname",
        "seq", "yes", "sleep", "test", "[", "[[", "expr", "factor", "env-print", "printenv", "locale", "tty",
        "getconf", "cal", "bc", "dc", "free", "vmstat", "ps", "pgrep", "pstree", "jobs", "wait", "who", "w",
        "last", "lsblk", "lscpu", "lsusb", "lspci", "ulimit", "umask", "times", "help", "history", "dirs",
        "shift", "break", "continue", "return", "exit", "unset", "local", "readonly", "declare", "typeset",
        "export", "set", "getopts", "let", "cd", "pushd", "popd", "tput", "stty", "clear", "reset", "mktemp-dry",
        "tldr", "man", "info", "apropos", "whatis", "git-version", "python-version", "shuf-dry", "tmux-ls")},
    "cd": P(positional="read"), "pushd": P(positional="read"), "popd": NOT_PATHS,
    "printf": P(positional="none", code={"-v=": "assigns a shell variable"}, flags=""),
    "read": P(positional="none", flags="-r -s -a -e -n -N -p -t -u -d", values="-a -n -N -p -t -u -d -i",
              assigns=True),
    "mapfile": P(positional="none", flags="-t", values="-d -n -O -s -u -C -c", assigns=True),
    "readarray": P(positional="none", flags="-t", values="-d -n -O -s -u -C -c", assigns=True),
    "rg": P(values="-e --regexp -f --file -g --glob --iglob -t --type -T --type-not --type-add --type-clear "
                   "-A -B -C --after-context --before-context --context -m --max-count --max-depth -d "
                   "--max-filesize -j --threads -M --max-columns --sort --sortr --color --colors --encoding -E "
                   "--engine --path-separator --context-separator --field-match-separator --field-context-separator "
                   "--replace -r --ignore-file --dfa-size-limit --regex-size-limit --hyperlink-format "
                   "--max-columns-preview --pre-glob --generate --hostname-bin",
            flags="-i --ignore-case -S --smart-case -s --case-sensitive -w --word-regexp -x --line-regexp -v "
                  "--invert-match -n --line-number -N --no-line-number -l --files-with-matches "
                  "--files-without-match -c --count --count-matches -o --only-matching --files -F --fixed-strings "
                  "-U --multiline --multiline-dotall -P --pcre2 --hidden -. -L --follow -u -uu -uuu "
                  "--no-ignore --no-ignore-vcs --no-ignore-parent --no-ignore-dot --no-ignore-global "
                  "--no-ignore-exclude --no-ignore-files --no-ignore-messages --ignore --json --vimgrep "
                  "--heading --no-heading -H --with-filename -I --no-filename -p --pretty --column --no-column "
                  "-b --byte-offset -0 --null --null-data -q --quiet --stats --trim --no-messages -a --text "
                  "--binary --no-binary --type-list --passthru --passthrough --one-file-system -h --help -V "
                  "--version --debug --trace --no-config --sort-files --unrestricted --crlf --no-crlf "
                  "--block-buffered --line-buffered --include-zero --no-unicode --auto-hybrid-regex --mmap "
                  "--no-mmap --glob-case-insensitive --no-require-git --max-columns-preview --word-regexp "
                  "-z --search-zip --no-search-zip --no-pcre2-unicode --stop-on-nonmatch --no-stats",
            code={"--pre=": "runs a program it names on every file it searches"}, positional="pattern"),
    "sort": P(values="-k --key -t --field-separator -S --buffer-size -T --temporary-directory --parallel "
                     "--batch-size --files0-from",
              flags="-b --ignore-leading-blanks -d --dictionary-order -f --ignore-case -g --general-numeric-sort "
                    "-i --ignore-nonprinting -M --month-sort -h --human-numeric-sort -n --numeric-sort -R "
                    "--random-sort -r --reverse -V --version-sort -c --check -C -m --merge -s --stable -u "
                    "--unique -z --zero-terminated --debug --help --version --random-source --sort",
              writes="-o --output", code={"--compress-program=": "runs a program it names"}),
    "shuf": P(values="-n --head-count -i --input-range --random-source", flags="-e --echo -r --repeat -z "
              "--zero-terminated", writes="-o --output"),
    "uniq": P(values="-f --skip-fields -s --skip-chars -w --check-chars",
              flags="-c --count -d --repeated -D -u --unique -i --ignore-case -z --zero-terminated --group "
                    "--all-repeated", positional="last"),
    "tee": P(flags="-a --append -i --ignore-interrupts -p --output-error", positional="write"),
    "touch": P(flags="-a -c -m -h --no-create --no-dereference", values="-d --date -r --reference -t",
               positional="write"),
    **{name: P(flags="-f --force -i -I -r -R --recursive -d --dir -v --verbose --one-file-system "
                     "--preserve-root --no-preserve-root --interactive -p --parents --ignore-fail-on-non-empty "
                     "-m --mode -Z --context -n -u -z -x --remove --zero --exact", values="-m --mode -n --iterations "
                                                                                          "-s --size",
               positional="write")
       for name in ("rm", "rmdir", "mkdir", "unlink", "shred", "mkfifo")},
    **{name: P(flags="-R --recursive -v --verbose -c --changes -f --silent --quiet -h --no-dereference "
                     "--preserve-root --no-preserve-root -H -L -P", values="--reference --from",
               positional="write")
       for name in ("chmod", "chown", "chgrp")},
    "truncate": P(flags="-c --no-create -o --io-blocks", values="-s --size -r --reference", positional="write"),
    **{name: P(flags="-a --archive -r -R --recursive -f --force -i --interactive -n --no-clobber -u --update -v "
                     "--verbose -p -P -L -H -l --link -s --symbolic-link -d -x --one-file-system --parents "
                     "-T --no-target-directory -b --backup --preserve --no-preserve --sparse --reflink "
                     "--remove-destination --strip-trailing-slashes --attributes-only --debug -D -C --compare "
                     "-Z --context --keep-directory-symlink",
               values="-S --suffix -m --mode -o --owner -g --group", writes="-t --target-directory",
               positional="write" if name == "mv" else "last", copies="cp", recurse=_RECURSE[name],
               links=_LINKS[name])
       for name in ("cp", "mv", "ln", "install")},
    "rsync": P(flags="-a --archive -v -r -l -p -t -g -o -D -z -h -P --progress --delete --dry-run -n -u -c "
                     "--checksum --exclude --include -q --stats -i --itemize-changes -R --relative --partial",
               values="--exclude --include --exclude-from --include-from --filter -f",
               code={"-e=": "names the remote shell it runs", "--rsh=": "names the remote shell it runs",
                     "--rsync-path=": "names the program run on the other side"},
               positional="last", network=True, copies="rsync", recurse="*", links="-a --archive -l --links"),
    "dd": P(special="dd"),
    "sed": P(special="sed"),
    "find": P(special="find"),
    "tar": P(special="tar"),
    **{name: P(special="awk") for name in ("awk", "gawk", "mawk", "nawk")},
    "split": P(values="-a -b -C -l -n --additional-suffix --suffix-length --bytes --line-bytes --lines --number",
               flags="-d -x --numeric-suffixes --hex-suffixes -e --elide-empty-files -u --unbuffered --verbose",
               code={"--filter=": "runs a command on every piece"}, commands="--filter", positional="write"),
    "csplit": P(values="-b -f -n --suffix-format --prefix --digits", flags="-k -s -z --quiet --silent",
                positional="write"),
    "patch": P(values="-p --strip -i --input -d --directory -F --fuzz -r --reject-file -B --prefix -z --suffix -D",
               flags="-R --reverse -N --forward -E --remove-empty-files --dry-run -s --silent -f --force -t -b "
                     "--backup -u -c -n -e --verbose --binary --posix", writes="-o --output",
               positional="write", lands="patch"),
    **{name: P(flags="-d --decompress -c --stdout -k --keep -f --force -l --list -t --test -v -q -r -n -N "
                     "-1 -2 -3 -4 -5 -6 -7 -8 -9 --best --fast -T --threads", values="-S --suffix -T --threads",
               positional="write")
       for name in ("gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "compress")},
    "unzip": P(flags="-l -v -t -q -o -n -j -u -f -a -Z -1 -z -p -c", values="-d -x", positional="read",
               lands="zip"),
    "zip": P(flags="-r -q -v -j -9 -0 -u -m -d -D -y -X -l -T", values="-x -i -P", positional="last",
             code={"-TT=": "runs the test command it names", "--unzip-command=": "runs the test command it names"},
             commands="-TT --unzip-command"),
    "curl": P(values="-H --header -X --request -d --data --data-raw --data-binary --data-urlencode -u --user -A "
                     "--user-agent -e --referer -m --max-time --connect-timeout -w --write-out -b --cookie "
                     "--retry -F --form -r --range --resolve --url -x --proxy --json",
              flags="-s --silent -S --show-error -L --location -i --include -I --head -v --verbose -f --fail -k "
                    "--insecure -G --get --compressed -# --progress-bar -N --no-buffer -g --globoff "
                    "--fail-with-body -4 -6 --http1.1 --http2",
              writes="-o --output -D --dump-header -c --cookie-jar --trace --trace-ascii --output-dir",
              write_flags={"-O": "the remote file's name", "--remote-name": "the remote file's name",
                           "-J": "a name the server chooses", "--remote-header-name": "a name the server chooses",
                           "--remote-name-all": "the remote files' names"},
              code={"-K=": "reads more options from a file", "--config=": "reads more options from a file"},
              positional="none", network=True),
    "wget": P(values="-U --user-agent --header -t --tries -T --timeout -e --execute --post-data -l --level",
              flags="-q --quiet -v -nv -c --continue -S --server-response --spider -r -np -N -k -p -m",
              writes="-O --output-document -o --output-file -a --append-output -P --directory-prefix",
              writes_unknown=True, positional="none", network=True),
    "less": P(values="-p --pattern -x --tabs -b --buffers -h -y -z --window -j --jump-target -# --shift -T --tag-file "
                     "--mouse --wheel-lines",
              flags="-R -r -S -N -n -F -X -K -i -I -M -m -E -e -f -g -G -s -q -Q -w -W -a -c -d -L -u -U -V "
                    "--RAW-CONTROL-CHARS --chop-long-lines --LINE-NUMBERS --quit-if-one-screen --no-init "
                    "--quit-on-intr --ignore-case --IGNORE-CASE --LONG-PROMPT --squeeze-blank-lines --help "
                    "--version --no-lessopen --follow-name",
              writes="-o -O --log-file --LOG-FILE",
              code={"+": "runs less commands given on its command line (`!` runs a shell)",
                    "-k=": "reads key bindings that can run commands",
                    "--lesskey-file=": "reads key bindings that can run commands", "--lesskey-src=": ""}),
    "man": P(positional="none", flags="-k -f -a -w", values="-S -M -P -p -C -H",
             code={"-P=": "names the pager it runs", "--pager=": "names the pager it runs",
                   "-H=": "names the browser it runs", "-p=": "names preprocessors it runs"}),
    "xargs": P(special="xargs"),
    "env": P(special="env"),
    # -- programs that run another command line (wrappers: the inner command is judged by itself) ------------
    **{name: P(special="wrapper") for name in (
        "command", "builtin", "exec", "nohup", "time", "nice", "timeout", "stdbuf", "ionice", "setsid",
        "chronic", "unbuffer", "taskset", "chrt", "caffeinate", "sudo", "doas", "flock", "setarch", "linux32",
        "linux64", "prlimit", "strace", "ltrace", "chroot", "unshare", "nsenter", "runuser", "fakeroot",
        "firejail", "systemd-run", "numactl", "catchsegv", "valgrind", "gdb-batch", *ARCH_WRAPPERS, "setpriv",
        "ssh-agent", "dbus-run-session", "dbus-launch", "ld.so")},
    # -- shells and interpreters: they run the code they are given ---------------------------------------------
    **{name: _SCRIPT for name in (
        "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "yash", "csh", "tcsh", "rbash", "python",
        "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "perl", "ruby", "php", "lua",
        "luajit", "Rscript", "R", "tclsh", "wish", "osascript", "pwsh", "powershell", "jshell", "irb", "ts-node",
        "tsx", "groovy", "scala", "kotlin", "julia", "swift", "java", "dotnet", "erl", "elixir", "guile",
        "racket", "sbcl", "clisp", "gdb", "lldb", "expect")},
    # -- build and test runners: the project's own code ---------------------------------------------------------
    **{name: _runner() for name in ("make", "gmake", "cmake", "ninja", "meson", "pytest", "py.test", "tox",
                                    "nox", "jest", "vitest", "mocha", "tsc", "eslint", "prettier", "ruff",
                                    "black", "mypy", "pyright", "gradle", "gradlew", "mvn", "ant", "rake", "bundle",
                                    "composer", "mix", "stack", "cabal", "dune", "bazel", "buck", "just", "task",
                                    "invoke", "hatch", "poetry", "pdm", "uv", "pip", "pip3", "pipx", "rustc",
                                    "gcc", "g++", "cc", "c++", "clang", "clang++", "ld", "javac", "zig",
                                    "pre-commit", "husky", "lint-staged", "turbo", "nx", "lerna", "webpack",
                                    "vite", "rollup", "esbuild", "parcel", "docker", "podman", "docker-compose",
                                    "kubectl", "helm", "terraform", "ansible", "vagrant")},
    "npm": NPM, "pnpm": NPM, "yarn": YARN, "npx": _runner(network=True), "pnpx": _runner(network=True),
    "cargo": CARGO, "go": GO, "git": GIT,
    # -- programs with their own command languages that can run a shell --------------------------------------
    **{name: _INTERACTIVE for name in ("vim", "vi", "nvim", "view", "ex", "ed", "red", "emacs", "nano", "pico",
                                       "mg", "joe", "sqlite3", "mysql", "psql", "ftp", "sftp", "lftp", "telnet",
                                       "nc", "ncat", "socat", "screen", "tmux", "script", "expect", "at", "batch",
                                       "crontab", "watch", "parallel", "entr", "inotifywait-run", "mc", "ranger",
                                       "tig", "lazygit", "fzf", "dialog", "whiptail", "mail", "mutt", "gpg")},
    **{name: P(runs="runs commands on another machine, and can run local ones through its options "
                    "(ProxyCommand, LocalCommand)", network=True, positional="none")
       for name in ("ssh", "scp", "mosh", "rsh", "rlogin", "autossh")},
}

# -- environment assignments ----------------------------------------------------------------------------------
# A variable set on the line (`X=v cmd`, `export X=v`, `env X=v`, `read X`, `printf -v X`) that decides which
# program runs, or that names a program, a script or a configuration a later program reads.
CODE_VARIABLES: dict[str, str] = {
    "PATH": "decides which program a name runs", "BASH_ENV": "names a script every bash runs first",
    "ENV": "names a script every sh runs first", "LD_PRELOAD": "loads a library into every program",
    "LD_LIBRARY_PATH": "decides which libraries programs load", "LD_AUDIT": "loads a library into every program",
    "IFS": "changes how words split", "PROMPT_COMMAND": "runs a command", "PS0": "runs commands when expanded",
    "PS1": "runs commands when expanded", "PS2": "", "PS4": "runs commands when expanded",
    "SHELLOPTS": "changes how the shell runs", "BASHOPTS": "changes how the shell runs",
    "CDPATH": "decides where cd goes", "GLOBIGNORE": "changes how globs expand", "HOME": "decides what ~ means",
    "PAGER": "names the pager programs run", "MANPAGER": "names the pager man runs", "EDITOR": "names an editor "
    "programs run", "VISUAL": "names an editor programs run", "BROWSER": "names a browser programs run",
    "LESSOPEN": "runs a command on every file less opens", "LESSCLOSE": "runs a command after less",
    "LESSKEY": "names key bindings that can run commands", "LESSKEYIN": "", "LESS": "gives less options",
    "SHELL": "names the shell programs run", "TERMINAL": "", "MAKEFLAGS": "gives make options",
    "MAKEFILES": "names makefiles make reads", "PYTHONSTARTUP": "names a script python runs",
    "PYTHONPATH": "decides which modules python loads", "PYTHONHOME": "decides which python runs",
    "PYTHONUSERBASE": "", "PYTHONBREAKPOINT": "names code python runs", "PYTHONINSPECT": "",
    "PYTHONWARNINGS": "", "NODE_OPTIONS": "gives node options (--require runs code)",
    "NODE_PATH": "decides which modules node loads", "PERL5OPT": "gives perl options (-M runs code)",
    "PERL5LIB": "decides which modules perl loads", "PERLLIB": "", "PERL5DB": "names code perl runs",
    "RUBYOPT": "gives ruby options", "RUBYLIB": "decides which libraries ruby loads", "GEM_HOME": "",
    "NPM_CONFIG_SCRIPT_SHELL": "names the shell npm runs", "npm_config_script_shell": "",
    "SSH_ASKPASS": "names a program ssh runs", "SUDO_ASKPASS": "names a program sudo runs",
    "RSYNC_RSH": "names the remote shell rsync runs", "TAR_OPTIONS": "gives tar options",
    "GZIP": "gives gzip options", "XZ_DEFAULTS": "", "GREP_OPTIONS": "", "RIPGREP_CONFIG_PATH": "names a "
    "configuration that gives rg options (--pre runs a program)", "PROMPT_DIRTRIM": "",
    "TMUX_TMPDIR": "", "TMPDIR": "",
    "XDG_CONFIG_HOME": "decides which configuration programs read (git, less, ...)",
    "HISTFILE": "", "INPUTRC": "", "CURL_HOME": "names curl's configuration", "WGETRC": "names wget's "
    "configuration", "SQLITE_HISTORY": "", "VIMINIT": "runs vim commands", "EXINIT": "runs ex commands",
    "MYVIMRC": "", "GNUPGHOME": "", "BZIP2": "", "DIFF_OPTIONS": "", "GIT_EXTERNAL_DIFF": "",
}
# GIT_* that name no program and no configuration; every other GIT_* may (GIT_EXTERNAL_DIFF, GIT_CONFIG_*,
# GIT_SSH_COMMAND, GIT_PAGER, GIT_DIR, GIT_EXEC_PATH, GIT_TEMPLATE_DIR, ...)
SAFE_GIT_VARIABLES = frozenset({
    "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE", "GIT_TERMINAL_PROMPT", "GIT_TRACE", "GIT_TRACE2", "GIT_FLUSH", "GIT_MERGE_VERBOSITY",
    "GIT_OPTIONAL_LOCKS", "GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS", "GIT_REFLOG_ACTION", "GIT_PROGRESS_DELAY", "GIT_ADVICE", "GIT_NO_REPLACE_OBJECTS",
})
# harmless variables (everything else not listed is harmless too; these only document common ones)
_MEANING_CARRIERS = re.compile(r"^(GIT_|LESS|PYTHON|NODE_|PERL|RUBY|LD_|BASH_FUNC_|DYLD_|npm_config_|NPM_CONFIG_|"
                               r"CARGO_|RUSTC|RUSTFLAGS|GOFLAGS|CC$|CXX$|CFLAGS|LDFLAGS|MAKE|GNUPG)", re.I)


def variable_runs_code(name: str) -> str | None:
    """Why assigning `name` on the line can make a program run other code (None when it cannot)."""
    if name.startswith("BASH_FUNC_"):
        return "defines a shell function that replaces a command"
    if name.startswith("GIT_"):
        if name in SAFE_GIT_VARIABLES or name.startswith("GIT_TRACE"):  # a trace's file: `variable_writes`
            return None
        return "names a program or a configuration git reads"
    if name in CODE_VARIABLES:
        return CODE_VARIABLES[name] or "changes which program or configuration runs"
    if _MEANING_CARRIERS.match(name) and name not in ("LESSCHARSET", "PYTHONUNBUFFERED",
                                                      "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING",
                                                      "PYTHONHASHSEED", "NODE_ENV", "PYTHONUTF8"):
        return "configures a program (it may name code to run)"
    return None


def lookup(name: str) -> Program | None:
    """The table's entry for a program name (its base name: `/usr/bin/git` is `git`)."""
    return PROGRAMS.get(program_name(name))


# -- where bash evaluates text as code ------------------------------------------------------------------------
# A variable name with a subscript (`a[$(cmd)]`) has its subscript evaluated as arithmetic, and arithmetic runs
# any `$(...)` in a variable's text: every word bash reads as a name or as arithmetic must be a plain name or a
# plain number, else the line is opaque. `example` puts the evaluated word at {X}; the tests run every example.
@dataclass(frozen=True)
class Evaluates:
    """A builtin that reads some of its words as variable names or arithmetic."""

    names: str = ""  # which plain arguments are names: "all" (read), "assignments" (declare: name=value)
    name_options: frozenset[str] = frozenset()  # options whose value is a name (printf -v, test -v)
    values: frozenset[str] = frozenset()  # other options that take a value (read -p prompt)
    arithmetic: bool = False  # every plain argument is an expression (let)
    arithmetic_flag: str = ""  # the flag that makes an assignment's value arithmetic (declare -i)
    name_flag: str = ""  # the flag that makes an assignment's value a name (declare -n)
    example: str = ""


_DECLARE = Evaluates(names="assignments", arithmetic_flag="i", name_flag="n", example="declare {X}=1")
EVALUATES: dict[str, Evaluates] = {
    "printf": Evaluates(name_options=frozenset({"-v"}), example="printf -v {X} %s x"),
    "read": Evaluates(names="all", name_options=frozenset({"-a"}), values=frozenset({"-d", "-i", "-n", "-N", "-p",
                                                                                      "-t", "-u"}),
                      example="read {X} <<< x"),
    "mapfile": Evaluates(names="all", values=frozenset({"-d", "-n", "-O", "-s", "-u", "-C", "-c"})),
    "readarray": Evaluates(names="all", values=frozenset({"-d", "-n", "-O", "-s", "-u", "-C", "-c"})),
    "test": Evaluates(name_options=frozenset({"-v", "-R"}), example="test -v {X}"),
    "[": Evaluates(name_options=frozenset({"-v", "-R"}), example="[ -v {X} ]"),
    "declare": _DECLARE, "typeset": _DECLARE, "local": _DECLARE, "export": _DECLARE, "readonly": _DECLARE,
    "let": Evaluates(arithmetic=True, example="let {X}"),
    "unset": Evaluates(names="all"),
    "getopts": Evaluates(names="all"),
    "wait": Evaluates(name_options=frozenset({"-p"})),
}
# the same places in bash's syntax (judged on the parsed tree): example lines with {X}, one per construct
EVALUATED_SYNTAX: dict[str, str] = {
    "[[ -eq ]] operand": "[[ 1 -eq {X} ]]", "[[ -v ]] operand": "[[ -v {X} ]]",
    "(( )) on a variable": "x={X}; (( x ))", "$(( )) on a variable": "x={X}; echo $(( x ))",
    "a subscript in an assignment": "x={X}; a[$x]=1", "a subscript in an expansion": "x={X}; echo ${a[$x]}",
    "an indirect expansion": "x={X}; echo ${!x}", "a substring offset": "x={X}; echo ${x:x}",
    "an array literal's subscript": "x={X}; a=(); a+=([$x]=1)", "an integer variable": "declare -i n; n={X}",
    "a name reference": "declare -n r={X}; r=1", "declare -i's value": "declare -i n={X}",
    "[[ ]] on a variable": "x={X}; [[ $x -eq 1 ]]",
}
SAFE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?")
SAFE_ARITHMETIC = re.compile(r"[\s0-9+\-*/%<>=!&|^~?:,()]*")

# -- variables that make a program write a file ------------------------------------------------------------------
# name -> what writes there. A value that is a number or a switch (1, true) writes to standard error; any other
# value is a path written (`GIT_TRACE=/elsewhere/x git status`).
WRITE_VARIABLES: dict[str, str] = {
    **{f"GIT_TRACE{suffix}": "git writes its trace to the file it names" for suffix in (
        "", "2", "2_EVENT", "2_PERF", "_PACKET", "_PACK_ACCESS", "_PACKFILE", "_PERFORMANCE", "_SETUP",
        "_SHALLOW", "_CURL", "_REFS", "_FSMONITOR", "_REDACT")},
    "SSLKEYLOGFILE": "curl, python and node append TLS keys to the file it names",
    "LESSHISTFILE": "less writes its history there", "NODE_REPL_HISTORY": "node writes its history there",
    "SQLITE_HISTORY": "sqlite3 writes its history there", "PSQL_HISTORY": "psql writes its history there",
    "MYSQL_HISTFILE": "mysql writes its history there", "HISTFILE": "bash writes its history there",
    "PYTHONPYCACHEPREFIX": "python writes bytecode below it", "NODE_V8_COVERAGE": "node writes coverage below it",
    "LLVM_PROFILE_FILE": "programs built with coverage write their profile there",
    "GCOV_PREFIX": "programs built with coverage write below it", "MALLOC_TRACE": "glibc writes its trace there",
    "CARGO_TARGET_DIR": "cargo builds below it", "GOCACHE": "go writes its cache below it",
    "npm_config_cache": "npm writes its cache below it", "PIP_CACHE_DIR": "pip writes its cache below it",
    "PYTEST_DEBUG_TEMPROOT": "pytest writes below it", "COVERAGE_FILE": "coverage writes its data there",
}
_SWITCH_VALUE = re.compile(r"(?i)(|-?\d+|true|false|yes|no|on|off)")


def variable_writes(name: str, value: str | None) -> str | None:
    """Why `name=value` on the line makes a program write the file `value` names (None when it does not)."""
    why = WRITE_VARIABLES.get(name)
    if why is None or (value is not None and _SWITCH_VALUE.fullmatch(value)):
        return None
    return why

# -- what lands where: examples the tests run, one family per row ------------------------------------------------
# Each line, run, writes a protected file that a rule for its program must not cover. {T}: a template folder
# (it holds .gemini/s{N}.json, .husky/h{N}, .githooks/h{N} and d{N}/GEMINI.md); {D}: an existing folder.
LANDING_EXAMPLES: dict[str, tuple[str, ...]] = {
    "cp": ("cp -r {T}/. .", "cp -rT {T} .", "cp -a {T}/. ./", "cp -R {T}/.gemini .", "cp {T}/d{N}/GEMINI.md {D}",
           "cp -t {D} {T}/d{N}/GEMINI.md", "cp --target-directory={D} {T}/d{N}/GEMINI.md"),
    "mv": ("mv {T}/d{N} .", "mv {T}/d{N}/GEMINI.md {D}", "mv -t {D} {T}/d{N}/GEMINI.md"),
    "ln": ("ln {T}/d{N}/GEMINI.md {D}", "ln -s $PWD/{T}/d{N}/GEMINI.md {D}"),
    "install": ("install -t {D} {T}/d{N}/GEMINI.md", "install -m 644 {T}/d{N}/GEMINI.md {D}"),
    "rsync": ("rsync -a {T}/ .", "rsync -r {T}/.gemini ."),
}
# git commands that check out a tree: {R} is a branch whose tree holds .gemini/s.json, GEMINI.md and d/GEMINI.md
# (HEAD holds none); {C} a commit of HEAD's history whose revert brings GEMINI.md back; the stash holds them too
CHECKOUT_EXAMPLES: dict[str, tuple[str, ...]] = {
    "checkout": ("git checkout -q {R} -- .gemini GEMINI.md", "git checkout -q {R} -- .", "git checkout -q {R}",
                 "git checkout -q {R} -- '*.md'", "git checkout -q {R} .", "git checkout -q -f {R}~0"),
    "switch": ("git switch -q {R}", "git switch -q -c new {R}", "git switch -q --detach {R}"),
    "reset": ("git reset -q --hard {R}", "git reset -q --keep {R}"),
    "restore": ("git restore --source {R} .", "git restore -s {R} -W -- '*.md'", "git restore --source={R} :/"),
    "merge": ("git merge -q --ff-only {R}", "git merge -q --no-edit {R}"),
    "rebase": ("git rebase -q {R}",),
    "cherry-pick": ("git cherry-pick {R}",),
    "revert": ("git revert --no-edit {C}",),
    "stash": ("git stash pop -q", "git stash apply -q stash@{0}"),
    "pull": ("git pull -q --no-rebase --no-edit . {R}",),
    "clone": ("git clone -q -b {R} . c{N}",),
}
# what an archive or a patch lands: each line, run, writes .gemini/s{N}.json, d{N}/deep/GEMINI.md and .husky/h{N}
# from a{N}.tar, a{N}.tgz, z{N}.zip, p{N}.patch (a git diff) or m{N}.mbox (a mail of it)
UNPACK_EXAMPLES: dict[str, tuple[str, ...]] = {
    "tar": ("tar -xf a{N}.tar", "tar xf a{N}.tar", "tar -xzf a{N}.tgz"),
    "unzip": ("unzip -q z{N}.zip", "unzip -o z{N}.zip"),
    "patch": ("patch -p1 < p{N}.patch", "patch -p1 -i p{N}.patch"),
    "git am": ("git am -q m{N}.mbox", "git am -3 -q m{N}.mbox"),
    "git apply": ("git apply p{N}.patch", "git apply -v --reject p{N}.patch"),
}
# a name the line makes and then uses: {N} a fresh number; each line, run, writes into .git/hooks, ~/.ssh,
# ~/.bashrc or .gemini, or prints ~/.ssh/id_rsa; `x` and `x{N}` are files of the root
MADE_EXAMPLES: tuple[str, ...] = (
    "ln -s .git/hooks h{N}; cp x h{N}/p{N}",
    "mkdir -p d{N} && ln -s ~/.ssh d{N}/k && cp x d{N}/k/y{N}",
    "cp -s ~/.bashrc b{N}; echo x{N} >> b{N}",
    "ln -s .gemini g{N} && mv g{N} m{N} && cp x m{N}/s{N}.json",
    "ln -s ~/.ssh/id_rsa k{N}; cat k{N}",
    "for i in 1 2; do cp x l{N}/p{N} 2>/dev/null; ln -sfn .git/hooks l{N}; done",
    "ln -sfn $PWD/.git/hooks a{N}; cp -t a{N} x{N}",
)
