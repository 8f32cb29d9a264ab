"""The console's own help: its "help" line, and its --help after the first paragraph.

A module of its own, importing nothing, so the command line's declaration can
show it without loading the console. Each line it shows is one the record
reader takes (tests/test_cli.py replays them).
"""

CONSOLE_HELP = """\
Type one line of the game record and press Enter, e.g.
  game six-card seats=Alice,Bob dealer=Alice   start a game, Alice dealing first
  game six-card seats=Alice,Bob target=61 skunk=none points=2/3/3 new-match
      options, in any order: target=N (31 to 1000)  exact-out  muggins
      skunk=acc|lurch|triple|none
      points=acc|casual, or game points win/skunk/double[/triple/lurch]: 2/3/3
      new-match (a new match: the tally starts again at 0)
  variants: six-card five-card seven-card three-hand four-hand
            four-hand-individual low-ball
  heels              the dealer's 2 for a jack turned
  peg Bob 2          points in the play        go Bob / 31 Bob
  hand Bob 8         a hand in the show        crib 4   the dealer's crib
  muggins Alice 2    claim points missed       undo / redo
  status  export  help  quit"""
