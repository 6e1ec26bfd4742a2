"""Verification against ALE (the oracle): recordings, lockstep of the console RTL, the game
rules' check, the preprocessor check, and sweeps over games."""
