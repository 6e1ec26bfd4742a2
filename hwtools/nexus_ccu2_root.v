// Yosys techmap run by hwtools.nexus between synth_nexus's map_luts and map_cells steps.
//
// Contract: leaves the CIN port of a carry chain's feed-in CCU2 unconnected when it is tied to
// constant 0, and changes no other cell. nextpnr-nexus packs a chain from its root, a CCU2 whose
// CIN is unconnected; a CIN driven by any cell that is not a CCU2 (a VLO constant cell included)
// stops packing ("CCU2 ... CIN net ... driven by non-CCU2 cell ... VLO"). Yosys's
// lattice/arith_map_nexus.v starts every chain with a feed-in CCU2 whose CIN it leaves
// unconnected, but abc9 (map_luts) reconnects the unconnected input of every abc9_box to 0, and
// map_cells then drives that 0 from a VLO cell.
//
// Only the feed-in pattern is remapped (INJECT "NO", INIT0 0xFFFF, INIT1 0x00AA, B1 = C1 = D1 = 1,
// as arith_map_nexus.v writes it): by the CCU2 model (lattice/cells_sim_nexus.v) its COUT is A1
// for any CIN (LUT4_1 = INIT1[14 or 15] = 0, so COUT = LUT3_1 = INIT1[6 + A1] = A1), and its S0/S1
// are left unconnected by arith_map, so the netlist's function is unchanged.
(* techmap_celltype = "CCU2" *)
module _nc2600_nexus_ccu2_root (CIN, A0, B0, C0, D0, A1, B1, C1, D1, S0, S1, COUT);
	parameter INJECT = "YES";
	parameter INIT0 = "0x0000";
	parameter INIT1 = "0x1111";
	input CIN, A0, B0, C0, D0, A1, B1, C1, D1;
	output S0, S1, COUT;

	parameter _TECHMAP_CONSTMSK_CIN_ = 0;
	parameter _TECHMAP_CONSTVAL_CIN_ = 0;
	parameter _TECHMAP_CONSTMSK_B1_ = 0;
	parameter _TECHMAP_CONSTVAL_B1_ = 0;
	parameter _TECHMAP_CONSTMSK_C1_ = 0;
	parameter _TECHMAP_CONSTVAL_C1_ = 0;
	parameter _TECHMAP_CONSTMSK_D1_ = 0;
	parameter _TECHMAP_CONSTVAL_D1_ = 0;

	localparam FEED_IN = INJECT == "NO" && INIT0 == "0xFFFF" && INIT1 == "0x00AA"
		&& _TECHMAP_CONSTMSK_B1_ == 1 && _TECHMAP_CONSTVAL_B1_ === 1'b1
		&& _TECHMAP_CONSTMSK_C1_ == 1 && _TECHMAP_CONSTVAL_C1_ === 1'b1
		&& _TECHMAP_CONSTMSK_D1_ == 1 && _TECHMAP_CONSTVAL_D1_ === 1'b1;
	localparam CIN_ZERO = _TECHMAP_CONSTMSK_CIN_ == 1 && _TECHMAP_CONSTVAL_CIN_ === 1'b0;
	wire _TECHMAP_FAIL_ = !(FEED_IN && CIN_ZERO);

	CCU2 #(.INJECT(INJECT), .INIT0(INIT0), .INIT1(INIT1)) _TECHMAP_REPLACE_ (
		.CIN(), .A0(A0), .B0(B0), .C0(C0), .D0(D0), .A1(A1), .B1(B1), .C1(C1), .D1(D1),
		.S0(S0), .S1(S1), .COUT(COUT));
endmodule
