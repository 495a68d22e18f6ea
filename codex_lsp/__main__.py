"""`python -m codex_lsp` runs the command line."""

import sys

from codex_lsp.cli.main import main

sys.exit(main())
