"""Benthic: event-sourced hosting of deep-sea board games."""

__version__ = "0.1.0"
