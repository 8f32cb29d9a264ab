"""The club link: many boards, one club night, over MQTT (a Mosquitto broker, paho-mqtt 2.x).

- :mod:`.schema`: the topics and payloads, version 1 (``docs/club.md``): what each
  message holds and the checks every received one passes.
- :mod:`.broker`: a broker's address (``mqtt://`` or ``mqtts://``) and a paho client for it.
- :mod:`.link`: a board's side: it publishes its ledger (every entry, every result,
  its live state) from a thread of its own, and shows the club's next pairing.
- :mod:`.discovery`: Home Assistant's MQTT discovery of a board's scores.
- :mod:`.network`: the board's unit and its broker: the systemd drop-in that lets the
  installed board reach its club's broker and nothing else (``club-network``).
- :mod:`.hub`: the night's hub: it keeps what the tables send in a ledger of its own,
  ranks the players, makes the pairings and serves the standings page.

This wing imports the firmware base, the scorer and the ledger; the board, the PC
side and the command line may import it.
"""
