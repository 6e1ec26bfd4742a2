"""The gymnasium ids of the games, registered without loading the environment's module.

``nc2600/<Game>-v0`` for each of the 104 games ALE 0.12 loads (``<Game>`` is the CamelCase of
ALE's id: ``boxing`` -> ``Boxing``, ``montezuma_revenge`` -> ``MontezumaRevenge``); the entry
point is :class:`nc2600.host.gym_env.Nc2600Env` with ``game`` fixed, imported by gymnasium at
the first ``gymnasium.make``. Every other constructor argument is a ``gymnasium.make`` keyword,
``backend="ale"`` (default) or ``backend="rtl"`` (the Verilated console) among them.

The game ids come from the rules table (``hls_models/game_rules.toml``, read with
:mod:`tomllib`), which holds exactly the games ALE 0.12 loads (``tests/game_rules`` checks it
against ale-py), so registering costs neither ale-py nor numpy. :func:`register_ids` is called
by ``import nc2600`` (when gymnasium is imported, before or after) and by
:mod:`nc2600.host.gym_env`.
"""
from __future__ import annotations

import tomllib

NAMESPACE = "nc2600"
#: where gymnasium finds the environment class of every id
ENTRY_POINT = "nc2600.host.gym_env:Nc2600Env"


def env_id(game: str) -> str:
    """The registered id of ALE game id ``game``: ``"nc2600/" + CamelCase + "-v0"``."""
    return f"{NAMESPACE}/{''.join(part.capitalize() for part in game.split('_'))}-v0"


def game_ids() -> tuple[str, ...]:
    """The ALE ids of the games, sorted: the sections of the rules table (104 names)."""
    from nc2600.hls_models.game_rules import RULES_PATH
    with open(RULES_PATH, "rb") as f:
        return tuple(sorted(tomllib.load(f)["games"]))


def register_ids() -> list[str]:
    """Register ``nc2600/<Game>-v0`` for every game (idempotent: an id already registered is
    left as it is); returns the ids in game order."""
    import gymnasium
    ids = []
    for game in game_ids():
        name = env_id(game)
        if name not in gymnasium.registry:
            gymnasium.register(id=name, entry_point=ENTRY_POINT, kwargs={"game": game})
        ids.append(name)
    return ids
