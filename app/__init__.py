"""The Textual application: screens, widgets, and the adapter from core events to widgets."""
