"""Who may run what: the one policy that decides allow / ask / deny for a call and says which rule decided
(`policy`), grants remembered for the session or always (`grants`), trusted folders (`trust`) and the user's
BeforeTool/AfterTool hooks (`hooks`).

Tools describe a call (`tooling.CallNeeds`); this room judges it; the scheduler asks it and never decides."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gemini_tui.core.ground.lazy_face import lazy_face

if TYPE_CHECKING:
    from gemini_tui.core.approvals.grants import GrantStore
    from gemini_tui.core.approvals.hooks import Hooks
    from gemini_tui.core.approvals.policy import ApprovalMode, ApprovalPolicy, Decision, Verdict
    from gemini_tui.core.approvals.trust import TrustedFolders, TrustLevel

__all__ = [
    "ApprovalMode", "ApprovalPolicy", "Decision", "GrantStore", "Hooks", "TrustLevel", "TrustedFolders",
    "Verdict",
]

__getattr__ = lazy_face(__name__, {
    "gemini_tui.core.approvals.policy": ("ApprovalMode", "ApprovalPolicy", "Decision", "Verdict"),
    "gemini_tui.core.approvals.grants": ("GrantStore",),
    "gemini_tui.core.approvals.hooks": ("Hooks",),
    "gemini_tui.core.approvals.trust": ("TrustLevel", "TrustedFolders"),
})
