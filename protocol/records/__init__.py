"""Record batches as Kafka writes them: the v2 batch and its records, the magic 0/1 message sets of
old clients, control records, compression."""
