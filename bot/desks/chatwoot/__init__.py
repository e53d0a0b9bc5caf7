"""The Chatwoot desk: an API-channel inbox of a Chatwoot account, one contact and one conversation
per subscriber chat (``client``), and the webhook Chatwoot posts its agents' replies to (``webhook``)."""
