"""``python -m acceptability.reports.cli``: the ``acceptability`` command."""

import sys

from acceptability.reports.cli.commands import main

sys.exit(main())
