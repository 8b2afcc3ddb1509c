"""Screens of the app: the main screen (chat, queue, prompt, side panel)."""
