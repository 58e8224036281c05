"""director_fast.diagnostics: checks and reports beside the verdict.

Owns numeric verification (``numeric_verify.py``), citation markers against sources
(``citations.py``), tool-call confidence and argument schemas (``confidence.py``), threshold
calibration (``calibration.py``), detection metrics (``metrics.py``) and fine-tune data checks
(``finetune.py``). May import the base modules, :mod:`director_fast.safety`,
:mod:`director_fast.types`, :mod:`director_fast.verify` and :mod:`director_fast.memory`.
"""
