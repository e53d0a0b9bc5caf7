"""``ispbot doctor``: the configuration checked against reality (see ``bot.commands.doctor``)."""
