"""Who a connection speaks for, and what it may do: principals, authentication and authorization.

The network layer sets a connection's principal once it has authenticated it (TLS client
certificates, SASL); every request carries it in its context for the authorizer to check.
"""
