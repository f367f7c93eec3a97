"""The embedded single node: a one-broker cluster whose znodes live in its first log dir."""
