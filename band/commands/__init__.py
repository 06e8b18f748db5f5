"""The ``band`` command's subcommand groups, one module each (``band.cli`` registers them)."""
