"""Backend choice: argument > CRIBBAGE_BACKEND > config > machine; never a silent mock on a Pi."""

import pytest

from hardware.backend import choose_backend
from hardware.errors import HardwareError
from hardware.model import pi_model

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


def test_each_backend_opens_its_own_devices(tmp_path):
    """The mock backend opens recording mocks and powers nothing off; the Pi backend is chosen
    by the machine on a Pi, and off a Pi its strip says so rather than touching a library."""
    from hardware.backend import MockBackend, PiBackend
    from hardware.buzzer import MockBuzzer
    from hardware.display import DisplaySettings, MockDisplay
    from hardware.errors import DeviceNotFoundError
    from hardware.inputs import InputPins, MockControls
    from hardware.leds import MockStrip, StripSettings

    mock = choose_backend(None, None, {}, None)
    assert isinstance(mock, MockBackend) and not (mock.physical or mock.powers_off)
    strip, display = mock.open_strip(StripSettings(), 243), mock.open_display(DisplaySettings())
    controls, buzzer = mock.open_controls(InputPins()), mock.open_buzzer(12)
    try:
        assert isinstance(strip, MockStrip) and strip.count == 243
        assert isinstance(display, MockDisplay) and isinstance(controls, MockControls)
        assert isinstance(buzzer, MockBuzzer)
        assert mock.power_off() is None
    finally:
        controls.close()
    real = choose_backend(None, None, {}, PI)
    assert isinstance(real, PiBackend) and real.physical and real.powers_off
    with pytest.raises(DeviceNotFoundError, match="needs a Raspberry Pi"):
        PiBackend("argument", "real").open_strip(StripSettings(), 243)  # off a Pi: never a PixelStrip
