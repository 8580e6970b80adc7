pytest_plugins = ["akgentic.tool.core.testing"]
