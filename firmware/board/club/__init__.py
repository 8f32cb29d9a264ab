"""The board's side of a club night: its link to the club's broker.

- :mod:`.link`: the paho side: it publishes the board's ledger (every entry, every
  result, its live state) from a thread of its own, and shows the club's next pairing.
- :mod:`.outbox`: what the link sends and when, pure: the hub's word kept as a
  watermark beside the ledger, and the resend policy.
- :mod:`.discovery`: Home Assistant's MQTT discovery of a board's scores.

The topics and payloads are :mod:`firmware.wire.schema`, which the hub speaks too.
"""
