"""Home Assistant's MQTT discovery for a board in a club (``[club] homeassistant = true``).

:func:`discovery_messages` makes the retained config messages: one sensor per side of the game on
the board and one for whose count is next, each read from the table's retained ``state``, with
templates that read any payload.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ...wire.schema import Topics

PREFIX = "homeassistant"  # Home Assistant's default discovery prefix
MAX_SIDES = 4

# The game in the payload as a mapping: the payload's "state" when it is one, else {} (no game,
# or a payload that is not the board's state).
_GAME = ("{%- set game = value_json.state if value_json is mapping and value_json.state is mapping "
         "else {} -%}")


def _side(index: int) -> str:
    """The template's prelude that sets ``side`` to side ``index`` of the game, or {} when it has none."""
    return (_GAME + "{%- set sides = game.sides if game.sides is defined and game.sides is sequence "
            "and game.sides is not string else [] -%}"
            f"{{%- set side = sides[{index}] if sides | length > {index} and sides[{index}] is mapping "
            "else {} -%}")


def node_id(club: str, table: str) -> str:
    """The board's node in Home Assistant, made of the club's and the table's names. The club's broker
    takes a board's client id to be its user name, the table's name (``use_username_as_clientid``),
    so its ACL keeps each board to its own node with the user name:
    ``pattern write homeassistant/sensor/cribbage-<club>-table-%u/#``."""
    return f"cribbage-{club}-table-{table}"


def discovery_messages(topics: Topics, names: Sequence[str], version: str) -> list[tuple[str, bytes]]:
    """(topic, retained payload) for each entity of a board whose game's sides are named ``names``
    (each side's entity is named after it); an empty payload removes the entity of a side beyond them.

    Home Assistant makes an entity of each retained config message under
    ``homeassistant/sensor/<node>/<object>/config`` (the node: ``cribbage-<club>-table-<table>``,
    see :func:`node_id`): here one sensor per side of the game on the board (its
    score, named after the side's player, with the player, the back peg, the dealer
    and the winner as attributes) and one for whose count is next. They read the
    table's retained ``state`` message and are available while its ``status`` says
    online, so no YAML is needed. A side the game no longer has (four players, then
    two) has its config removed (an empty retained message), as Home Assistant
    expects.

    Home Assistant renders each template against every state message, whatever
    the board is doing: a board with no game (``"state": null``), a game with fewer
    sides than the configs it still holds (Home Assistant may read the new state
    before it has taken the removal of a side's config), a payload that is not
    JSON. So the templates touch nothing that may be missing: each one tests a
    value's type before it reads into it and reads a mapping's keys with ``get``.
    Home Assistant logs any undefined value a template uses (a warning, an error
    when it is iterated, indexed or read into); these templates use none, which
    ``tests/test_discovery.py`` checks by rendering them with jinja2's
    ``StrictUndefined``. A side the state does not have reads ``None``, which Home
    Assistant shows as unknown, and its attributes read ``{}`` (none).
    """
    if topics.table is None:
        raise ValueError("discovery messages are a table's: these topics name no table")
    if len(names) > MAX_SIDES:
        raise ValueError(f"a game has at most {MAX_SIDES} sides, not {len(names)}")
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
        "availability_template": (
            "{{ 'online' if value_json is mapping and value_json.get('online') is sameas true else 'offline' }}"),
        "device": device,
    }
    messages = []
    for index in range(MAX_SIDES):
        topic = f"{PREFIX}/sensor/{node}/side{index + 1}/config"
        if index >= len(names):
            messages.append((topic, b""))
            continue
        side = _side(index)
        config = {
            **common,
            "name": f"{names[index]} score",
            "unique_id": f"{node}_side{index + 1}",
            "icon": "mdi:cards-playing-outline",
            # A unit makes Home Assistant take the score for a number (its history a graph) and the
            # template's None for unknown. No state_class: a score starts again at 0 every game, so
            # long-term statistics of it would mean nothing.
            "unit_of_measurement": "points",
            "value_template": side + "{{ side.score if side.score is defined and side.score is number else none }}",
            "json_attributes_topic": topics.of_table("state"),
            "json_attributes_template": side + (
                "{{ ({'player': side.get('name'), 'back_peg': side.get('back'), 'dealer': game.get('dealer'), "
                "'winner': game.get('winner')} if side else {}) | tojson }}"),
        }
        messages.append((topic, json.dumps(config).encode("utf-8")))
    next_count = {
        **common,
        "name": "Next count",
        "unique_id": f"{node}_next",
        "icon": "mdi:arrow-right-bold",
        "value_template": _GAME + (
            "{%- set upcoming = game.get('next') -%}"
            "{{ upcoming.get('seat') ~ ' ' ~ upcoming.get('count') if upcoming is mapping "
            "else (game.get('winner') ~ ' won' if game.get('winner') else 'no game') }}"),
    }
    messages.append((f"{PREFIX}/sensor/{node}/next/config", json.dumps(next_count).encode("utf-8")))
    return messages
