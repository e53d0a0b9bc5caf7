"""Channels: where people meet the bot. Each turns what a person did into a ``flows.events`` event,
hands it to the engine and shows the replies its own way (``console``: the terminal demo)."""
