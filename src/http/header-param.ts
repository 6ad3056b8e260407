import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { validationError } from '../services/validation.ts';

/**
 * A request header a route reads: declared in the route's OpenAPI `parameters` and validated as it
 * is read. Not through `request.headers`: @hono/zod-openapi validates those by copying every header
 * of the request into one object, which makes @hono/node-server build a full web Headers for each
 * request, about a quarter of a small POST's cost (bench/results/README.md).
 */
export function headerParam<Schema extends z.ZodType<string | undefined>>(name: string, schema: Schema, description: string) {
  // Wrapped so that a refusal names the header, as the body's validation names its fields.
  const asField = z.object({ [name]: schema });
  // A header is a string: these are the constraints of a string that OpenAPI can state.
  const { minLength, maxLength, pattern } = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input' });
  return {
    parameter: {
      name,
      in: 'header' as const,
      required: !schema.safeParse(undefined).success,
      description,
      schema: { type: 'string' as const, minLength, maxLength, pattern, description },
    },
    read(c: Context): z.output<Schema> {
      const result = asField.safeParse({ [name]: c.req.header(name) });
      if (!result.success) throw validationError(result.error);
      return result.data[name] as z.output<Schema>;
    },
  };
}
