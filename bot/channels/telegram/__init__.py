"""The Telegram channel (``channel.py``): updates read (``updates``), stored (``intake``, fed by
``polling`` or the webhook), replies rendered as Bot API calls (``render``) and delivered by a
rate-limited sender that keeps each chat's order (``sender``); the staff desk on forum topics (``desk``).
The package imports nothing itself, so a module of it never imports the others through it."""
