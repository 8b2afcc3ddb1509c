"""Sessions of one window in the same folder share its shadow repository (and a session's subagents run at once):
their snapshots and "state after a change" reads, from several threads at once, never trip over git's index lock."""

from __future__ import annotations

import threading
from pathlib import Path

from gemini_tui.core.persistence.shadow_repo import CheckpointError, ShadowRepo

ROUNDS = 12


def test_sessions_sharing_a_shadow_repository_take_turns(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    for n in range(30):
        (root / f"file{n}.txt").write_text(f"{n}\n")
    git_dir = tmp_path / "history" / "shadow"
    repos = [ShadowRepo(root, git_dir) for _ in range(3)]  # one per session, as each session builds its own
    repos[0].ensure()
    failures: list[str] = []

    def work(repo: ShadowRepo, index: int) -> None:
        for n in range(ROUNDS):
            try:
                (root / f"session{index}.txt").write_text(f"{n}\n")
                repo.tree_now()
                repo.snapshot({"tool": "write_file", "session": str(index), "position": n})
            except CheckpointError as exc:
                failures.append(str(exc))

    threads = [threading.Thread(target=work, args=(repo, i)) for i, repo in enumerate(repos)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert failures == []
    assert len(repos[0].git("rev-list", "refs/heads/checkpoints").split()) == ROUNDS * len(repos)
