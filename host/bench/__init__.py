"""Benchmarks that print figures (``nc2600 bench ...``): the evaluation loop, the policy paths,
the console RTL and Ray's costs."""
