"""Running the platform on one machine: private redis-server and PostgreSQL, the services as processes, `make run`."""
