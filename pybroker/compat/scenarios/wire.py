"""Scenarios with wire."""

from __future__ import annotations
