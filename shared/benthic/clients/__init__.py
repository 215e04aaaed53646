"""Clients of the platform's HTTP APIs: the typed client and the bots that play over HTTP."""
