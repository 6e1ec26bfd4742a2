"""Drivers of the hardware: the Verilated console run as ALE runs its emulator, the RTL backend of
the launcher's instance interface, and the fabric instance driven through its registers."""
