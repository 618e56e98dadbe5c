#!/usr/bin/env python3
"""Entry point: `python memory_test.py -i "..."` runs one turn (see --help)."""

import sys
from pathlib import Path

from pipeline.cli import main

if __name__ == "__main__":
    # Run from the checkout: state/ and .env live in this folder (installed, they do not).
    sys.exit(main(project_dir=Path(__file__).resolve().parent))
