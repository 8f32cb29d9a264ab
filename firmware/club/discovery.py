"""Home Assistant's MQTT discovery for a board in a club (``[club] homeassistant = true``).

Home Assistant makes an entity of each retained config message under
``homeassistant/sensor/<node>/<object>/config`` (the node: the board's client id): here one sensor per side of the
game on the board (its score, with the player's name, the back peg and the
dealer as attributes) and one for whose count is next. They read the table's
retained ``state`` message and are available while its ``status`` says online,
so no YAML is needed. A side the game no longer has (four players, then two)
has its config removed (an empty retained message), as Home Assistant expects.
"""

from __future__ import annotations

import json

from .schema import Topics

PREFIX = "homeassistant"  # Home Assistant's default discovery prefix
MAX_SIDES = 4


def node_id(club: str, table: str) -> str:
    """The board's node in Home Assistant: its MQTT client id, so a broker's ACL can keep each
    board to its own (``pattern write homeassistant/sensor/%c/#``)."""
    return f"cribbage-{club}-table-{table}"


def discovery_messages(topics: Topics, sides: int, version: str) -> list[tuple[str, bytes]]:
    """(topic, retained payload) for each entity of a board whose game has ``sides`` sides;
    an empty payload removes the entity of a side beyond them."""
    if topics.table is None:
        raise ValueError("discovery messages are a table's: these topics name no table")
    node = node_id(topics.club, topics.table)
    device = {
        "identifiers": [node],
        "name": f"Cribbage board {topics.club} table {topics.table}",
        "manufacturer": "cribbage-board",
        "model": "Raspberry Pi cribbage peg-board",
        "sw_version": version,
    }
    common = {
        "state_topic": topics.of_table("state"),
        "availability_topic": topics.of_table("status"),
        "availability_template": "{{ 'online' if value_json.online else 'offline' }}",
        "device": device,
    }
    messages = []
    for index in range(MAX_SIDES):
        topic = f"{PREFIX}/sensor/{node}/side{index + 1}/config"
        if index >= sides:
            messages.append((topic, b""))
            continue
        side = f"value_json.state.sides[{index}]"
        config = {
            **common,
            "name": f"Side {index + 1} score",
            "unique_id": f"{node}_side{index + 1}",
            "icon": "mdi:cards-playing-outline",
            "state_class": "measurement",
            "value_template": f"{{{{ {side}.score }}}}",
            "json_attributes_topic": topics.of_table("state"),
            "json_attributes_template": (
                f"{{{{ {{'player': {side}.name, 'back_peg': {side}.back, "
                "'dealer': value_json.state.dealer, 'winner': value_json.state.winner} | tojson }}"
            ),
        }
        messages.append((topic, json.dumps(config).encode("utf-8")))
    next_count = {
        **common,
        "name": "Next count",
        "unique_id": f"{node}_next",
        "icon": "mdi:arrow-right-bold",
        "value_template": (
            "{{ value_json.state.next.seat ~ ' ' ~ value_json.state.next.count if value_json.state.next "
            "else (value_json.state.winner ~ ' won' if value_json.state.winner else 'no game') }}"
        ),
    }
    messages.append((f"{PREFIX}/sensor/{node}/next/config", json.dumps(next_count).encode("utf-8")))
    return messages
