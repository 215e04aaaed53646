"""A game as the services see it: envelopes and platform events, folded state and lifecycle, histories, Redis keys,
content."""
