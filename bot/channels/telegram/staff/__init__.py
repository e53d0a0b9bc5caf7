"""Support staff answering handed-off conversations in the forum topics of a supergroup: the desk
(``desk.py``), its commands (``commands.py``, the table the desk imports) and a topic (``topic.py``)."""
