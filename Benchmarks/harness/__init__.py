"""PushMedia's benchmark harness, run by Benchmarks/run.py."""
