"""The screens of the app."""
