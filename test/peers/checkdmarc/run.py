"""Runs checkdmarc's own mark-certificate check, get_certificate_metadata (checkdmarc/bimi.py, unchanged), for
test/node/bimi-marks-checkdmarc.test.ts.

stdin: one JSON request, or a list of them: {"pem": "...", "domain": "brand.example" | null,
"now": ISO 8601 time, "roots": [extra trusted root PEMs]}. stdout: one answer per request, the same shape:
{"valid", "validation_errors", "warnings", "subject", "domains", "logotype_sha256", "chain_error"}.
"""

import json
import logging
import os
import sys
from datetime import datetime

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "shims"), os.path.join(HERE, "vendor")]

PSL_FILE = "/usr/share/publicsuffix/public_suffix_list.dat"
import publicsuffixlist  # noqa: E402

# checkdmarc.utils builds PublicSuffixList() at import; the vendored library reads its list from PSLFILE,
# which here is Debian's copy of the Public Suffix List (package publicsuffix) rather than a bundled one.
publicsuffixlist.PSLFILE = PSL_FILE

from cryptography import x509  # noqa: E402
from cryptography.x509.verification import PolicyBuilder, Store  # noqa: E402

import checkdmarc.bimi as bimi  # noqa: E402


class FrozenDatetime(datetime):
    """bimi.py judges the dates with datetime.now(timezone.utc); the fixtures are real certificates that have
    since expired, so each request sets the time it is judged at (as the Node test does for every peer)."""

    frozen: datetime

    @classmethod
    def now(cls, tz=None):
        return cls.frozen.astimezone(tz) if tz else cls.frozen.replace(tzinfo=None)


bimi.datetime = FrozenDatetime


class ChainLog(logging.Handler):
    """checkdmarc reports a failed path validation only when it is "not issued by a recognized MVA" and logs
    the others at debug level; the test reads them here to name what cryptography refused."""

    message = None

    def emit(self, record):
        ChainLog.message = record.getMessage()


logging.getLogger(bimi.__name__).addHandler(ChainLog())
logging.getLogger(bimi.__name__).setLevel(logging.DEBUG)


def verifier(now, roots):
    # checkdmarc's _verifier is built once at import with the clock of the day; rebuild it as bimi.py builds
    # _builder (its MVACAs.pem store, its extension policies, depth 5), with the request's time and with the
    # test's own roots added to the store (PolicyBuilder takes one store only, so it is a new builder).
    with open(bimi._mvaca_path, "rb") as f:
        certs = x509.load_pem_x509_certificates(f.read())
    for pem in roots:
        certs += x509.load_pem_x509_certificates(pem.encode())
    builder = PolicyBuilder().store(Store(certs)).extension_policies(ee_policy=bimi._ee_policy, ca_policy=bimi._ca_policy)
    return builder.max_chain_depth(5).time(now).build_client_verifier()


def run(request):
    now = datetime.fromisoformat(request["now"].replace("Z", "+00:00"))
    FrozenDatetime.frozen = now
    bimi._verifier = verifier(now, request.get("roots", []))
    ChainLog.message = None
    m = bimi.get_certificate_metadata(request["pem"].encode(), domain=request.get("domain"))
    keys = ["valid", "validation_errors", "warnings", "subject", "domains", "logotype_sha256"]
    return {**{k: m.get(k) for k in keys}, "chain_error": ChainLog.message}


requests = json.load(sys.stdin)
answers = [run(r) for r in requests] if isinstance(requests, list) else run(requests)
json.dump(answers, sys.stdout, default=str)
