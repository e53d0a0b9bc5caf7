"""The bot's runtime, above its channels: the composition root (``app.build_app``), the processor
(inbox claims, leases, per-chat order, retries), the heartbeat, the housekeeping, and what the
commands start (``run``: the bot of ``ispbot run``; ``demo``: ``ispbot demo``'s chat; the commands
themselves are ``bot.commands``). Nothing below imports it."""
