import os
import sys

# Make tests/cachesim.py importable as a plain module.
sys.path.insert(0, os.path.dirname(__file__))
