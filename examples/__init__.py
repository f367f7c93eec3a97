"""Examples that run against pybroker; each is meant to be copied."""
