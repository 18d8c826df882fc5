"""``python -m benchmarks``: run the benchmark harness (see run.py)."""
import sys

from .run import main

sys.exit(main())
