"""`python -m pipeline` is `coordscope`."""

import sys

from pipeline.cli import main

sys.exit(main())
