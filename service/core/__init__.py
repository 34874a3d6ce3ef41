"""The referee's core."""
