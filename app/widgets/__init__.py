"""The app's widgets: the panes and bars a screen composes."""
