const REDACTED = '[redacted]';

/**
 * Removes the carrier's secrets from a text before it is logged or shown (a BlueBubbles password
 * travels in every request's query string, so any URL or error may carry it), in plain and
 * URL-encoded form.
 */
export function createScrubber(secrets: readonly (string | undefined)[]): (text: string) => string {
  const forms = [
    ...new Set(secrets.filter((secret): secret is string => !!secret).flatMap((secret) => [secret, encodeURIComponent(secret)])),
  ].sort((a, b) => b.length - a.length);
  return (text) => forms.reduce((scrubbed, form) => scrubbed.split(form).join(REDACTED), text);
}

/** An error's message, for a log line or the carrier's last error, without the carrier's secrets. */
export function describeFailure(error: unknown, scrub: (text: string) => string): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return scrub(`${message}${cause}`);
}
