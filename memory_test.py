#!/usr/bin/env python3
"""Entry point: `python memory_test.py -i "..."` runs one turn (see --help)."""

import sys

from pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main())
