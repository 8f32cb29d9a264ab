"""The board: the main loop, its devices, the controller and its panels, and the views.

A press travels down this program: :mod:`~firmware.board.loop` sleeps on the
input queue and hands each event to :mod:`~firmware.board.controller`, which
makes it a ledger entry (or gives it to the open panel: :mod:`~firmware.board.menu`,
:mod:`~firmware.board.picker`, :mod:`~firmware.board.phone`); the pure views
(:mod:`~firmware.board.frames` for the LEDs, :mod:`~firmware.board.screens`
for the OLED, :mod:`~firmware.board.tunes` for the buzzer) say what the devices
show, and :mod:`~firmware.board.devices` keeps the devices open. It imports the
config, ``scorer``, ``ledger`` and ``hardware``; never the PC side, the command
line or the web view.
"""
