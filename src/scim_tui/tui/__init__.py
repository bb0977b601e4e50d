"""The Textual application over the checker engine."""
