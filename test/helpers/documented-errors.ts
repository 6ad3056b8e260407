/**
 * An error answer checked against the route's OpenAPI document: the body is exactly the error
 * schema the route documents for that status (message errors or the spec's contact errors), and
 * a message error's code is the one the contract pairs with the HTTP status.
 */
import { expect } from 'vitest';
import { parseJson } from './http.ts';
import { documentedErrorSchema, type OpenApiOperation } from './route-table.ts';

/** The contract's table (service contract section 3): which error_code goes with which HTTP status. */
const CODES_BY_STATUS: Record<number, number[]> = {
  400: [4000, 4002],
  401: [4010],
  403: [4030],
  404: [4040],
  409: [4090],
  413: [4000],
  429: [4001],
  501: [5010],
};

/** The two error bodies the API has, written out here rather than imported, so the app is checked against the contract. */
function expectShape(schema: string | undefined, status: number, body: any, where: string): void {
  if (schema === 'ContactError') {
    expect(body, where).toEqual({ status: status === 404 ? 'error' : 'ERROR', message: expect.any(String) });
    expect(body.message.length, where).toBeGreaterThan(0);
    return;
  }
  expect(schema, `the route documents no error body for ${status}: ${where}`).toBe('MessageError');
  expect(body, where).toEqual({
    status: 'ERROR',
    error_code: expect.any(Number),
    error_message: expect.any(String),
    message: body?.error_message,
    error_detail: body?.error_detail === null ? null : expect.any(String),
  });
  expect(CODES_BY_STATUS[status] ?? [], `error_code ${body.error_code} with HTTP ${status}: ${where}`).toContain(body.error_code);
  expect(body.error_message.length, where).toBeGreaterThan(0);
}

/** Asserts that an error answer (`status` >= 400, body `text`) is the one `operation` documents. */
export function expectDocumentedError(
  operation: OpenApiOperation,
  status: number,
  contentType: string | null,
  text: string,
  where: string,
): void {
  expect(contentType ?? '', `not JSON: ${where}`).toMatch(/^application\/json/);
  const body = parseJson(text);
  expectShape(documentedErrorSchema(operation, status), status, body, where);
}
