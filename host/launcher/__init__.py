"""The launcher: neuroevolution runs (GA, ES, random search), the policy network, the local
evaluator (worker processes over game envs), and replaying a saved agent."""
