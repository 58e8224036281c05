"""director_fast.jobs: batch work and the command line.

Owns the ``director-fast`` CLI (``cli.py``), the resumable guard job over JSONL / Parquet files
(``guard_job.py``), the Ray engine (``distributed.py``) and the ONNX export of NLI models
(``export.py``). The top of the stack: may import every layer except :mod:`director_fast.core`
and the package's ``__init__``.
"""
