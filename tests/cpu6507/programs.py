"""Whole test programs (assembly source for asm.py), each ending in a JMP-to-itself trap at `done`."""

# Bubble sort of 128 bytes filled by an 8-bit Galois LFSR; then a self-check writes
# $01 to $0300 if the array is sorted, $FF otherwise.
SORT = """
        LDX #$00
        LDA #$A5
fill:   ASL
        BCC nofb
        EOR #$1D
nofb:   STA $0400,X
        INX
        CPX #$80
        BNE fill
outer:  LDY #$00          ; swapped flag
        LDX #$00
inner:  LDA $0400,X
        CMP $0401,X
        BCC noswap
        BEQ noswap
        PHA
        LDA $0401,X
        STA $0400,X
        PLA
        STA $0401,X
        LDY #$01
noswap: INX
        CPX #$7F
        BNE inner
        CPY #$00
        BNE outer
        LDX #$00          ; self-check
check:  LDA $0400,X
        CMP $0401,X
        BEQ next
        BCS bad
next:   INX
        CPX #$7F
        BNE check
        LDA #$01
        STA $0300
        JMP done
bad:    LDA #$FF
        STA $0300
done:   JMP done
"""

# A 4-digit BCD counter at $10 (high) $11 (low), counted from 0000 to 9999 and once more
# (wraps to 0000 with C = 1), with the decimal flag; the final flags come from binary ops.
BCD_COUNTER = """
        SED
        LDA #$00
        STA $10
        STA $11
        STA $12           ; carry-out count
loop:   CLC
        LDA $11
        ADC #$01
        STA $11
        LDA $10
        ADC #$00
        STA $10
        BCS wrapped
        JMP loop
wrapped: INC $12
        CLD
        CLV
        LDA $10
        ORA $11
done:   JMP done
"""

# Recursion through JSR/RTS: f(n) = n + f(n-1), 16-bit sum in $20/$21, called with n = 60,
# registers saved on the stack with PHA/PHP/TXA/TYA, stack pointer checked with TSX.
STACK = """
        LDX #$FF
        TXS
        LDA #$00
        STA $20
        STA $21
        LDA #60
        JSR sum
        TSX
        STX $22           ; must be $FF again
        JMP done
sum:    PHP
        PHA
        CMP #$00
        BEQ base
        CLC
        ADC $20
        STA $20
        LDA $21
        ADC #$00
        STA $21
        PLA
        PHA
        SEC
        SBC #$01
        TAY
        TYA
        JSR sum
base:   PLA
        PLP
        RTS
done:   JMP done
"""

# Indirect JMP with the NMOS page-wrap bug: JMP ($12FF) takes its high byte from $1200.
INDIRECT = """
        LDA #<right
        STA $12FF
        LDA #>right
        STA $1200         ; the bug: high byte read here
        LDA #>wrong
        STA $1300         ; what a fixed part would read
        LDY #$00
        JMP ($12FF)
        .org $1080
wrong:  LDY #$EE
        JMP done
        .org $10C0
right:  LDY #$42
        LDX #$10
again:  DEX
        BNE again
done:   JMP done
"""

# Interrupts off: SEI, then BRK through the vector at $FFFE to a handler that counts and
# returns with RTI; I stays set, the pushed P has B set.
INTERRUPTS = """
        SEI
        LDX #$00
        LDA #<handler
        STA $FFFE
        LDA #>handler
        STA $FFFF
loop:   BRK
        .byte $EA         ; BRK's padding byte
        INX
        CPX #$20
        BNE loop
        PHP
        PLA
        STA $30           ; P with I set
        JMP done
handler: INC $31
        STX $33           ; keep the loop counter
        TSX
        LDA $0101,X       ; the P pushed by BRK
        STA $32
        LDX $33
        RTI
done:   JMP done
"""

PROGRAMS = {"sort": SORT, "bcd_counter": BCD_COUNTER, "stack": STACK, "indirect": INDIRECT,
            "interrupts": INTERRUPTS}
