"""What the programs say to each other, in one place: both ends import it from here.

- :mod:`.schema`: the club's MQTT topics and payloads, version 1 (``docs/club.md``),
  spoken by a board's link and by the hub.
- :mod:`.broker`: a broker's address (``mqtt://`` or ``mqtts://``) and a paho client for it.
- :mod:`.relay`: the board's local socket, through which the web view pairs a phone
  and enters its points.
"""
