"""launchx: launch multi-node PyTorch training that works the first time and recovers.

Importing the package has no side effects and never imports torch; only
``launchx.runtime`` (used by training scripts) does, lazily.
"""

__version__ = "0.1.0"
