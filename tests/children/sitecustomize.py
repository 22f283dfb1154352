"""Run at the start of every Python process the tests start (conftest's ``environment()`` puts this folder
on its ``PYTHONPATH``): the cheap password hashes of ``tests/cheap_hashes.py``."""

import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))
try:
    import cheap_hashes
except ImportError:  # argon2 missing: nothing to make cheap
    pass
else:
    cheap_hashes.install()
