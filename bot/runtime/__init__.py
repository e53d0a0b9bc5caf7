"""The bot's runtime, above its channels: the composition root (``app.build_app``), the processor
(inbox claims, leases, per-chat order, retries), the heartbeat, the housekeeping, and the commands
that start the bot (``run``: ``ispbot run``; ``demo``: ``ispbot demo``). Nothing below imports it."""
