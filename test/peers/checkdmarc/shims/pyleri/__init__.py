"""Import shim for pyleri (not installable here): checkdmarc.bimi and checkdmarc.dmarc build record grammars
with it at import time. The certificate check never parses a record, so these classes only have to exist."""


class _Element:
    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


class Regex(_Element):
    pass


class Sequence(_Element):
    pass


class List(_Element):
    pass


class Grammar:
    def parse(self, _text):
        raise NotImplementedError("pyleri shim: record parsing is not part of the certificate check")
