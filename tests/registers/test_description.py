"""The register description (hls_models/registers/nc2600.rdl): every generated file is what
systemrdl-compiler and the PeakRDL exporters make of it today, the compiler's diagnostics reach the user, and its
enumerations equal the RTL's own encodings (nc2600.hw.frame_skip, nc2600.hw.cartridge, nc2600.hls_models.cartridge,
nc2600.hls_models.policy_engine: independent definitions of the same values)."""
import pytest

from nc2600.hls_models.registers import ENUMS, INSTANCE, NODE
from nc2600.hwtools import registers


def test_generated_files_are_current():
    stale = registers.stale()
    assert not stale, f"stale: {[str(p.relative_to(registers.REPO_ROOT)) for p in stale]} (run `make regs`)"


def test_malformed_description_fails_with_the_compilers_message(tmp_path):
    bad = tmp_path / "bad.rdl"
    bad.write_text(registers.RDL.read_text().replace("} EP_CFG @ 0x010;", "} EP_CFG @ 0x00C;"))
    with pytest.raises(registers.RegisterDescriptionError, match=r"bad\.rdl:\d+: error: .*overlap"):
        registers.compile_description(bad, "instance")
    bad.write_text("addrmap instance { reg { field {} f[0:0]; } R @ 0x0 }")     # missing ';'
    with pytest.raises(registers.RegisterDescriptionError, match=r"bad\.rdl:1: error"):
        registers.compile_description(bad, "instance")


def test_enumerations_equal_the_rtls_encodings():
    from nc2600.hls_models.cartridge import MAPPER_CODES
    from nc2600.hw.cartridge import Mapper
    from nc2600.hw.frame_skip import Phase, State
    from nc2600.hls_models.policy_engine import SPACE_BIASES, SPACE_CONFIG, SPACE_WEIGHTS
    assert {m.name: m.value for m in ENUMS["ctrl_state_e"]} == {s.name: s.value for s in State}
    assert {m.name: m.value for m in ENUMS["phase_e"]} == {p.name: p.value for p in Phase}
    mappers = ENUMS["mapper_e"]
    assert {m.name: m.value for m in mappers} == {m.name: m.value for m in Mapper}
    assert {mappers.labels[m]: m.value for m in mappers} == MAPPER_CODES
    spaces = ENUMS["param_space_e"]
    assert (spaces.WEIGHTS, spaces.BIASES, spaces.CONFIG) == (SPACE_WEIGHTS, SPACE_BIASES, SPACE_CONFIG)


def test_map_facts_worked_by_hand():
    """Offsets, widths and packing against the values read off the description by hand."""
    assert (INSTANCE.ID.offset, INSTANCE.ID.reset) == (0x000, 0x4E433236)
    assert INSTANCE.NEEDED.addresses == [0x20, 0x24, 0x28, 0x2C]
    assert INSTANCE.ACTION_TABLE.address(17) == 0xC0 + 17 * 4
    assert INSTANCE.INPUTS.reset == 0xFF | 0x3F << 8 | 1 << 16 | 1 << 17 | 0xAA << 18
    assert INSTANCE.EP_CFG.pack(noops=7, noop_index=0, fire_en=1, fire_index=1, frame_skip=4, n_actions=6) \
        == 7 | 1 << 10 | 1 << 11 | 4 << 16 | 6 << 24
    assert INSTANCE.CONSOLE_CFG.pack(mapper=ENUMS["mapper_e"].F8SC, pal=1, ystart=34, height=210) \
        == 4 | 1 << 4 | 34 << 6 | 210 << 15
    assert INSTANCE.STATUS.unpack(0x0002_0404).state == ENUMS["ctrl_state_e"].RULES
    assert INSTANCE.STATUS.unpack(0x0002_0404).err_rom_size == 1
    assert INSTANCE.REWARD.pack(value=-3) == 0xFFFFFFFD and INSTANCE.RETURN.value.get(0xFFFFFFFD) == -3
    assert (NODE.instances, NODE.stride, NODE.select_bit, NODE.addr_width) == (2, 0x20000, 17, 18)
    assert INSTANCE.at(0x0C8) == (INSTANCE.ACTION_TABLE, 2) and INSTANCE.at(0x05C) is None


def test_packing_checks_the_field_width():
    with pytest.raises(ValueError, match=r"EP_CFG\.fire_index: 32 does not fit 5 bits"):
        INSTANCE.EP_CFG.pack(fire_index=32)
    with pytest.raises(ValueError, match=r"REWARD\.value: .* does not fit 32 bits"):
        INSTANCE.REWARD.pack(value=1 << 31)
    with pytest.raises(ValueError, match=r"CONSOLE_CFG\.ystart: -1"):
        INSTANCE.CONSOLE_CFG.pack(ystart=-1)
    with pytest.raises(ValueError, match="EP_CFG has no field skip"):
        INSTANCE.EP_CFG.pack(skip=4)
    with pytest.raises(IndexError):
        INSTANCE.NEEDED.address(4)


def test_rtl_register_groups_follow_the_description(monkeypatch):
    """nc2600.hw.instance implements exactly the description's groups; a command register the RTL does
    not implement (a new write-only register in the description) fails elaboration's check."""
    import dataclasses

    import nc2600.hw.instance as inst
    from nc2600.hls_models.registers import RegisterMap
    groups = inst.check_groups()
    assert sorted(sum(groups.values(), [])) == sorted(r.name for r in INSTANCE)
    assert groups["commands"] == ["CONTROL", "RULES", "MEM_DATA", "ROM_SIZE", "PARAM_DATA"]
    assert groups["windows"] == ["RIOT_RAM", "CART_RAM"]
    extra = dataclasses.replace(INSTANCE.RULES, name="VALUES_GO", offset=0x188, _by_name={})
    monkeypatch.setattr(inst, "R", RegisterMap("instance", "", "", [*INSTANCE, extra]))
    with pytest.raises(ValueError, match="VALUES_GO"):
        inst.check_groups()
