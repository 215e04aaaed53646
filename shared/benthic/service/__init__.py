"""What every service is built from: settings, HTTP errors and the OpenAPI, telemetry, Redis connections, the feed
consumers."""
