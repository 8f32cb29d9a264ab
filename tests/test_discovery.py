"""Home Assistant's discovery configs (firmware/board/club/discovery.py): their templates rendered as Home
Assistant renders them, every undefined value an error, for the states a board publishes."""

from __future__ import annotations

import functools
import json

import jinja2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2.sandbox import ImmutableSandboxedEnvironment

from firmware.board.club.discovery import MAX_SIDES, discovery_messages, node_id
from firmware.wire import schema
from scorer.record import Scorebook, parse_line
from scorer.report import state_dict

TOPICS = schema.Topics("thursday", "3")
NODE = node_id("thursday", "3")
# Home Assistant's own template environment is an immutable sandbox; here an undefined value raises
# wherever it is used (Home Assistant logs it, a warning or an error, and keeps the old value).
ENV = ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined)


def configs(names) -> dict[str, dict | None]:
    """Each discovery config by its object (side1... next), None for one removed."""
    found = {}
    for topic, payload in discovery_messages(TOPICS, names, "1.0"):
        assert topic.startswith(f"homeassistant/sensor/{NODE}/") and topic.endswith("/config")
        found[topic.split("/")[3]] = json.loads(payload) if payload else None
    return found


def render(template: str, payload: bytes) -> str:
    """``template`` rendered as Home Assistant renders an MQTT value template: ``value`` the payload's
    text, ``value_json`` its JSON when it is JSON (else not defined), the result stripped."""
    value = payload.decode("utf-8")
    variables = {"value": value}
    try:
        variables["value_json"] = json.loads(value)
    except ValueError:
        pass
    return compiled(template).render(variables).strip()


@functools.lru_cache(maxsize=None)
def compiled(template: str) -> jinja2.Template:
    return ENV.from_string(template)


def sensor(config: dict, payload: bytes) -> tuple[str | None, dict]:
    """The sensor's state (None: unknown) and attributes after ``payload`` on its state topic, as Home
    Assistant's MQTT sensor takes them: "None" from a sensor with a unit is unknown; the attributes
    template must give a JSON object."""
    state = render(config["value_template"], payload)
    if state == "None" and "unit_of_measurement" in config:
        state = None
    attributes = {}
    if "json_attributes_template" in config:
        attributes = json.loads(render(config["json_attributes_template"], payload))
        assert isinstance(attributes, dict)
    return state, attributes


def state_message(*lines: str) -> bytes:
    """The board's retained state after ``lines`` (none: no game yet), as the link publishes it."""
    book = Scorebook()
    for line in lines:
        book.apply(parse_line(line))
    state = state_dict(book) if book.game else None
    game = 1 if book.game else None
    return schema.encode(schema.state_payload("3", "ab" * 8, game, len(lines), state))


def test_a_normal_game_gives_each_sides_score_and_player_and_whose_count_is_next():
    """Alice v Bob: each side's score, its player as an attribute and in its name; the next count; online."""
    found = configs(["Alice", "Bob"])
    assert found["side3"] is None and found["side4"] is None
    payload = state_message("game six-card seats=Alice,Bob dealer=Alice", "heels", "peg Bob 2", "peg Alice 2",
                            "go Bob", "hand Bob 8")
    assert sensor(found["side1"], payload) == ("4", {"player": "Alice", "back_peg": 2, "dealer": "Alice",
                                                     "winner": None})
    assert sensor(found["side2"], payload) == ("11", {"player": "Bob", "back_peg": 3, "dealer": "Alice",
                                                     "winner": None})
    assert found["side1"]["name"] == "Alice score" and found["side2"]["name"] == "Bob score"
    upcoming = json.loads(payload)["state"]["next"]
    assert render(found["next"]["value_template"], payload) == f"{upcoming['seat']} {upcoming['count']}"
    status = schema.encode(schema.status_payload("3", True, "1.0"))
    assert render(found["side1"]["availability_template"], status) == "online"
    gone = schema.encode(schema.status_payload("3", False, "1.0"))
    assert render(found["side1"]["availability_template"], gone) == "offline"


def test_a_game_of_fewer_sides_read_with_the_configs_of_more_leaves_the_sides_it_lacks_unknown():
    """Four players, then two: the state of two read by the four sides' configs (Home Assistant may
    render it before it takes the removal of sides 3 and 4) gives those unknown, with no attributes."""
    four = configs(["Ann", "Bob", "Cy", "Di"])
    assert all(four[f"side{i}"] for i in range(1, 5))
    payload = state_message("game four-hand-individual seats=Ann,Bob,Cy,Di dealer=Ann", "peg Bob 2")
    assert [sensor(four[f"side{i}"], payload)[0] for i in range(1, 5)] == ["0", "2", "0", "0"]
    payload = state_message("game six-card seats=Ed,Fa dealer=Ed", "peg Fa 2")
    assert [sensor(four[f"side{i}"], payload) for i in range(1, 5)] == [
        ("0", {"player": "Ed", "back_peg": 0, "dealer": "Ed", "winner": None}),
        ("2", {"player": "Fa", "back_peg": 0, "dealer": "Ed", "winner": None}), (None, {}), (None, {})]
    two = configs(["Ed", "Fa"])
    assert two["side3"] is None and two["side4"] is None  # then removed
    assert two["side1"]["name"] == "Ed score"


def test_a_board_with_no_game_reads_unknown_with_no_attributes_and_no_game():
    """``"state": null`` (a new ledger, no game yet) under the configs of the game before: every side
    unknown, no attributes (not the payload), and the next count says "no game"."""
    payload = state_message()
    assert json.loads(payload)["state"] is None
    found = configs(["Ann", "Bob", "Cy"])
    for index in (1, 2, 3):
        assert sensor(found[f"side{index}"], payload) == (None, {})
    assert render(found["next"]["value_template"], payload) == "no game"


def test_a_won_game_says_who_won():
    """The game's end: the next count names the winner."""
    found = configs(["A", "B"])
    payload = state_message("game six-card seats=A,B dealer=A target=31", "peg B 15", "peg A 15", "peg B 15",
                            "peg A 15", "peg A 2")
    assert sensor(found["side1"], payload)[1]["winner"] == "A"
    assert render(found["next"]["value_template"], payload) == "A won"


def test_the_scores_are_numbers_without_long_term_statistics():
    """Each score has a unit (a number to Home Assistant) and no state_class (a score resets every game)."""
    for name, config in configs(["A", "B", "C", "D"]).items():
        assert "state_class" not in config
        if name.startswith("side"):
            assert config["unit_of_measurement"] == "points"


def test_more_sides_than_a_game_has_is_refused():
    """Five names: no such game."""
    with pytest.raises(ValueError):
        discovery_messages(TOPICS, ["A", "B", "C", "D", "E"], "1.0")


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
                        st.sampled_from(["state", "sides", "score", "name", "next", "winner", "online", "x"]),
                        inner, max_size=5), max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(st.one_of(JSON.map(lambda value: json.dumps(value).encode()), st.binary(max_size=30).filter(
    lambda raw: _utf8(raw))))
def test_any_payload_renders_without_an_undefined_value(payload):
    """Whatever comes on the state or status topic (any JSON, or not JSON): every template renders,
    each side's attributes are a JSON object."""
    for config in configs(["A", "B", "C", "D"]).values():
        sensor(config, payload)
        render(config["availability_template"], payload)


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_every_side_has_a_config():
    """The sides beyond a game's are removed, up to the most a game has."""
    assert len(configs(["A", "B"])) == MAX_SIDES + 1
