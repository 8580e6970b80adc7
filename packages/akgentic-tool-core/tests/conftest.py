"""Fixtures come from the root conftest (the tool-core testing kit)."""
