"""atma: a state-aware overlay for agent memory.

Wrap the memory system you run, ``ATMAOverlay(host)``, and answers follow the state the
question asks about: now, before, or what changed. Models it is not given come from
:mod:`atma.factory`, loaded on first use.
"""

from .bank import StateBank
from .overlay import ATMAOverlay, AddResult, Answer, OverlayConfig
from .records import Link, LinkType, Record, Status

__all__ = ["ATMAOverlay", "AddResult", "Answer", "Link", "LinkType", "OverlayConfig", "Record", "StateBank", "Status"]
__version__ = "0.1.0"
