"""Pure statistics: no I/O, the standard library only. ``sprt``: the sequential test that
tells whether one bot is better than another (``arena test``); ``groups``: how a paired
duplicate group is scored and what pairing saves; ``judgement``: an analysed decision's
scale, intervals, marks and accuracy."""
