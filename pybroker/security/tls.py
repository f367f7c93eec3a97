"""TLS for the SSL and SASL_SSL listeners and for this broker's own connections to other
brokers, from Kafka's ``ssl.*`` settings, with Python's ssl module.

Each setting may be given for one listener as ``listener.name.<listener>.ssl.<...>``, which wins
over the broker-wide ``ssl.<...>`` (Kafka's listener prefix, the listener name lower-cased).

* Key store: ``ssl.keystore.type=PEM`` with the private key and certificate chain inline
  (``ssl.keystore.key``, ``ssl.keystore.certificate.chain``) or in one PEM file
  (``ssl.keystore.location``); ``PKCS12`` files where the ``cryptography`` package is installed;
  ``ssl.key.password`` decrypts an encrypted (PKCS#8) key. JKS key stores are Java's own format:
  refused, saying so.
* Trust store: ``ssl.truststore.type=PEM`` with the certificates inline
  (``ssl.truststore.certificates``) or in a file (``ssl.truststore.location``).
* ``ssl.client.auth``: ``none``, ``requested`` (a certificate is verified when the client sends
  one) or ``required``. On a SASL_SSL listener only the listener-prefixed setting counts, as in
  Kafka.
* ``ssl.enabled.protocols`` (``TLSv1.2,TLSv1.3``) bound the versions; ``ssl.cipher.suites``
  takes Kafka's (IANA) names of TLS 1.2 suites. Python cannot restrict TLS 1.3's suites: all of
  OpenSSL's stay enabled when TLS 1.3 is.
* The client's principal on an SSL listener is its certificate's subject in RFC 2253 form
  (``User:CN=alice,OU=eng``), through ``ssl.principal.mapping.rules``; a client without a
  certificate is ``User:ANONYMOUS``.

Reading key and trust stores is file I/O: contexts are built off the event loop.
"""

from __future__ import annotations

import base64
import os
import re
import ssl
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pybroker.config import BROKER_CONFIGS, BrokerConfig, ConfigException
from pybroker.config.listeners import SASL_SSL
from pybroker.security.principal import ANONYMOUS, USER_TYPE, KafkaPrincipal
from pybroker.security.ssl_principal import SslPrincipalMapper
from pybroker.security.x509 import subject_rfc2253

#: the ssl.* settings a listener prefix may override
SSL_SETTINGS = tuple(name for name in BROKER_CONFIGS if name.startswith("ssl."))

_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \1-----", re.S)
_PROTOCOL_VERSIONS = {
    "TLSv1": ssl.TLSVersion.TLSv1, "TLSv1.1": ssl.TLSVersion.TLSv1_1,
    "TLSv1.2": ssl.TLSVersion.TLSv1_2, "TLSv1.3": ssl.TLSVersion.TLSv1_3,
}


def listener_prefix(listener: str) -> str:
    """Kafka's prefix of a listener's own settings (ListenerName.configPrefix)."""
    return f"listener.name.{listener.lower()}."


def ssl_settings(config: BrokerConfig, listener: str | None) -> dict[str, Any]:
    """The typed ``ssl.*`` settings of a listener: its own, else the broker's."""
    prefix = listener_prefix(listener) if listener else None
    out: dict[str, Any] = {}
    for name in SSL_SETTINGS:
        raw = config.props.get(prefix + name) if prefix else None
        out[name] = config.value(name) if raw is None else BROKER_CONFIGS[name].parse(raw)
    if listener is not None and config.security_protocol(listener) == SASL_SSL \
            and prefix is not None and prefix + "ssl.client.auth" not in config.props:
        out["ssl.client.auth"] = "none"
    return out


def handshake_timeout_s(config: BrokerConfig) -> float:
    """How long a TLS handshake may take: ``connections.max.idle.ms``, after which Kafka closes
    a connection that has said nothing."""
    return max(0.001, config.get_int("connections.max.idle.ms") / 1000)


def normalise_pem(text: str, what: str) -> str:
    """PEM blocks re-wrapped: a value from a properties file has lost its line breaks (Kafka
    reads PEM ignoring white space too)."""
    blocks = []
    for kind, body in _PEM_BLOCK.findall(text):
        data = re.sub(r"\s+", "", body)
        try:
            base64.b64decode(data, validate=True)
        except ValueError as e:
            raise ConfigException(f"Invalid PEM in {what}: {e}") from e
        lines = [data[i:i + 64] for i in range(0, len(data), 64)]
        blocks.append(f"-----BEGIN {kind}-----\n" + "\n".join(lines) + f"\n-----END {kind}-----\n")
    if not blocks:
        raise ConfigException(f"Invalid PEM in {what}: no PEM block found")
    return "".join(blocks)


def _read(path: str, what: str) -> str:
    try:
        return Path(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigException(f"Failed to load {what} {path}: {e}") from e


def _pkcs12_as_pem(path: str, password: str | None) -> str:
    try:
        # (an optional dependency: the tests install it)
        from cryptography.hazmat.primitives.serialization import (  # type: ignore[import-not-found,unused-ignore]  # noqa: E501
            Encoding,
            NoEncryption,
            PrivateFormat,
            pkcs12,
        )
    except ImportError as e:
        raise ConfigException("ssl.keystore.type PKCS12 needs the cryptography package: use "
                              "ssl.keystore.type=PEM") from e
    try:
        key, cert, extra = pkcs12.load_key_and_certificates(
            Path(path).read_bytes(), password.encode() if password else None)
    except (OSError, ValueError) as e:
        raise ConfigException(f"Failed to load SSL keystore {path} of type PKCS12: {e}") from e
    if key is None or cert is None:
        raise ConfigException(f"SSL keystore {path} holds no private key and certificate")
    pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode()
    for c in (cert, *(extra or ())):
        pem += c.public_bytes(Encoding.PEM).decode()
    return pem


def _key_store(settings: dict[str, Any], files: bool = True) -> tuple[str, str | None] | None:
    """(PEM with the private key and the certificate chain, key password), or None when no key
    store is configured; refusals in Kafka's words (DefaultSslEngineFactory). ``files``: read
    a key store file (else a file is taken as given: ``("", None)``)."""
    kind = settings["ssl.keystore.type"]
    location, password = settings["ssl.keystore.location"], settings["ssl.keystore.password"]
    chain, key = settings["ssl.keystore.certificate.chain"], settings["ssl.keystore.key"]
    key_password = settings["ssl.key.password"]
    if key:
        if kind != "PEM":
            raise ConfigException("SSL private key can be specified only for PEM, but key store "
                                  f"type is {kind}.")
        if not chain:
            raise ConfigException("SSL private key is specified, but certificate chain is not "
                                  "specified.")
        if location:
            raise ConfigException("Both SSL key store location and separate private key are "
                                  "specified.")
        if password:
            raise ConfigException("SSL key store password cannot be specified with PEM format, "
                                  "only key password may be specified.")
        return (normalise_pem(key, "ssl.keystore.key")
                + normalise_pem(chain, "ssl.keystore.certificate.chain"), key_password)
    if chain:
        raise ConfigException("SSL certificate chain is specified, but private key is not "
                              "specified")
    if kind == "PEM" and location:
        if password:
            raise ConfigException("SSL key store password cannot be specified with PEM format, "
                                  "only key password may be specified")
        if not files:
            return "", None
        return normalise_pem(_read(location, "SSL keystore"), "ssl.keystore.location"), \
            key_password
    if not location:
        if password:
            raise ConfigException("SSL key store is not specified, but key store password is "
                                  "specified.")
        return None
    if not password:
        raise ConfigException("SSL key store is specified, but key store password is not "
                              "specified.")
    if kind == "PKCS12":
        return (_pkcs12_as_pem(location, password), None) if files else ("", None)
    raise ConfigException(f"SSL keystore {location} is of type {kind}, which this broker cannot "
                          "read: use ssl.keystore.type=PEM (or PKCS12)")


def _trusted(settings: dict[str, Any], files: bool = True) -> str | None:
    """The trusted certificates as PEM, or None when no trust store is configured (``files``:
    as :func:`_key_store`)."""
    kind = settings["ssl.truststore.type"]
    location, inline = settings["ssl.truststore.location"], settings["ssl.truststore.certificates"]
    password = settings["ssl.truststore.password"]
    if inline:
        if kind != "PEM":
            raise ConfigException("SSL trust store certs can be specified only for PEM, but "
                                  f"trust store type is {kind}.")
        if location:
            raise ConfigException("Both SSL trust store location and separate trust "
                                  "certificates are specified.")
        if password:
            raise ConfigException("SSL trust store password cannot be specified for PEM format.")
        return normalise_pem(inline, "ssl.truststore.certificates")
    if not location:
        if password:
            raise ConfigException("SSL trust store is not specified, but trust store password "
                                  "is specified.")
        return None
    if kind != "PEM":
        raise ConfigException(f"SSL truststore {location} is of type {kind}, which this broker "
                              "cannot read: use ssl.truststore.type=PEM")
    if password:
        raise ConfigException("SSL trust store password cannot be specified for PEM format.")
    if not files:
        return ""
    return normalise_pem(_read(location, "SSL truststore"), "ssl.truststore.location")


def _load_key_store(context: ssl.SSLContext, pem: str, password: str | None) -> None:
    """Python loads a certificate chain from files only: a private temporary file, removed at
    once."""
    fd, path = tempfile.mkstemp(prefix="pybroker-keystore-", suffix=".pem")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(pem)
        context.load_cert_chain(path, password=password or None)
    except ssl.SSLError as e:
        raise ConfigException(f"Failed to load SSL keystore: {e}") from e
    finally:
        os.unlink(path)


def openssl_cipher(name: str) -> str:
    """A TLS 1.2 suite's IANA name (Java's, as Kafka takes it) in OpenSSL's spelling:
    ``TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`` -> ``ECDHE-RSA-AES128-GCM-SHA256``."""
    if not name.startswith("TLS_") or "_WITH_" not in name:
        return name  # already OpenSSL's, or a TLS 1.3 suite (the same in both)
    kx, _, rest = name[4:].partition("_WITH_")
    cipher = (rest.replace("AES_128_", "AES128_").replace("AES_256_", "AES256_")
              .replace("CHACHA20_POLY1305_SHA256", "CHACHA20-POLY1305"))
    cipher = re.sub(r"_CBC_SHA$", "_SHA", cipher).replace("_CBC_", "_")
    parts = ([] if kx == "RSA" else kx.split("_")) + cipher.split("_")
    return "-".join(parts)


def _apply_protocols_and_ciphers(context: ssl.SSLContext, settings: dict[str, Any]) -> None:
    protocols = settings["ssl.enabled.protocols"] or [settings["ssl.protocol"]]
    versions = [_PROTOCOL_VERSIONS[p] for p in protocols if p in _PROTOCOL_VERSIONS]
    if not versions:
        raise ConfigException(f"None of the SSL protocols {protocols} is one this broker knows "
                              f"({', '.join(_PROTOCOL_VERSIONS)})")
    context.minimum_version, context.maximum_version = min(versions), max(versions)
    suites = settings["ssl.cipher.suites"]
    if suites:
        tls12 = [openssl_cipher(s) for s in suites if not s.startswith("TLS_AES_")
                 and not s.startswith("TLS_CHACHA20_")]
        if tls12:
            try:
                context.set_ciphers(":".join(tls12))
            except ssl.SSLError as e:
                raise ConfigException(f"None of the cipher suites {suites} can be used: {e}") \
                    from e


def _server_stores(settings: dict[str, Any], listener: str, files: bool
                   ) -> tuple[tuple[str, str | None], str | None]:
    key_store = _key_store(settings, files)
    if key_store is None:
        raise ConfigException(f"Listener {listener} runs over TLS but has no key store: set "
                              "ssl.keystore.type=PEM with ssl.keystore.location or "
                              "ssl.keystore.certificate.chain and ssl.keystore.key")
    trusted = _trusted(settings, files)
    client_auth = settings["ssl.client.auth"]
    if client_auth != "none" and trusted is None:
        raise ConfigException(f"ssl.client.auth={client_auth} on listener {listener} needs "
                              "a trust store (ssl.truststore.*)")
    return key_store, trusted


def check_server_settings(config: BrokerConfig, listener: str) -> None:
    """:func:`server_context`'s checks that read no file (ConfigException): what can be
    checked on the event loop before a listener opens; its files are read as it opens."""
    settings = ssl_settings(config, listener)
    _server_stores(settings, listener, files=False)
    _apply_protocols_and_ciphers(ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER), settings)


def server_context(config: BrokerConfig, listener: str) -> ssl.SSLContext:
    """The TLS context of a listener's connections (ConfigException when its settings do not
    give one). Reads the key and trust stores: call it off the event loop."""
    settings = ssl_settings(config, listener)
    key_store, trusted = _server_stores(settings, listener, files=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    _apply_protocols_and_ciphers(context, settings)
    _load_key_store(context, *key_store)
    client_auth = settings["ssl.client.auth"]
    if client_auth != "none" and trusted is not None:
        context.load_verify_locations(cadata=trusted)
        context.verify_mode = (ssl.CERT_REQUIRED if client_auth == "required"
                               else ssl.CERT_OPTIONAL)
    return context


def client_context(config: BrokerConfig, listener: str) -> ssl.SSLContext:
    """The TLS context of this broker's connections to other brokers' ``listener`` (the
    inter-broker listener): the listener's trust store verifies them, its key store is this
    broker's certificate when they ask for one, and ``ssl.endpoint.identification.algorithm``
    (``https``, or empty for none) checks their names."""
    settings = ssl_settings(config, listener)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    _apply_protocols_and_ciphers(context, settings)
    trusted = _trusted(settings)
    if trusted is not None:
        context.load_verify_locations(cadata=trusted)
    else:
        context.load_default_certs()
    key_store = _key_store(settings)
    if key_store is not None:
        _load_key_store(context, *key_store)
    context.check_hostname = bool(settings["ssl.endpoint.identification.algorithm"])
    return context


def principal_builder(config: BrokerConfig) -> Callable[[bytes | None], KafkaPrincipal]:
    """What names a TLS client from its certificate (DER; None without one): Kafka's default
    principal builder with ``ssl.principal.mapping.rules``."""
    try:
        mapper = SslPrincipalMapper(config.value("ssl.principal.mapping.rules"))
    except ValueError as e:
        raise ConfigException(f"Invalid value {config.get('ssl.principal.mapping.rules')} for "
                              f"configuration ssl.principal.mapping.rules: {e}") from e

    def build(der: bytes | None) -> KafkaPrincipal:
        if der is None:
            return ANONYMOUS
        return KafkaPrincipal(USER_TYPE, mapper.name(subject_rfc2253(der)))

    return build
