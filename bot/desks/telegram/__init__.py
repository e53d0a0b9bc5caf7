"""The Telegram desk: one forum topic of the staff supergroup per handed-off conversation (``desk``)."""
