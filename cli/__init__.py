"""The `logs` command line."""
