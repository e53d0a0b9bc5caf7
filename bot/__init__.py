"""ispbot: the front desk of an internet-service provider on Telegram."""
