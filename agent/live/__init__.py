"""The live loop: one utterance of a session in, a decision and its captions out; the gate and the sessions."""
