"""A certificate's subject as Java's ``X500Principal.getName()`` writes it (RFC 2253).

Kafka names a TLS client by its certificate's subject in that form
(``CN=alice,OU=eng,O=Example,C=GB``): the relative distinguished names from the last to the
first, the attributes RFC 2253 has keywords for by keyword, any other attribute as its dotted
OID with the DER encoding of its value in hex (``1.2.840.113549.1.9.1=#16...``). This reads
just enough DER to find the subject of a certificate.
"""

from __future__ import annotations

#: the attribute keywords of RFC 2253 (Java prints no others)
_KEYWORDS = {
    "2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O",
    "2.5.4.11": "OU", "2.5.4.9": "STREET", "0.9.2342.19200300.100.1.25": "DC",
    "0.9.2342.19200300.100.1.1": "UID",
}
#: DER string types and how their bytes decode
_STRINGS = {0x0C: "utf-8", 0x13: "ascii", 0x16: "ascii", 0x14: "latin-1", 0x1E: "utf-16-be",
            0x1C: "utf-32-be", 0x1A: "ascii"}
_ESCAPED = ',=+<>#;"\\'


class CertificateError(ValueError):
    """The bytes are not a certificate this parser understands."""


def _tlv(data: bytes, pos: int) -> tuple[int, int, int]:
    """(tag, start of the value, end of the value) of the DER element at ``pos``."""
    if pos + 2 > len(data):
        raise CertificateError("truncated DER")
    tag, length = data[pos], data[pos + 1]
    pos += 2
    if length & 0x80:
        n = length & 0x7F
        if n == 0 or n > 4 or pos + n > len(data):
            raise CertificateError("bad DER length")
        length = int.from_bytes(data[pos:pos + n], "big")
        pos += n
    if pos + length > len(data):
        raise CertificateError("truncated DER")
    return tag, pos, pos + length


def _children(data: bytes, start: int, end: int) -> list[tuple[int, int, int, int]]:
    """(tag, element start, value start, value end) of each element in ``data[start:end]``."""
    out = []
    pos = start
    while pos < end:
        tag, vstart, vend = _tlv(data, pos)
        out.append((tag, pos, vstart, vend))
        pos = vend
    return out


def _oid(value: bytes) -> str:
    if not value:
        raise CertificateError("empty OID")
    parts = [min(value[0] // 40, 2), value[0] - 40 * min(value[0] // 40, 2)]
    n = 0
    for b in value[1:]:
        n = (n << 7) | (b & 0x7F)
        if not b & 0x80:
            parts.append(n)
            n = 0
    return ".".join(map(str, parts))


def _escape(text: str) -> str:
    out = "".join("\\" + c if c in _ESCAPED else ("\\00" if c == "\0" else c) for c in text)
    if out.startswith(" "):
        out = "\\" + out
    if out.endswith(" ") and not out.endswith("\\ "):
        out = out[:-1] + "\\ "
    return out


def _attribute(data: bytes, start: int, end: int) -> str:
    fields = _children(data, start, end)
    if len(fields) != 2 or fields[0][0] != 0x06:
        raise CertificateError("bad attribute")
    oid = _oid(data[fields[0][2]:fields[0][3]])
    tag, element, vstart, vend = fields[1]
    keyword = _KEYWORDS.get(oid)
    if keyword is None or tag not in _STRINGS:
        return f"{keyword or oid}=#{data[element:vend].hex()}"
    try:
        text = data[vstart:vend].decode(_STRINGS[tag])
    except UnicodeDecodeError:
        return f"{keyword}=#{data[element:vend].hex()}"
    return f"{keyword}={_escape(text)}"


def name_rfc2253(data: bytes, start: int, end: int) -> str:
    """A DER ``Name`` (the value bytes of its SEQUENCE) in RFC 2253 form."""
    rdns = []
    for tag, _, vstart, vend in _children(data, start, end):
        if tag != 0x31:
            raise CertificateError("bad relative distinguished name")
        rdns.append("+".join(_attribute(data, s, e) for t, _, s, e in
                             _children(data, vstart, vend) if t == 0x30))
    return ",".join(reversed(rdns))


def subject_rfc2253(der: bytes) -> str:
    """The subject of a DER certificate, as Java's X500Principal.getName() writes it."""
    tag, start, end = _tlv(der, 0)
    if tag != 0x30:
        raise CertificateError("not a certificate")
    tag, start, end = _tlv(der, start)  # tbsCertificate
    if tag != 0x30:
        raise CertificateError("not a certificate")
    fields = _children(der, start, end)
    if fields and fields[0][0] == 0xA0:  # [0] version
        fields = fields[1:]
    # serialNumber, signature, issuer, validity, subject
    if len(fields) < 5 or fields[4][0] != 0x30:
        raise CertificateError("certificate without a subject")
    return name_rfc2253(der, fields[4][2], fields[4][3])
