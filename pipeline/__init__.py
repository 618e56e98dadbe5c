"""A memory-aware command-line assistant: two LLM passes per turn and a programmatic gate."""

__version__ = "0.1.0"
