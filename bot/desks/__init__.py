"""Staff desks: where support staff answer handed-off conversations. ``base`` is the port every desk
implements; ``worker`` carries out the engine's desk jobs through it; one package per desk."""
