"""The BPE lab: BPE training replayed merge by merge, ownbpe beside Hugging Face, merge traces."""
