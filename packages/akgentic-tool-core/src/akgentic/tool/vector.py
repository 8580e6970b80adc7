"""Withdrawn module: the vector primitives moved to ``akgentic.tool.vector_store.vector``.

Importing this module fails on purpose, with the path to use instead.
"""

raise ImportError(
    "akgentic.tool.vector was withdrawn; import VectorEntry, EmbeddingService and VectorIndex "
    "from akgentic.tool (root) or akgentic.tool.vector_store.vector "
    "(distribution akgentic-tool-vector-store)"
)
