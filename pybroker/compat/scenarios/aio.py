"""Scenarios with aio."""

from __future__ import annotations
