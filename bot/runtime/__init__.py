"""The bot's runtime above its channels: the composition root (``app``), the processor, the heartbeat."""
