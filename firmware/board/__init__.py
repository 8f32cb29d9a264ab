"""The board: the main loop, its devices, the controller and its panels, and the views.

A press travels down this program: ``loop`` hands each input event to ``controller``, which makes it
a ledger entry (or gives it to the open panel: ``menu``, ``picker``, ``phone``); the pure views
(``frames``, ``screens``, ``tunes``) say what the devices show, and ``devices`` keeps them open.
It imports the base, ``scorer``, ``ledger``, ``hardware``, and of ``wire``, ``server`` and its
``club`` only ``relay``, ``lan`` and ``link``; never the PC side, the web view, the hub or the CLI.
"""
