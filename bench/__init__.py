"""Benchmarks (`make bench`): every ``bench/bench_*.py`` module's ``main()`` in turn."""
