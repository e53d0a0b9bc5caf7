"""Staff desks: where support staff answer handed-off conversations (a Telegram forum, Chatwoot).
What staff do is decided in ``flows/staff``; a desk only carries it."""
