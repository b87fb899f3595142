"""Import shim for expiringdict (not installable here): checkdmarc.utils makes a DNS cache with it at import
time. The certificate check makes no DNS query, so a plain dict that accepts the same arguments is enough."""


class ExpiringDict(dict):
    def __init__(self, max_len=None, max_age_seconds=None, items=None):
        super().__init__(items or {})
