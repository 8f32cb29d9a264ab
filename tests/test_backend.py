"""Backend choice: argument > CRIBBAGE_BACKEND > config > machine; never a silent mock on a Pi."""

import pytest

from hardware.backend import choose_backend, pi_model
from hardware.errors import HardwareError

PI = "Raspberry Pi 4 Model B Rev 1.5"


@pytest.mark.parametrize("argument, env, config, model, name, source", [
    ("mock", "real", "real", PI, "mock", "argument"),
    (None, "mock", "real", None, "mock", "environment"),
    (None, None, "real", PI, "real", "config"),
    (None, None, None, PI, "real", "machine"),
    (None, None, None, None, "mock", "machine"),
])
def test_order_of_choice(argument, env, config, model, name, source):
    """The argument wins, then the environment, then the config, then the machine."""
    environ = {"CRIBBAGE_BACKEND": env} if env else {}
    choice = choose_backend(argument, config, environ, model)
    assert (choice.name, choice.source) == (name, source)


def test_mock_on_a_pi_is_said_out_loud():
    """An explicit mock on a Pi is allowed, with a message that says so."""
    choice = choose_backend(None, "mock", {}, PI)
    assert "mock hardware on a Raspberry Pi 4" in choice.message and "as asked (config)" in choice.message


def test_unknown_backend_names_where_it_came_from():
    """A bad value names its source."""
    with pytest.raises(HardwareError, match="CRIBBAGE_BACKEND='fake': use real or mock"):
        choose_backend(None, None, {"CRIBBAGE_BACKEND": "fake"}, None)


def test_pi_model_reads_the_device_tree(tmp_path):
    """The model comes from the device tree; anything else is not a Pi."""
    model = tmp_path / "model"
    model.write_bytes(PI.encode() + b"\x00")
    assert pi_model(model) == PI
    model.write_bytes(b"Some Other Board\x00")
    assert pi_model(model) is None
    assert pi_model(tmp_path / "missing") is None
