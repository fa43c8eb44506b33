"""atma: a state-aware overlay for agent memory."""
