"""Verification against ALE (the oracle): opening ALE, the game catalogue and rules table,
recordings, lockstep of the console RTL, the preprocessor check, and sweeps over games."""
