"""The words of a compression request: the marker that begins its system instruction, the instruction, the last
ask and the acknowledgement that follows a snapshot. The session writes them (`core/session/compression.py`); the
offline model recognises them (`core/models/offline_snapshot.py`)."""

SNAPSHOT_MARKER = "[gemini-tui compression]"  # begins the system instruction of a summarising request

COMPRESSION_INSTRUCTION = f"""{SNAPSHOT_MARKER}
You are condensing the earlier part of a conversation between a user and a coding agent so the agent can go on
without it. Write only a <state_snapshot> element with these children, each brief and exact:
<overall_goal>what the user wants, in one sentence</overall_goal>
<key_knowledge>facts, constraints and conventions learnt (commands, paths, decisions), as bullet points</key_knowledge>
<file_system_state>files read, created, changed or deleted, and what matters about each</file_system_state>
<recent_actions>the last few significant actions and their results</recent_actions>
<current_plan>the steps of the plan, each marked [DONE], [IN PROGRESS] or [TODO]</current_plan>
Keep every name, path and number that the rest of the work may need. Leave out pleasantries and anything the
agent will not need again."""
FINAL_ASK = "Condense everything above into the <state_snapshot> now."
ACKNOWLEDGEMENT = "Understood. I have the state snapshot and will continue from it."
