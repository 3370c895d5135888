"""The rules of each game as pure functions: validate an action, turn it into events, fold events into state."""
