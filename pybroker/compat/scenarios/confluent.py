"""Scenarios with confluent."""

from __future__ import annotations
