"""checkdmarc's package, reduced to what its BIMI certificate check needs (see ../README.md).

The real __init__.py imports every checker of the tool (SPF, MTA-STS, SMTP, DNSSEC, ...) and their
dependencies; the certificate check lives in checkdmarc.bimi, which imports only the modules copied here.
"""
