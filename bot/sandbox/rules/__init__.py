"""The state rules, one module per family; importing this package registers every operation."""

from bot.sandbox.rules import auth, billing, contracts, customers, finance, network, plans, stock, tickets

__all__ = ["auth", "billing", "contracts", "customers", "finance", "network", "plans", "stock", "tickets"]
