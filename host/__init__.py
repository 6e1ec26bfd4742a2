"""The host: the launcher, its backends and clusters, the drivers, verification against ALE,
benches, reports and the ``nc2600`` command.

Its sub-packages form layers; a module imports only from its own layer or those below
(``tests/architecture/test_import_direction.py`` checks it, lazy imports included):

0. the shared vocabulary: :mod:`~nc2600.host.episodes` (the env protocol, jobs and results,
   process helpers, the float policy network), the game catalogue :mod:`~nc2600.host.games`, run folders
   :mod:`~nc2600.host.rundir`, user errors and their checks (:mod:`~nc2600.host.errors`,
   :mod:`~nc2600.host.cli_types`, :mod:`~nc2600.host.resources`, :mod:`~nc2600.host.inputs`), the stop
   signals :mod:`~nc2600.host.signals`, the gymnasium ids, TensorBoard scalars;
1. :mod:`~nc2600.host.drivers` (the Verilated console and the fabric instance);
2. :mod:`~nc2600.host.verify` (ALE against the RTL);
3. :mod:`~nc2600.host.launcher` (runs, the local pool, the backend registry);
4. :mod:`~nc2600.host.cluster` (Ray; it registers ``--cluster ray`` with the launcher's registry
   and the sweeps when imported);
5. :mod:`~nc2600.host.bench`, :mod:`~nc2600.host.report`, :mod:`~nc2600.host.gym_env`;
6. :mod:`~nc2600.host.commands`;
7. :mod:`~nc2600.host.cli` and :mod:`~nc2600.host.api`.
"""
