"""``python -m launchx`` behaves exactly like the ``launchx`` command."""

from launchx.cli import main

main()
