"""akgentic-llm (not implemented yet: see this package's README)."""
