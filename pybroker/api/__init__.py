"""The request handlers, one module per Kafka API registered with its versions, and the request
router that hands each request to its handler with the services it may use."""
