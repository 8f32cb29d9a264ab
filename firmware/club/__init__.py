"""The club link: many boards, one club night, over MQTT (a Mosquitto broker, paho-mqtt 2.x).

``schema`` is the wire protocol, version 1 (``docs/club.md``); ``broker`` a broker's address and
a paho client; ``link`` and ``outbox`` a board's side (its ledger published from a thread of its
own); ``discovery`` Home Assistant's MQTT discovery; ``network`` the installed board's way to its
broker. The hub is :mod:`firmware.hub`. This wing imports the firmware base, the scorer and the
ledger; the board and the PC side import its link alone, the hub its schema and broker.
"""
