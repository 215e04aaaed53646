"""Players and trust: who calls (JWTs of the identity provider), seat tokens, revocation, rate limits, the development
issuer."""
