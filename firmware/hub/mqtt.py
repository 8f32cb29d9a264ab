"""The hub's side of the broker: its connection, its presence, what it receives and what it publishes.

:class:`HubLink` is the hub's MQTT client; paho's network thread runs everything here but
:meth:`HubLink.publish` (the writer's).
"""

from __future__ import annotations

import os
import threading
import time
from typing import Callable

from ledger.single_writer import stamp
from scorer.standings import ResultError

from ..wire import schema
from ..wire.broker import make_client, refusal, tls_failure
from .inbox import BrokerChanged, Connected, FloorMoved, PresenceAsked, Received
from .journal import Journal
from .night import result_of

PROBE_S = 5.0  # at the first connection: the longest wait for the club's retained presence
# The hub's own link is kept short, so that a hub that is alive is always back soon: a dead
# connection noticed within twice its keepalive, and retries at most this far apart (a board's go to 30 s).
HUB_KEEPALIVE_S = 10
HUB_RECONNECT_MAX_S = 2
# Another hub's presence seen at start: how long before looking again. A hub that is alive loses its
# session to this one's connection (one client id per login), is back within paho's first retry
# (1 s) and says its presence anew; one that was cut off is back within 2 x HUB_KEEPALIVE_S +
# HUB_RECONNECT_MAX_S of the broker's return; one lost with the broker (a crash, a power cut) says nothing.
LOOK_AGAIN_S = 2 * HUB_KEEPALIVE_S + HUB_RECONNECT_MAX_S + 3


def later(seconds: float, call: Callable, *args) -> None:
    """``call(*args)`` in ``seconds``, on a timer thread that does not hold the process open."""
    timer = threading.Timer(seconds, call, args=args)
    timer.daemon = True
    timer.start()


def _same_word(one: dict, other: dict | None) -> bool:
    """Whether two presences are the same word of the same run of a hub (not said anew since)."""
    return other is not None and all(one.get(key) == other.get(key) for key in ("instance", "since", "said"))


class HubLink:
    """The hub's MQTT client for ``settings`` (see below). It tells the writer through ``inbox``,
    shows a table's ``status`` and ``state`` through ``on_table(table, kind, payload)``, and stops the
    hub through ``fail(reason)`` (a login refused at start, another hub online).

    paho's network thread (``loop_start``) runs everything here but :meth:`HubLink.publish`
    (the writer's). Every message goes through :func:`~firmware.wire.schema.decode`; one that
    fails is ignored with one log line and acknowledged. A table's ``status`` or ``state`` goes
    to the page (``on_table``); an ``entry`` or ``result`` to the writer's inbox, acknowledged
    only once the writer has it durably (QoS 1, ``manual_ack``).

    The hub's presence is on ``cribbage/<club>/hub``, retained, with a last will (online
    false), naming this run (``instance``) and when it began. On its first connection the hub
    reads that presence before anything else, holding what the broker delivers unacknowledged:
    another hub of the club online there is one line and exit 2 (the broker's
    ``use_username_as_clientid`` gives every login of the hub's user one session, so the first
    hub gets it back at its next attempt). Since a broker that crashes or loses its power keeps
    the presence of a hub lost with it (no last will is sent then), another hub's word is only
    believed once it moves: the second look, LOOK_AGAIN_S later, must find it said anew
    (``said`` counts a run's presences), as a hub that is alive says it when it is back; a word
    that has not moved is a hub that is gone, said in one line, and this hub keeps the night.
    """

    def __init__(self, settings, inbox, journal: Journal, on_table: Callable, fail: Callable[[str], None],
                 stopping: threading.Event):
        self.settings = settings
        self.topics = schema.Topics(settings.club)
        self.inbox, self.journal, self.on_table, self.fail, self.stopping = inbox, journal, on_table, fail, stopping
        self.state = f"connecting to {settings.broker}"  # the broker's state in words, for the page
        self.generation = 0  # connections so far: an acknowledgement is sent on the connection it is for
        self.connected = False
        self.floors: dict[tuple[str, str], int] = {}  # (table, ledger) -> the board's floor, from its status
        self.instance = os.urandom(8).hex()  # this run of the hub, in its presence
        self.since = stamp(time.time())
        self._client = None
        self._ever_connected = False
        self._refused: str | None = None
        self._published: dict[str, bytes] = {}  # topic -> payload last published (retained)
        self._announced = False  # this hub has said it is the club's (its presence published)
        self._said = 0  # presences said by this run
        # The look at the club's presence (is another hub keeping the night?), under the lock:
        self._lock = threading.Lock()
        self._phase = "looking"  # then "begun" (this hub keeps the night) or "refused"
        self._probing = False  # the first connection: reading the club's presence before anything else
        self._suspect: dict | None = None  # another hub's presence (online) seen while probing: alive?
        self._latest: dict | None = None  # what this connection's look found (None: nobody online)
        self._looked = -1  # the connection (generation) whose look has been answered
        self._probe_mid: int | None = None
        self._held: list = []  # what the broker delivered while probing, unacknowledged
        self._rival: dict | None = None  # running: an earlier hub's presence the broker held, asked again

    def connect(self) -> None:
        """Start the MQTT client (its own thread): connect, subscribe, reconnect with back-off."""
        client = make_client(self.settings.broker, f"cribbage-{self.settings.club}-hub", manual_ack=True)
        client.reconnect_delay_set(1, HUB_RECONNECT_MAX_S)
        client.will_set(self.topics.hub, schema.encode(self.presence(False)), qos=1, retain=True)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.on_subscribe = self._on_subscribe
        client.connect_async(self.settings.broker.host, self.settings.broker.port, keepalive=HUB_KEEPALIVE_S)
        self._client = client
        client.loop_start()

    def presence(self, online: bool) -> dict:
        self._said += 1
        return schema.hub_payload(online, self.settings.version, self.instance, self.since, self._said)

    # ---- publishing (the writer's thread) ------------------------------------

    def publish(self, topic: str, payload: dict, force: bool = False, qos: int = 1) -> None:
        """``payload`` on ``topic``, retained, at ``qos``, unless it is what was last published there."""
        data = schema.encode(payload)
        if not force and self._published.get(topic) == data:
            return
        self._published[topic] = data
        # Only once this hub is the club's: paho would send an earlier publish on connecting, over the
        # retained words of a hub that is online.
        if self._client is not None and self._announced:
            self._client.publish(topic, data, qos=qos, retain=True)

    def announce(self) -> None:
        """This hub is the club's on this connection: its presence said, the words to the tables again."""
        self._announced = True
        self.publish(self.topics.hub, self.presence(True), force=True)
        for topic, data in list(self._published.items()):
            if topic.endswith("/kept") and self._client is not None:
                self._client.publish(topic, data, qos=1, retain=True)

    def published_tables(self) -> list[str]:
        """The tables a pairing was published for."""
        prefix = f"{self.topics.base}/table/"
        return [topic[len(prefix):].rpartition("/")[0] for topic in list(self._published)
                if topic.startswith(prefix) and topic.endswith("/pairing")]

    def ack(self, mid: int, qos: int, generation: int | None = None) -> None:
        """Acknowledge ``mid``, if it came on this connection (``generation``; a message of an earlier one
        comes again on this one, under another id)."""
        if qos and self._client is not None and generation in (None, self.generation) and self.connected:
            self._client.ack(mid, qos)

    def stop(self) -> None:
        """Say the hub is gone (if it said it was here), disconnect."""
        client = self._client
        if client is None:
            return
        if self.connected and self._announced:  # a hub refused as the second says nothing of the first
            info = client.publish(self.topics.hub, schema.encode(self.presence(False)), qos=1, retain=True)
            try:
                info.wait_for_publish(2)
            except (RuntimeError, ValueError):
                pass
        client.disconnect()
        client.loop_stop()

    # ---- the connection (paho's thread) ----------------------------------------

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            said, for_good = refusal(reason_code)
            self.connected = False
            self.state = f"broker {self.settings.broker}: {said}"
            if for_good and not self._ever_connected:
                self.fail(f"broker {self.settings.broker}: {said}: check --username and --password-file "
                          "(and the broker's password file and ACL)")
            elif said != self._refused:
                self.journal.say(f"{self.state}; retrying (every {HUB_RECONNECT_MAX_S} s at most)")
            self._refused = said
            self.inbox.put(BrokerChanged())
            return
        self.generation += 1
        self.connected, self._ever_connected, self._refused = True, True, None
        self.state = f"connected to {self.settings.broker}"
        with self._lock:
            looking = self._phase == "looking"
            if looking:  # is another hub of the club online? Its retained presence comes with the subscription
                self._probing, self._latest = True, None
        if looking:
            later(PROBE_S, self._probed, self.generation)
        # In order: the SUBACK of the second comes after the first's retained presence, if any (_on_subscribe).
        # At QoS 0: the broker sends it at once, not behind what it queued for this session at QoS 1 (which,
        # held unacknowledged while probing, fills the broker's in-flight window and would stop it)
        client.subscribe(self.topics.hub, qos=0)
        _, self._probe_mid = client.subscribe(self.topics.every_table, qos=1)  # while probing, held unacknowledged
        if not looking:
            self.journal.say(self.state)
            self.inbox.put(Connected())  # the writer publishes what is retained again

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties) -> None:
        if mid == self._probe_mid:  # the club's retained presence, if any, came before it
            self._probed(self.generation)

    def _on_connect_fail(self, client, userdata) -> None:
        why = tls_failure(client)
        state = f"broker {self.settings.broker}: {why}; retrying" if why else \
            f"broker {self.settings.broker} cannot be reached; retrying"
        if state != self.state:
            self.state = state
            self.journal.say(state)
            self.inbox.put(BrokerChanged())

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        with self._lock:
            # Cut off while looking: look again on the next connection (what was held comes again on it,
            # unacknowledged as it is).
            if self._probing:
                self._probing = False
                self._held = []
            begun = self._phase == "begun"
        if self.connected:
            self.connected = False
            if self.stopping.is_set() or not begun:  # our own disconnect, stopping; or still looking
                return
            self.state = f"broker {self.settings.broker} went away; reconnecting"
            self.journal.say(self.state)
            self.inbox.put(BrokerChanged())

    # ---- the club's presence: is this the club's one hub? ------------------------

    def _seen(self, presence: dict | None) -> None:
        """While probing, the club's presence as the broker holds it (``presence``: another hub's,
        online; None: nobody else online). The first other hub's word seen: look again in
        LOOK_AGAIN_S (:meth:`_look_again`). A word other than that one: a hub that is alive; stop, one line."""
        with self._lock:
            if self._phase != "looking" or not self._probing:
                return
            self._latest = presence
            if presence is None or _same_word(presence, self._suspect):
                return
            first, self._suspect = self._suspect is None, self._suspect or presence
            if not first:
                self._probing, self._phase = False, "refused"
        if first:  # said nothing yet: a second hub's refusal is one line
            later(LOOK_AGAIN_S, self._look_again)
        else:
            self._refuse_second(presence)

    def _probed(self, generation: int) -> None:
        """Connection ``generation``'s look at the club's presence is answered (the subscription's
        SUBACK, or PROBE_S passed): nobody else online, begin; another hub's word seen, the look
        again decides."""
        with self._lock:
            if self._phase != "looking" or not self._probing or generation != self.generation:
                return
            self._looked = generation
            if self._suspect is not None:
                return
            self._phase = "begun"
        self._begin()

    def _look_again(self) -> None:
        """LOOK_AGAIN_S after another hub's presence was seen: if this connection's look found the same
        word (never said anew) or none online, that hub is gone; begin, one line. Not connected, or
        not yet answered: a moment later."""
        with self._lock:
            if self._phase != "looking" or self.stopping.is_set() or self._suspect is None:
                return
            if not (self._probing and self._looked == self.generation):
                answered = False
            else:
                answered = True
                gone, latest = self._suspect, self._latest
                self._suspect, self._phase = None, "begun"
        if not answered:
            later(1.0, self._look_again)
            return
        if latest is None:
            self.journal.say(f"hub {gone.get('instance')} is no longer online: this hub keeps the club's night")
        else:
            self._said_gone(gone)
        self._begin()

    def _begin(self) -> None:
        """This hub is the club's (probing still on): its presence and word are said, and what was held
        is taken up, in the order it came, before what comes after it (probing ends once none is left)."""
        self.journal.say(self.state)
        self.inbox.put(Connected())
        while True:
            with self._lock:
                held, self._held = self._held, []
                if not held:
                    self._probing = False
                    return
            for message, generation in held:
                self._take(message, generation)

    def _refuse_second(self, presence: dict) -> None:
        with self._lock:
            self._phase, self._probing = "refused", False
        if self._client is not None:
            self._client.disconnect()  # a clean disconnect: no last will, the other hub's presence stands
        self.fail(f"another hub for club {self.settings.club} is online on {self.settings.broker} (since "
                  f"{presence.get('since') or 'earlier'}, version {presence.get('version')}): one hub keeps a "
                  "club's night; stop that one first")

    def _other_hub(self, message) -> None:
        """The club's presence. Only a retained copy is taken as the truth (one delivered as the
        subscription's answer: what the broker holds now); a live one, or one queued in this hub's
        session since an earlier run, only makes it ask again. Another hub's, online, stops this one
        at start (see _probed); later, one that began before this one stops it, and one that began
        after it is answered with this hub's presence again (it stops when it sees it)."""
        self.ack(message.mid, message.qos)
        try:
            presence = schema.decode("hub", "", message.payload) if message.payload else None
        except schema.PayloadError as error:
            self.journal.ignored(f"the club's hub presence: {error}")
            return
        other = bool(presence and presence["online"] and presence.get("instance") != self.instance)
        if not message.retain:
            if other and not self._probing:
                self._ask_presence()
            return
        if self._probing:
            self._seen(presence if other else None)
        elif other and presence is not None and (
                presence.get("since") or "", presence.get("instance") or "") < (self.since, self.instance):
            self._earlier_hub(presence)
        elif other:
            self.inbox.put(PresenceAsked())

    def _earlier_hub(self, presence: dict) -> None:
        """Running, the broker holds the presence of a hub that began before this one. Alive, its word
        moves (it says it anew each time it connects): this hub stops. A word that has not moved when
        asked again LOOK_AGAIN_S later is one the broker kept of a hub lost with it (restored from an
        older save): one line, and this hub says its own presence over it."""
        with self._lock:
            rival, self._rival = self._rival, presence
        if rival is None or rival.get("instance") != presence.get("instance"):
            self.journal.say(f"the broker holds hub {presence.get('instance')}'s presence (online since "
                             f"{presence.get('since') or 'earlier'}, before this hub): asking again in "
                             f"{LOOK_AGAIN_S:g} s whether it is alive")
            later(LOOK_AGAIN_S, self._ask_presence)
        elif _same_word(presence, rival):
            self._rival = None
            self._said_gone(presence)
            self.inbox.put(PresenceAsked())
        else:
            self._refuse_second(presence)

    def _ask_presence(self) -> None:
        """Subscribe to the club's presence again: the broker answers with what it holds (retained)."""
        if not self.stopping.is_set() and self._client is not None:
            self._client.subscribe(self.topics.hub, qos=0)

    def _said_gone(self, presence: dict) -> None:
        self.journal.say(f"hub {presence.get('instance')} (online since {presence.get('since') or 'earlier'}, the "
                         f"club's presence says) has not answered in {LOOK_AGAIN_S:g} s: it was lost with the broker "
                         "(a crash or a power cut), and this hub keeps the club's night")

    # ---- what the tables send (paho's thread) ----------------------------------

    def _on_message(self, client, userdata, message) -> None:
        """The club's presence, or a table's message (:meth:`_take`), held while probing."""
        generation = self.generation
        if message.topic == self.topics.hub:
            try:
                self._other_hub(message)
            except Exception as error:  # a bug here must not stop paho's thread
                self.journal.say(f"the club's presence could not be handled: {type(error).__name__}: {error}")
            return
        with self._lock:
            if self._probing:  # held, unacknowledged, until it is known this hub is the club's
                self._held.append((message, generation))
                return
        self._take(message, generation)

    def _take(self, message, generation: int) -> None:
        """A table's message, come on connection ``generation``: check it; show a table's status or state,
        queue an entry or result for the writer, drop anything else with one line. Never raises."""
        def ack():
            self.ack(message.mid, message.qos, generation)

        try:
            parsed = self.topics.parse(message.topic)
            if parsed is None:
                self.journal.ignored(f"topic {message.topic[:120]!r}: not one of this club's table topics")
                ack()
                return
            table, kind = parsed
            if kind in schema.HUB_KINDS:  # our own, retained
                ack()
                return
            if kind in ("entry", "result") and message.retain:
                self.journal.ignored(f"table {table}: a retained {kind}: boards never send one retained, so it "
                                     f"was planted (clear it: mosquitto_pub -r -n -t {message.topic})", table)
                ack()
                return
            if kind in ("status", "state") and not message.payload:  # a retained message cleared
                self.on_table(table, kind, None)
                ack()
                return
            try:
                payload = schema.decode(kind, table, message.payload)
                if kind == "result":
                    result_of(payload)
            except (schema.PayloadError, ResultError) as error:
                # An entry or result naming one of the table's games is noted for the director and told to
                # the table by the writer (kept, so sending it again changes nothing); anything else is dropped.
                refusal = schema.refusal_key(kind, table, message.payload)
                if refusal is None:
                    self.journal.ignored(f"table {table}: {error}", table)
                    ack()
                    return
                reason = str(error) if str(error).startswith(f"{kind}:") else f"{kind}: {error}"
                self.inbox.put(Received("refused", table, {**refusal, "reason": reason}, message.mid, message.qos,
                                        generation))
                return
            if kind in ("status", "state"):
                self.on_table(table, kind, payload)
                ack()
                if kind == "status" and payload.get("ledger") is not None:
                    key = (table, payload["ledger"])
                    if self.floors.get(key) != payload["floor"]:
                        self.floors[key] = payload["floor"]
                        self.inbox.put(FloorMoved(table, payload["ledger"]))  # the hub's word from that floor on
                return
            self.inbox.put(Received(kind, table, payload, message.mid, message.qos, generation))
        except Exception as error:  # a bug here must not stop paho's thread: say it, drop the message
            self.journal.say(f"a message on {message.topic[:120]!r} could not be handled: "
                             f"{type(error).__name__}: {error}")
            ack()
