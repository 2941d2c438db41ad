"""One ``launchx run``: a loop of attempts around pure decisions and small ports.

    start ──> RunSpec (decided once) ──> loop: plan attempt ─> Attempts.run ─> assess
                                              ^                               │
                                              └── RetryAfter ◄── next_step ◄──┘ (Peers.agree)

``decide`` holds every rule (pure), ``ports`` the Protocols of the world the loop touches,
``loop`` the order of things, ``start`` the wiring of the real world; ``attempts``,
``history``, ``peers`` and ``world`` are the real implementations of the ports.
"""
