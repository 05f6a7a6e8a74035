"""Fitted constants of :mod:`backgammon.ai.winprob` (see that module for the models).

Written by ``python -m backgammon.training.fit_winprob``; do not edit by hand.

Fitted on 2500 self-play games (132782 positions), both sides 'medium', cube off, seed 32,
round 2 of 2; games ending in a gammon or backgammon: 0.2840.
"""

CONTACT_WIN = (-0.1089, 0.4467)
CONTACT_GAMMON_WIN = (-3.0313, 0.3179, 0.1489, 0.0596)
CONTACT_GAMMON_LOSE = (-2.9061, 0.3543, 0.0936, 0.0889)
CONTACT_BACKGAMMON_WIN = (-1.2607, 0.2253)
CONTACT_BACKGAMMON_LOSE = (-1.051, 0.1575)
RACE_WIN = (-0.6114, 1.5761, -0.0062)
RACE_GAMMON_WIN = (-9.2852, 1.3887, 1.0363, -0.6471)
RACE_GAMMON_LOSE = (-8.2141, 1.5522, 0.8372, -0.5863)
#: Share of games ending in a gammon or backgammon, for the match equity table.
GAMMON_RATE = 0.2840
