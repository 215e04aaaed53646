"""The HTTP face every service shares: errors as responses (http.py), the OpenAPI and AsyncAPI documents, admission
control, languages, and the composition root: how a service starts (bootstrap.py) and `benthic serve` (serve.py)."""
