"""The workspace tool of akgentic (not implemented yet: see this package's README)."""
