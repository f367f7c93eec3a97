"""Certificates for tests: a certificate authority, a server certificate for 127.0.0.1 and
localhost, client certificates with chosen subjects, as PEM files and inline PEM strings.

Made with the ``cryptography`` package (EC P-256 keys: quick to make, taken by Python's ssl,
librdkafka and Java alike)::

    ca = CertificateAuthority.create()
    server = ca.issue("CN=broker")                      # for 127.0.0.1 and localhost
    alice = ca.issue("CN=alice,OU=eng,O=Example", client=True)
    props = server_properties(ca, server, client_auth="required")   # ssl.* for the broker
    alice.write(tmp_path, "alice")                      # alice.pem (chain), alice.key, ...

Subjects are written in RFC 2253 order (most specific first), which is how Kafka names the
client: ``User:CN=alice,OU=eng,O=Example``.
"""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_OIDS = {
    "CN": NameOID.COMMON_NAME, "OU": NameOID.ORGANIZATIONAL_UNIT_NAME,
    "O": NameOID.ORGANIZATION_NAME, "L": NameOID.LOCALITY_NAME,
    "ST": NameOID.STATE_OR_PROVINCE_NAME, "C": NameOID.COUNTRY_NAME,
    "DC": NameOID.DOMAIN_COMPONENT, "UID": NameOID.USER_ID,
}


def parse_subject(subject: str) -> x509.Name:
    """``CN=alice,OU=eng`` (RFC 2253 order, no escapes) -> an x509 Name."""
    attributes = []
    for part in subject.split(","):
        key, _, value = part.strip().partition("=")
        attributes.append(x509.NameAttribute(_OIDS[key.strip().upper()], value.strip()))
    return x509.Name(list(reversed(attributes)))


def _pem_key(key: ec.EllipticCurvePrivateKey, password: str | None) -> str:
    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(password.encode()) if password
        else serialization.NoEncryption())
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             encryption).decode()


@dataclass
class Credential:
    """A private key with its certificate (and the CA's after it: the chain)."""

    subject: str
    key_pem: str
    cert_pem: str
    chain_pem: str
    key_password: str | None = None
    files: dict[str, Path] = field(default_factory=dict)

    def write(self, directory: Path, name: str) -> dict[str, Path]:
        """``<name>.key``, ``<name>.pem`` (the chain) and ``<name>-keystore.pem`` (key and
        chain in one file, Kafka's PEM key store file) in ``directory``."""
        directory.mkdir(parents=True, exist_ok=True)
        files = {"key": directory / f"{name}.key", "chain": directory / f"{name}.pem",
                 "keystore": directory / f"{name}-keystore.pem"}
        files["key"].write_text(self.key_pem)
        files["chain"].write_text(self.chain_pem)
        files["keystore"].write_text(self.key_pem + self.chain_pem)
        for path in files.values():
            path.chmod(0o600)
        self.files = files
        return files


@dataclass
class CertificateAuthority:
    key: ec.EllipticCurvePrivateKey
    cert: x509.Certificate

    @classmethod
    def create(cls, subject: str = "CN=pybroker test CA,O=pybroker") -> CertificateAuthority:
        key = ec.generate_private_key(ec.SECP256R1())
        name = parse_subject(subject)
        now = datetime.datetime.now(datetime.UTC)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(days=1))
                .not_valid_after(now + datetime.timedelta(days=30))
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .add_extension(x509.KeyUsage(
                    digital_signature=True, content_commitment=False, key_encipherment=False,
                    data_encipherment=False, key_agreement=False, key_cert_sign=True,
                    crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
                .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                               critical=False)
                .sign(key, hashes.SHA256()))
        return cls(key, cert)

    @property
    def cert_pem(self) -> str:
        return self.cert.public_bytes(serialization.Encoding.PEM).decode()

    def write(self, directory: Path, name: str = "ca") -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{name}.pem"
        path.write_text(self.cert_pem)
        return path

    def issue(self, subject: str, *, client: bool = False,
              hosts: tuple[str, ...] = ("localhost", "127.0.0.1"),
              key_password: str | None = None, days: int = 30) -> Credential:
        """A certificate for ``subject``: a server's (for ``hosts``, names or addresses) or,
        with ``client``, a client's; valid from yesterday for ``days``."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        builder = (x509.CertificateBuilder().subject_name(parse_subject(subject))
                   .issuer_name(self.cert.subject).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(days=1))
                   .not_valid_after(now + datetime.timedelta(days=days))
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None),
                                  critical=True)
                   .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                       self.key.public_key()), critical=False)
                   .add_extension(x509.ExtendedKeyUsage(
                       [ExtendedKeyUsageOID.CLIENT_AUTH] if client else
                       [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
                       critical=False))
        if not client:
            names: list[x509.GeneralName] = []
            for host in hosts:
                try:
                    names.append(x509.IPAddress(ipaddress.ip_address(host)))
                except ValueError:
                    names.append(x509.DNSName(host))
            builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
        cert = builder.sign(self.key, hashes.SHA256())
        cert_pem = cert.public_bytes(serialization.Encoding.PEM).decode()
        return Credential(subject, _pem_key(key, key_password), cert_pem,
                          cert_pem + self.cert_pem, key_password)

    def client_context(self, credential: Credential | None = None) -> ssl.SSLContext:
        """A Python client's TLS context trusting this CA (with ``credential`` as its own
        certificate; its files must have been written)."""
        context = ssl.create_default_context(cadata=self.cert_pem)
        if credential is not None:
            context.load_cert_chain(credential.files["chain"], credential.files["key"],
                                    password=credential.key_password)
        return context


def server_properties(ca: CertificateAuthority, server: Credential, *,
                      client_auth: str = "none", listener: str | None = None,
                      inline: bool = True) -> dict[str, str]:
    """The broker's ``ssl.*`` properties (with ``listener``: ``listener.name.<l>.ssl.*``): the
    key store and trust store as inline PEM, or (``inline=False``) as the files
    ``server.write`` made, with the CA in ``ca.pem`` beside them."""
    prefix = f"listener.name.{listener.lower()}." if listener else ""
    props = {"ssl.keystore.type": "PEM", "ssl.truststore.type": "PEM",
             "ssl.client.auth": client_auth}
    if inline:
        props["ssl.keystore.certificate.chain"] = server.chain_pem
        props["ssl.keystore.key"] = server.key_pem
        props["ssl.truststore.certificates"] = ca.cert_pem
    else:
        keystore = server.files["keystore"]
        props["ssl.keystore.location"] = str(keystore)
        props["ssl.truststore.location"] = str(ca.write(keystore.parent))
    if server.key_password:
        props["ssl.key.password"] = server.key_password
    return {prefix + k: v for k, v in props.items()}
