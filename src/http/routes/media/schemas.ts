import { z } from '@hono/zod-openapi';
import { isHttpUrl } from '../../../domain/media-url.ts';

export const HttpUrl = (field: string) =>
  z
    .string()
    .refine(isHttpUrl, { message: `${field} must be an absolute http or https URL` })
    .openapi({ type: 'string', format: 'uri' });

export const UploadMediaBody = z
  .object({ media_url: HttpUrl('media_url').openapi({ description: 'Where to fetch the file: an image, video or audio of at most 5 MB' }) })
  .openapi('UploadMediaObjectRequest');

export const UploadMediaResponse = z
  .object({
    status: z.literal('OK'),
    message: z.string(),
    mediaObjectId: z.string(),
    media_url: z
      .string()
      .openapi({ description: "textrelay's own URL of the file, served without credentials; usable as a send's media_url" }),
  })
  .openapi('UploadMediaObjectResponse');
