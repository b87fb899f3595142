// The error answer of the OAuth endpoints in their own format (RFC 6749 §5.2, RFC 7591 §3.2.2):
// {error, error_description}, never cached, as the provider answers its own errors.

export function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error, error_description: description }), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", pragma: "no-cache", ...headers },
  });
}
