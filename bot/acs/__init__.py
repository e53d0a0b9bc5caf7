"""The ISP's TR-069 ACS (GenieACS) through its northbound interface (NBI): the customers' routers and
ONUs read and set from the chat. ``AcsSettings`` (``ISPBOT_ACS_*``; unset, none of this is used),
``AcsClient`` (HTTP over a transport seam), ``Device`` (a device document read as a technician reads
it: its data model, Wi-Fi networks, fiber signal, WAN state, connected hosts)."""

from bot.acs.client import AcsClient, TaskOutcome
from bot.acs.device import Device, Signal, WifiNetwork, signal_level
from bot.acs.errors import AcsError, AcsOutOfTime, AcsRefused, AcsUnavailable, AcsUnknownDevice
from bot.acs.settings import AcsSettings

__all__ = [
    "AcsClient", "AcsError", "AcsOutOfTime", "AcsRefused", "AcsSettings", "AcsUnavailable", "AcsUnknownDevice",
    "Device", "Signal", "TaskOutcome", "WifiNetwork", "signal_level",
]
