"""Placeholder until the coverage study writes it."""

STUDY: dict = {}

COVERAGE: dict = {}
