"""director_fast: fast, correct guardrails for LLM output (director-ai compatible API)."""
from director_fast._core import __version__
