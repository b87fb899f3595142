// TLS reports (RFC 8460 §4) for the tests: the RFC's own example and the shapes large receivers send,
// dated yesterday so they are within every plan's retention; the HTTPS intake call; what got stored.
import { call, unique } from "../../support/api";
import { objectRows } from "../../support/reports";

export const enc = (s: string) => new TextEncoder().encode(s);

const yesterday = () => {
  const d = new Date(Date.now() - 86_400_000);
  const day = d.toISOString().slice(0, 10);
  return { start: `${day}T00:00:00Z`, end: `${day}T23:59:59Z`, day };
};

/** RFC 8460 §4.4's example report, with the policy domain and dates replaced. */
export function rfcExample(domain: string, reportId = unique("5065427c")) {
  const y = yesterday();
  return {
    "organization-name": "Company-X",
    "date-range": { "start-datetime": y.start, "end-datetime": y.end },
    "contact-info": "sts-reporting@company-x.example",
    "report-id": reportId,
    policies: [
      {
        policy: {
          "policy-type": "sts",
          "policy-string": ["version: STSv1", "mode: testing", `mx: *.mail.${domain}`, "max_age: 86400"],
          "policy-domain": domain,
          "mx-host": [`*.mail.${domain}`],
        },
        summary: { "total-successful-session-count": 5326, "total-failure-session-count": 303 },
        "failure-details": [
          {
            "result-type": "certificate-expired",
            "sending-mta-ip": "2001:db8:abcd:0012::1",
            "receiving-mx-hostname": `mx1.mail.${domain}`,
            "failed-session-count": 100,
          },
          {
            "result-type": "starttls-not-supported",
            "sending-mta-ip": "2001:db8:abcd:0013::1",
            "receiving-mx-hostname": `mx2.mail.${domain}`,
            "receiving-ip": "203.0.113.56",
            "failed-session-count": 200,
            "additional-information": "https://reports.company-x.example/report_info?id=5065427c-23d3#StarttlsNotSupported",
          },
          {
            "result-type": "validation-failure",
            "sending-mta-ip": "198.51.100.62",
            "receiving-ip": "203.0.113.58",
            "receiving-mx-hostname": `mx-backup.mail.${domain}`,
            "failed-session-count": 3,
            "failure-reason-code": "X509_V_ERR_PROXY_PATH_LENGTH_EXCEEDED",
          },
        ],
      },
    ],
  };
}

/** The shape Google sends: an STS policy with its lines, all sessions successful, no failure details. */
export function googleShape(domain: string, successful = 1200) {
  const y = yesterday();
  return {
    "organization-name": "Google Inc.",
    "date-range": { "start-datetime": y.start, "end-datetime": y.end },
    "contact-info": "smtp-tls-reporting@google.com",
    "report-id": `${y.start}_${domain}_${unique("g")}`,
    policies: [
      {
        policy: {
          "policy-type": "sts",
          "policy-string": ["version: STSv1", "mode: enforce", `mx: mx1.${domain}`, "max_age: 604800"],
          "policy-domain": domain,
          "mx-host": [`mx1.${domain}`],
        },
        summary: { "total-successful-session-count": successful, "total-failure-session-count": 0 },
      },
    ],
  };
}

/** The shape Microsoft sends: no policy found, a single mx-host string, a DANE-less failure list. */
export function microsoftShape(domain: string) {
  const y = yesterday();
  return {
    "organization-name": "Microsoft Corporation",
    "date-range": { "start-datetime": y.start.replace("Z", "+00:00"), "end-datetime": y.end.replace("Z", "+00:00") },
    "contact-info": "tlsrpt-noreply@microsoft.com",
    "report-id": `${unique("1339")}+${domain}`,
    policies: [
      {
        policy: { "policy-type": "no-policy-found", "policy-domain": domain, "mx-host": `mx1.${domain}` },
        summary: { "total-successful-session-count": 40, "total-failure-session-count": 2 },
        "failure-details": [
          { "result-type": "certificate-host-mismatch", "sending-mta-ip": "40.107.1.1", "receiving-mx-hostname": `mx1.${domain}`, "failed-session-count": 2 },
        ],
      },
    ],
  };
}

export const intake = (token: string, body: BodyInit, contentType = "application/tlsrpt+json") =>
  call(`/api/webhooks/tlsrpt/${token}`, { method: "POST", rawBody: body, headers: { "content-type": contentType } });

/** What the domain's report object holds of TLS reports (docs/decisions.md D125). */
export async function storedTls(domainId: number) {
  const reports = await objectRows(domainId, "SELECT org_name, report_id, successful, failed, via FROM tls_reports ORDER BY id");
  const [policies] = await objectRows<{ n: number }>(domainId, "SELECT COUNT(*) AS n FROM tls_policies");
  const failures = await objectRows(
    domainId,
    "SELECT f.result_type, f.sending_mta_ip, f.receiving_mx_hostname, f.receiving_ip, f.failed_count, f.failure_reason_code, p.policy_type FROM tls_failures f JOIN tls_policies p ON p.id = f.policy_ref ORDER BY f.id",
  );
  return { reports, policies: policies?.n ?? 0, failures };
}
