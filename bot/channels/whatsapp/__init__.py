"""The WhatsApp channel, over the official Cloud API (``channel.WhatsAppChannel``)."""
