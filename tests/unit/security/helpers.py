"""The SCRAM exchange of RFC 7677, section 3 (user ``user``, password ``pencil``), shared by the
broker's SCRAM tests (here) and those of the compatibility suite's own client
(tests/unit/compat)."""

from __future__ import annotations

import base64

RFC_SALT = base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ==")
RFC_NONCE = "rOprNGfwEbeRWgbNEkqO"
RFC_CLIENT_FIRST = b"n,,n=user,r=" + RFC_NONCE.encode()
RFC_SERVER_FIRST = (b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                    b"s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
RFC_CLIENT_FINAL = (b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                    b"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
RFC_SERVER_FINAL = b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
