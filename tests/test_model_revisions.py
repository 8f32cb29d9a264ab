"""Board revisions from the device tree's model, for a kernel that gives none (the Pi image's Debian kernel)."""

from __future__ import annotations

import pytest
from gpiozero.pins.pi import PiBoardInfo

from hardware.backend import PiBackend
from hardware.model import MODEL_REVISIONS, revision_for_model


@pytest.mark.parametrize("model, gpiozero_model", [
    ("Raspberry Pi 3 Model B Rev 1.2", "3B"),
    ("Raspberry Pi 3 Model B Plus Rev 1.3", "3B+"),
    ("Raspberry Pi 3 Model A Plus Rev 1.0", "3A+"),
    ("Raspberry Pi Zero 2 W Rev 1.0", "Zero2W"),
    ("Raspberry Pi 4 Model B Rev 1.5", "4B"),
    ("Raspberry Pi 400 Rev 1.0", "400"),
    ("Raspberry Pi Compute Module 4 Rev 1.0", "CM4"),
    ("Raspberry Pi Compute Module 3 Plus Rev 1.0", "CM3+"),
])
def test_each_model_gets_a_revision_gpiozero_reads_as_that_model(model, gpiozero_model):
    """The code given for a model is one gpiozero decodes as the same model, with the 40-pin header (a
    Compute Module 3+ has its SODIMM edge instead; its carrier board brings the same GPIO numbers out)."""
    info = PiBoardInfo.from_revision(revision_for_model(model))
    assert info.model == gpiozero_model
    header = "SODIMM" if gpiozero_model == "CM3+" else "J8"
    assert header in info.headers and (header != "J8" or len(info.headers["J8"].pins) == 40)


def test_a_longer_name_is_matched_before_its_prefix():
    """"Model B Plus" is not taken for "Model B": the longer names come first."""
    names = [name for name, _ in MODEL_REVISIONS]
    for i, name in enumerate(names):
        assert not any(name.startswith(earlier) for earlier in names[:i]), name


@pytest.mark.parametrize("model", [None, "", "Raspberry Pi 5 Model B Rev 1.0", "Raspberry Pi Model B Plus Rev 1.2"])
def test_no_revision_for_a_model_not_served(model):
    assert revision_for_model(model) is None


def test_off_a_pi_gpiozero_chooses_as_ever():
    """On this PC (no model in the device tree) the backend leaves the pin library to gpiozero."""
    assert PiBackend("argument", "").pin_factory() is None
