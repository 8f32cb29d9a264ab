"""The board's side of a club night: its link to the club's broker.

``link`` is the paho side, publishing the board's ledger from a thread of its own and
showing the club's next pairing; ``outbox`` what it sends and when, pure (the hub's word
kept as a watermark, the resend policy); ``discovery`` Home Assistant's MQTT discovery.
The topics and payloads are :mod:`firmware.wire.schema`, which the hub speaks too.
"""
