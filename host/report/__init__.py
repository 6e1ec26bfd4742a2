"""The cycle-accurate throughput report (``nc2600 report``)."""
