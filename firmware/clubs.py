"""Renamed :mod:`firmware.club_settings` (beside the club wing, ``firmware/club/``, the old name read as
its twin). Kept only for firmware/config.py, being rewritten apart: remove this file once config.py
imports club_settings."""
from .club_settings import Broker, BrokerError, parse_broker, club_name_problem as name_problem  # noqa: F401
