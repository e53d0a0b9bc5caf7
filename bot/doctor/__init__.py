"""``ispbot doctor``: the configuration checked against reality (see ``bot.doctor.cli``)."""
