"""Benchmarks with the targets they must reach; `python -m bench` runs them all."""
