"""The matchmaker service (services/matchmaker/app.py)."""
