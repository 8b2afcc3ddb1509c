"""Screens of the app: the main screen and the modals over it (diff review, help, a history call in full)."""
