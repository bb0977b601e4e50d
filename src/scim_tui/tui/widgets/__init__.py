"""The widgets of the app's screens."""
