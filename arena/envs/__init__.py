"""Every arena game for reinforcement learning (the ``rl`` extra: ``pip install 'arena[rl]'``).

- ``arena.envs.pettingzoo.env(game, num_players=2, options=None, render_mode=None)``: a
  PettingZoo AEC environment of any registered game;
- ``arena.envs.encoding``: the blocks a game's fixed observation tensor is made of, and
  ``load(game, num_players, options)``, the game's ``Encoding`` (its module
  ``arena.games.<game>.encoding``): the tensor's layout and the fixed action space.

The core arena never imports this package: numpy, gymnasium and PettingZoo are needed only
here. See ``docs/research.md``.
"""
