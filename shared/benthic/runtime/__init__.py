"""The runtime every floor above the rules uses: settings (config.py), logs and metrics (telemetry.py), Redis
connections (redisconn.py). No web framework here."""
