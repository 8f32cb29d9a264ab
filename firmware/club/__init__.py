"""The club link: many boards, one club night, over MQTT (a Mosquitto broker, paho-mqtt 2.x).

- :mod:`.schema`: the topics and payloads, version 1 (``docs/club.md``): what each
  message holds and the checks every received one passes.
- :mod:`.broker`: a broker's address (``mqtt://`` or ``mqtts://``) and a paho client for it.
- :mod:`.link`: a board's side: it publishes its ledger (every entry, every result,
  its live state) from a thread of its own, and shows the club's next pairing.
- :mod:`.outbox`: what the link keeps (the hub's word, as a watermark beside the ledger) and sends
  of each game's result.
- :mod:`.discovery`: Home Assistant's MQTT discovery of a board's scores.
- :mod:`.network`: the board's unit and its broker: the systemd drop-in that lets the
  installed board reach its club's broker and nothing else (``club-network``).
The night's hub is a program of its own, in :mod:`firmware.hub`: it speaks this
wing's schema through its broker, and nothing else of it.

This wing imports the firmware base, the scorer and the ledger; the board and the
PC side import its link alone, the hub its schema and broker, the command line any of it.
"""
