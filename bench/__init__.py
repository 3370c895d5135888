"""Benchmarks of Loom: one script per benchmark, run as `python bench/<name>.py`; see bench/README.md."""
