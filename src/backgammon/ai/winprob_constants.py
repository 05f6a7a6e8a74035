"""Fitted constants of :mod:`backgammon.ai.winprob` (see that module for the models).

Written by ``python -m backgammon.training.fit_winprob``; do not edit by hand.

Fitted on 2000 self-play games (100165 positions), both sides 'medium', cube off, seed 22,
round 2 of 2; games ending in a gammon or backgammon: 0.2675.
"""

CONTACT_WIN = (-0.1187, 0.4325)
CONTACT_GAMMON_WIN = (-2.7762, 0.2741, 0.1708, 0.0361)
CONTACT_GAMMON_LOSE = (-2.5677, 0.298, 0.0957, 0.065)
CONTACT_BACKGAMMON_WIN = (-1.3909, 0.2782)
CONTACT_BACKGAMMON_LOSE = (-1.1514, 0.179)
RACE_WIN = (-0.6129, 1.6531, -0.0127)
RACE_GAMMON_WIN = (-9.2014, 1.347, 1.0935, -0.4869)
RACE_GAMMON_LOSE = (-7.9858, 1.4584, 0.9381, -0.4694)
#: Share of games ending in a gammon or backgammon, for the match equity table.
GAMMON_RATE = 0.2675
