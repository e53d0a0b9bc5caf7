"""The ``ispbot`` commands, one module each, and what they share (``support``).

A command module has a ``register(subparsers)`` that adds its parser (help from its docstring or
``DESCRIPTION``) with ``func`` set to its ``run(args) -> int`` (the exit code), and is named in
``bot.cli.COMMANDS``. Registering imports only light modules, so ``ispbot --help`` stays quick
(``tests/app/test_cli.py`` checks which modules it loads): settings classes, the store, the client,
the flows and the channels are imported inside the functions that use them. Settings are read with
``support.load``/``load_all`` (a ``Refused`` names each wrong variable), the database is opened with
``support.store()`` or ``support.open_database`` (the one seam tests swap), and a command with
actions runs them through ``support.run_action``.
"""
