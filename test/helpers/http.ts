/**
 * Request and response plumbing shared by the in-process helper (`call` in app.ts) and the tests
 * that talk to a real server (cli.test.ts). No app code is imported here.
 */

/** An answer as the test helpers return it: the body parsed as JSON, or the raw text when it is not JSON. */
export type Reply = { status: number; headers: Headers; body: any };

/** `text` parsed as JSON, or `undefined` when it is not JSON. */
export function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Reads a response into a {@link Reply}. */
export async function readReply(response: Response): Promise<Reply> {
  const text = await response.text();
  const json = parseJson(text);
  return { status: response.status, headers: response.headers, body: json === undefined ? text : json };
}

/**
 * The init of a JSON request: the credential headers, a JSON content type and body when there is a
 * body, and `headers` laid on top.
 */
export function jsonRequest(
  method: string,
  credentials: Record<string, string>,
  body?: unknown,
  headers: Record<string, string> = {},
): RequestInit {
  return {
    method,
    headers: { ...credentials, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  };
}
