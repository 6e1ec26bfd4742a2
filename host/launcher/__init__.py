"""The launcher: neuroevolution runs (GA, ES, random search), their run folders, the policy
network, the local evaluator (worker processes over game instances), and replaying a saved agent."""
