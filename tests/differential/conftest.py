"""The differential suite's helpers (``_diff``, ``_ew_rules``) import as top-level modules
under any pytest import mode."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
