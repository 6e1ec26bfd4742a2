"""Evaluation on a Ray cluster: the connection to Ray, the node evaluators, and the process
supervisor of a Ray driver."""
