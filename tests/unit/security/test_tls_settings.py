"""TLS settings and principals: Kafka's PEM key and trust stores (inline, with their line
breaks lost in a properties file, or in files), per-listener settings, client auth, protocols,
cipher names, the RFC 2253 subject and ssl.principal.mapping.rules."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from pybroker.config import BrokerConfig, ConfigException
from pybroker.security.principal import ANONYMOUS
from pybroker.security.ssl_principal import NoMatchingRule, SslPrincipalMapper
from pybroker.security.tls import (
    client_context,
    openssl_cipher,
    principal_builder,
    server_context,
    ssl_settings,
)
from pybroker.security.x509 import subject_rfc2253
from pybroker.testing.certs import CertificateAuthority, server_properties


@pytest.fixture(scope="module")
def ca() -> CertificateAuthority:
    return CertificateAuthority.create()


def der(pem: str) -> bytes:
    return x509.load_pem_x509_certificate(pem.encode()).public_bytes(Encoding.DER)


def config(**props: str) -> BrokerConfig:
    return BrokerConfig.from_dict(props)


def test_the_subject_as_java_writes_it(ca: CertificateAuthority) -> None:
    cert = der(ca.issue("CN=alice,OU=eng,O=Example,L=Leeds,C=GB", client=True).cert_pem)
    assert subject_rfc2253(cert) == "CN=alice,OU=eng,O=Example,L=Leeds,C=GB"
    assert subject_rfc2253(cert) == x509.load_der_x509_certificate(cert).subject.rfc4514_string()
    assert subject_rfc2253(der(ca.cert_pem)) == "CN=pybroker test CA,O=pybroker"


def test_mapping_rules_as_kafka_applies_them() -> None:
    dn = "CN=alice,OU=eng,O=Example,C=GB"
    assert SslPrincipalMapper("DEFAULT").name(dn) == dn
    assert SslPrincipalMapper(None).name(dn) == dn
    rules = SslPrincipalMapper(
        "RULE:^CN=(.*?),OU=(.*?),O=(.*?),C=(.*?)$/$1@$2/L, RULE:^CN=(.*)$/$1/U, DEFAULT")
    assert rules.name(dn) == "alice@eng"
    assert rules.name("CN=bob") == "BOB"
    assert rules.name("O=x") == "O=x"
    assert SslPrincipalMapper(r"RULE:^CN=(.*)$/$1\$$2/").name("CN=x") == "x$$2"
    with pytest.raises(NoMatchingRule):
        SslPrincipalMapper("RULE:^CN=(.*)$/$1/").name("O=x")
    with pytest.raises(ValueError, match="Invalid rule"):
        SslPrincipalMapper("RULE:^CN=(.*)$/$1/LX garbage")


def test_the_principal_of_a_client(ca: CertificateAuthority) -> None:
    build = principal_builder(config(**{"ssl.principal.mapping.rules":
                                        "RULE:^CN=([^,]*),.*$/$1/"}))
    assert str(build(der(ca.issue("CN=carol,O=x", client=True).cert_pem))) == "User:carol"
    assert build(None) == ANONYMOUS


def test_inline_pem_without_line_breaks_and_listener_settings(ca: CertificateAuthority) -> None:
    server = ca.issue("CN=broker")
    props = server_properties(ca, server, client_auth="required", listener="secure")
    # a properties file joins continued lines: the PEM arrives without its line breaks
    props = {k: v.replace("\n", " ") for k, v in props.items()}
    cfg = config(listeners="PLAINTEXT://:9092,SECURE://:9093",
                 **{"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SECURE:SSL"}, **props)
    settings = ssl_settings(cfg, "SECURE")
    assert settings["ssl.client.auth"] == "required"
    assert ssl_settings(cfg, "PLAINTEXT")["ssl.client.auth"] == "none"
    context = server_context(cfg, "SECURE")
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.minimum_version == ssl.TLSVersion.TLSv1_2
    assert context.maximum_version == ssl.TLSVersion.TLSv1_3


def test_pem_files_an_encrypted_key_and_requested_client_auth(ca: CertificateAuthority,
                                                              tmp_path: Path) -> None:
    server = ca.issue("CN=broker", key_password="secret")
    server.write(tmp_path, "server")
    props = server_properties(ca, server, client_auth="requested", inline=False)
    cfg = config(listeners="SSL://:9093", **{"security.inter.broker.protocol": "SSL",
                                             "ssl.enabled.protocols": "TLSv1.3"}, **props)
    context = server_context(cfg, "SSL")
    assert context.verify_mode == ssl.CERT_OPTIONAL
    assert context.minimum_version == context.maximum_version == ssl.TLSVersion.TLSv1_3
    client = client_context(cfg, "SSL")
    assert client.check_hostname and client.verify_mode == ssl.CERT_REQUIRED
    wrong = config(listeners="SSL://:9093", **{**props, "ssl.key.password": "wrong"})
    with pytest.raises(ConfigException, match="Failed to load SSL keystore"):
        server_context(wrong, "SSL")


def test_sasl_ssl_takes_client_auth_only_from_its_listener(ca: CertificateAuthority) -> None:
    props = server_properties(ca, ca.issue("CN=broker"), client_auth="required")
    cfg = config(listeners="SASL_SSL://:9094", **props)
    assert ssl_settings(cfg, "SASL_SSL")["ssl.client.auth"] == "none"
    assert server_context(cfg, "SASL_SSL").verify_mode == ssl.CERT_NONE


def test_key_stores_this_broker_cannot_read_are_refused(tmp_path: Path) -> None:
    (tmp_path / "ks.jks").write_bytes(b"\xfe\xed\xfe\xed")
    for props, message in (
            ({}, "has no key store"),
            ({"ssl.keystore.location": str(tmp_path / "ks.jks"),
              "ssl.keystore.password": "p"}, "of type JKS, which this broker cannot read"),
            ({"ssl.keystore.location": str(tmp_path / "ks.jks")},
             "SSL key store is specified, but key store password is not specified."),
            ({"ssl.keystore.type": "PEM", "ssl.keystore.key": "x"},
             "SSL private key is specified, but certificate chain is not specified."),
            ({"ssl.keystore.key": "x", "ssl.keystore.certificate.chain": "y"},
             "SSL private key can be specified only for PEM, but key store type is JKS."),
    ):
        with pytest.raises(ConfigException, match=message):
            server_context(config(listeners="SSL://:9093", **props), "SSL")


def test_cipher_suites_in_kafkas_names() -> None:
    assert openssl_cipher("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256") == "ECDHE-RSA-AES128-GCM-SHA256"
    assert openssl_cipher("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256") == (
        "ECDHE-ECDSA-CHACHA20-POLY1305")  # OpenSSL names it without the hash
    assert openssl_cipher("TLS_RSA_WITH_AES_256_CBC_SHA") == "AES256-SHA"
    assert openssl_cipher("TLS_AES_128_GCM_SHA256") == "TLS_AES_128_GCM_SHA256"


def test_a_pkcs12_key_store(ca: CertificateAuthority, tmp_path: Path) -> None:
    from cryptography.hazmat.primitives.serialization import (
        BestAvailableEncryption,
        load_pem_private_key,
        pkcs12,
    )

    server = ca.issue("CN=broker")
    key = load_pem_private_key(server.key_pem.encode(), None)
    cert = x509.load_pem_x509_certificate(server.cert_pem.encode())
    path = tmp_path / "broker.p12"
    path.write_bytes(pkcs12.serialize_key_and_certificates(
        b"broker", key, cert, [ca.cert], BestAvailableEncryption(b"store-secret")))
    props = {"ssl.keystore.type": "PKCS12", "ssl.keystore.location": str(path),
             "ssl.keystore.password": "store-secret"}
    assert server_context(config(listeners="SSL://:9093", **props), "SSL").verify_mode == (
        ssl.CERT_NONE)
    with pytest.raises(ConfigException, match="of type PKCS12"):
        server_context(config(listeners="SSL://:9093",
                              **{**props, "ssl.keystore.password": "wrong"}), "SSL")


def test_settings_checked_without_reading_files(tmp_path: Path) -> None:
    from pybroker.security.tls import check_server_settings

    missing = str(tmp_path / "nowhere.pem")
    props = {"ssl.keystore.type": "PEM", "ssl.keystore.location": missing,
             "ssl.truststore.type": "PEM", "ssl.truststore.location": missing,
             "ssl.client.auth": "required"}
    cfg = config(listeners="SSL://:9093", **props)
    check_server_settings(cfg, "SSL")  # the files are read when the listener opens
    with pytest.raises(ConfigException, match="Failed to load SSL keystore"):
        server_context(cfg, "SSL")
    with pytest.raises(ConfigException, match="needs a trust store"):
        check_server_settings(config(listeners="SSL://:9093", **{
            **props, "ssl.truststore.location": ""}), "SSL")
