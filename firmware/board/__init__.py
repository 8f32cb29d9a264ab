"""The board: the main loop, its devices, the controller and its panels, and the views.

A press travels down this program: ``loop`` hands each input event to ``controller``, which makes it
a ledger entry (or gives it to the open panel: ``menu``, ``picker``, ``phone``); the pure views
(``frames``, ``screens``, ``tunes``) say what the devices show, and ``devices`` keeps them open.
It imports the config, ``scorer``, ``ledger`` and ``hardware``; never the PC side, the command
line or the web view.
"""
