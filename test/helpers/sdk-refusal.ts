import { APIError } from 'sendblue';
import { expect } from 'vitest';

/** The error an SDK call was refused with; the test fails when the call succeeds. */
export async function refusal(call: Promise<unknown>): Promise<APIError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(APIError);
  return error as APIError;
}
