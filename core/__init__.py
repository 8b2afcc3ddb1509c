"""The agent core, in rooms by concern; never imports Textual, the app, the CLI or the tools.

From the ground up: `ground` (the shared words), `processes` (children, sandbox, shell grammar), `persistence`
(saved sessions, checkpoints), `tooling` (the tool API, registry), `approvals` (policy, grants, trust, hooks),
`setup` (settings, context, commands, extensions), `mcp`, `session` (the turn loop) and `models`. A room imports
only rooms below it (tests/architecture checks it)."""
