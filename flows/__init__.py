"""Channel-agnostic conversations: the engine and one package per role."""
