"""atma: a state-aware overlay for agent memory.

Wrap the memory system you run, ``ATMAOverlay(host, namespace=...)``, and answers follow
the state the question asks about: now, before, or what changed.
"""

from .bank import StateBank
from .overlay import ATMAOverlay, AddResult, Answer, OverlayConfig
from .records import Link, LinkType, Record, Status

__all__ = ["ATMAOverlay", "AddResult", "Answer", "Link", "LinkType", "OverlayConfig", "Record", "StateBank", "Status"]
__version__ = "0.1.0"
