"""The CI rotation (tests/rotation.py): groups partition the sweep, the seed picks one."""
from tests import rotation


def test_groups_partition_the_items_and_the_seed_picks_one(monkeypatch):
    items = [f"g{i:03d}" for i in range(98)]
    seen = []
    for seed in range(13):                       # ceil(98 / 8) = 13 groups
        monkeypatch.setenv("NC2600_ROTATION", str(seed))
        rotation.commit_seed.cache_clear()
        group = rotation.rotating_subset(items, 8)
        assert 7 <= len(group) <= 8
        seen += group
    rotation.commit_seed.cache_clear()
    assert sorted(seen) == items                 # 13 consecutive seeds cover every item once
    monkeypatch.setenv("NC2600_ROTATION", "3")
    assert rotation.rotating_subset(items, 8) == items[3::13]
    assert rotation.rotating_subset(items, 8, salt="x") != items[3::13]   # another sweep, another group
    rotation.commit_seed.cache_clear()


def test_the_seed_is_the_commit_id(monkeypatch):
    import subprocess
    monkeypatch.delenv("NC2600_ROTATION", raising=False)
    rotation.commit_seed.cache_clear()
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=rotation.REPO, capture_output=True, text=True).stdout
    assert rotation.commit_seed() == int(sha[:12], 16)
    rotation.commit_seed.cache_clear()
