"""The baseline of bench/club.py: a minimal paho -> SQLite subscriber, the least a hub could do with a message.

One process, paho's loop in its main thread. It subscribes at QoS 1, with a
persistent session (``clean_session=False``, a stable client id), to the
tables' ``entry`` and ``result`` topics, and for each message: ``json.loads``,
one ``INSERT OR IGNORE`` under a UNIQUE key (a redelivery is a no-op), one
COMMIT (WAL, ``synchronous=FULL``), and only then the acknowledgement
(``manual_ack``). Nothing is checked, derived or shown.

    python bench/club_baseline.py --port 1883 --db base.sqlite3 --out times.json --club bench

It writes ``--out``.ready once subscribed, and on SIGTERM disconnects and writes
``--out``: each message's commit time (``time.monotonic()``, the clock every
process of the machine shares) by its key. It imports nothing of the project.
"""

from __future__ import annotations

import argparse
import json
import signal
import sqlite3
import sys
import time
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (tbl TEXT NOT NULL, ledger TEXT NOT NULL, game INTEGER NOT NULL,
    seq INTEGER NOT NULL, line TEXT NOT NULL, UNIQUE (tbl, ledger, game, seq));
CREATE TABLE IF NOT EXISTS results (tbl TEXT NOT NULL, ledger TEXT NOT NULL, game INTEGER NOT NULL,
    rev INTEGER NOT NULL, payload TEXT NOT NULL, UNIQUE (tbl, ledger, game, rev));
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--club", required=True)
    parser.add_argument("--client-id", default="bench-baseline")
    args = parser.parse_args(argv)

    import paho.mqtt.client as mqtt

    db = sqlite3.connect(args.db, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.executescript(SCHEMA)
    times: list[list] = []  # [kind, table, ledger, game, number, committed]
    out = Path(args.out)

    def on_message(client, userdata, message) -> None:
        kind = message.topic.rpartition("/")[2]
        try:
            payload = json.loads(message.payload)
            key = (payload["table"], payload["ledger"], payload["game"], payload["seq" if kind == "entry" else "rev"])
        except (ValueError, KeyError, TypeError):
            client.ack(message.mid, message.qos)
            return
        db.execute("BEGIN")
        if kind == "entry":
            db.execute("INSERT OR IGNORE INTO entries VALUES (?, ?, ?, ?, ?)", (*key, payload.get("line", "")))
        else:
            db.execute("INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?, ?)", (*key, message.payload.decode()))
        db.execute("COMMIT")
        times.append([kind, *key, time.monotonic()])
        client.ack(message.mid, message.qos)

    def on_connect(client, userdata, flags, reason_code, properties) -> None:
        client.subscribe([(f"cribbage/{args.club}/table/+/entry", 1), (f"cribbage/{args.club}/table/+/result", 1)])

    def on_subscribe(client, userdata, mid, reason_codes, properties) -> None:
        out.with_suffix(".ready").write_text("subscribed\n")

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=args.client_id, clean_session=False,
                         protocol=mqtt.MQTTv311, manual_ack=True)
    client.on_message, client.on_connect, client.on_subscribe = on_message, on_connect, on_subscribe
    signal.signal(signal.SIGTERM, lambda *_: client.disconnect())
    client.connect("127.0.0.1", args.port, keepalive=60)
    client.loop_forever()
    out.write_text(json.dumps(times))
    db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
