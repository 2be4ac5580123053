"""Report assembly, fingerprints, markdown, and atomic artifact staging."""
