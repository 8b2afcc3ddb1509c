"""The ACP front end (`gemini-tui --acp`): the Agent Client Protocol on stdio, beside the app and headless mode."""
