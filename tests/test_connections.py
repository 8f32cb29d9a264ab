"""firmware/server/connections.py against the uvicorn it runs on: the private parts it overrides are the ones reviewed.

:class:`~firmware.server.connections.GuardedH11` subclasses uvicorn's private ``H11Protocol``
and :class:`~firmware.server.connections.Server` extends ``uvicorn.Server.startup``. pyproject.toml
pins uvicorn to the versions whose source was read against them; these tests fail when an
installed uvicorn changes any of it, so that a new version is read before the pin moves.
"""

import asyncio
import hashlib
import inspect
import re
import tomllib
from pathlib import Path

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle
from uvicorn.server import ServerState

from firmware.server.connections import GuardedH11, Server, limits_for

ROOT = Path(__file__).resolve().parent.parent

# The source of each H11Protocol method GuardedH11 overrides, as read against it (the same from
# uvicorn 0.29.0 to 0.55.0): sha256 of inspect.getsource, first 16 hex digits.
REVIEWED = {
    "connection_made": "6efb565ff3d36b91",
    "data_received": "e03b145518ca44aa",
    "on_response_complete": "1fbb8f48c6a1afc4",
    "connection_lost": "dbb688fa2b386000",
    "send_400_response": "56937b748fc59d92",
}


def _pin() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The uvicorn versions pyproject.toml allows: (lowest, first refused)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    spec = next(dep for dep in project["dependencies"] if dep.startswith("uvicorn"))
    match = re.fullmatch(r"uvicorn>=([\d.]+),<([\d.]+)", spec)
    assert match, f"uvicorn is not pinned to a range of versions: {spec!r}"
    low, high = (tuple(int(part) for part in version.split(".")) for version in match.groups())
    return low, high


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def test_uvicorn_is_pinned_below_a_version_not_yet_read():
    """pyproject.toml bounds uvicorn above, and the one installed is in the range."""
    low, high = _pin()
    assert low <= _version(uvicorn.__version__) < high


def test_the_methods_guarded_h11_overrides_are_the_source_reviewed():
    """Every H11Protocol method GuardedH11 overrides is listed, and its source is the one read against it."""
    overridden = {name for name in vars(GuardedH11) if name in vars(H11Protocol)} - {"__init__", "__doc__",
                                                                                     "__module__"}
    assert overridden == set(REVIEWED)
    for name, digest in REVIEWED.items():
        source = inspect.getsource(getattr(H11Protocol, name))
        assert hashlib.sha256(source.encode()).hexdigest()[:16] == digest, (
            f"uvicorn {uvicorn.__version__} changed H11Protocol.{name}: read it against GuardedH11.{name}, "
            "then update REVIEWED and the pin in pyproject.toml")


def test_the_parts_of_uvicorn_guarded_h11_calls_are_there():
    """The signatures, attributes and log line GuardedH11 and Server rely on."""
    assert list(inspect.signature(H11Protocol.__init__).parameters) == [
        "self", "config", "server_state", "app_state", "_loop"]
    assert list(inspect.signature(H11Protocol.send_400_response).parameters) == ["self", "msg"]
    assert list(inspect.signature(uvicorn.Server.startup).parameters) == ["self", "sockets"]
    assert inspect.iscoroutinefunction(uvicorn.Server.startup) and issubclass(Server, uvicorn.Server)
    events = inspect.getsource(H11Protocol.handle_events)  # a request that does not parse: 400 and this line
    assert 'self.send_400_response(msg)' in events and '"Invalid HTTP request received."' in events
    cycle = inspect.getsource(RequestResponseCycle)
    assert "self.response_complete = " in cycle and "self.disconnected = " in cycle

    async def made():
        config = uvicorn.Config(lambda scope, receive, send: None, http="h11", loop="asyncio", lifespan="off")
        config.load()
        state = ServerState()
        return GuardedH11(config=config, server_state=state, app_state={}, limits=limits_for("test")), state

    protocol, state = asyncio.run(made())
    assert protocol.connections is state.connections
    assert protocol.cycle is None and protocol.conn.their_state is not None and protocol.loop is not None
