"""The lowest layer of the host: what every evaluator, driver and command shares about playing
episodes. :mod:`~nc2600.host.episodes.env` (the per-game env protocol, :class:`GameEnv`, the
launcher's protocol runner :class:`ProtocolEnv` and the ALE env), :mod:`~nc2600.host.episodes.ale_oracle`
(opening ale-py as the oracle), :mod:`~nc2600.host.episodes.jobs` (jobs, results, a dead worker) and
:mod:`~nc2600.host.episodes.processes` (process and shared-memory helpers), the float policy
network every backend plays (:mod:`~nc2600.host.episodes.policy`) and the calibration observations
of ``--policy int8`` (:mod:`~nc2600.host.episodes.calibration`). It imports nothing of the host
above it (``tests/architecture``)."""
