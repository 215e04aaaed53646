"""The notifier service: turn notifications by webhook (docs/INTEGRATION.md#webhooks)."""
