"""``python -m atma ...`` is the ``atma`` console script."""

from atma.cli import main

raise SystemExit(main())
