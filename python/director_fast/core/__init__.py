"""director_fast.core: the import paths of director-ai's ``director_ai.core`` (same names)."""
