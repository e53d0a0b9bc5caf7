"""The languages the bot speaks, the first its default: a module of their own, so a command's
``--help`` can list them without loading the templates (``bot.i18n`` re-exports them)."""

LANGUAGES = ("pt_BR", "en", "es")
DEFAULT_LANGUAGE = "pt_BR"
