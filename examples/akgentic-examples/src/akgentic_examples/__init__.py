"""Runnable examples of the akgentic packages working together (not published).

- :mod:`akgentic_examples.demo`: the demo team (``python -m akgentic_examples.demo --help``);
- :mod:`akgentic_examples.demo_team`: the glue it runs on (``LlmMember``, ``TaskMessage``,
  ``Script``, ``LivePrinter``), also used by the integration tests and the team benchmark.
"""
