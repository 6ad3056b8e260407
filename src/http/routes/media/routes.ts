import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { findServedMedia, uploadMediaObject } from '../../../services/media.ts';
import type { AppDeps } from '../../app-deps.ts';
import { API_SECURITY, apiErrors } from '../../openapi.ts';
import { answerOrRelay } from '../../provider-answers.ts';
import { apiRoute, createRouter } from '../../router.ts';
import { UploadMediaBody, UploadMediaResponse } from './schemas.ts';

/** The origin of textrelay's own URLs: TEXTRELAY_PUBLIC_URL, else the one this request reached. */
export function publicOrigin(c: Context, deps: Pick<AppDeps, 'publicUrl'>): string {
  return deps.publicUrl ?? new URL(c.req.url).origin;
}

/** Where the media URLs textrelay hands out point: TEXTRELAY_MEDIA_URL (another origin than the inbox's), else publicOrigin. */
export function mediaOrigin(c: Context, deps: Pick<AppDeps, 'publicUrl' | 'mediaUrl'>): string {
  return deps.mediaUrl ?? publicOrigin(c, deps);
}

const uploadMediaObjectRoute = createRoute({
  method: 'post',
  path: '/api/upload-media-object',
  tags: ['Sending'],
  operationId: 'uploadMediaObject',
  summary: 'Store the file behind a URL and serve it from textrelay',
  description:
    "Fetched through the guarded outbound client (the callbacks' address policy, timeouts), at most 5 MB, of one accepted image, video, audio or vCard type (docs/media-groups-typing.md).",
  security: API_SECURITY,
  request: { body: { content: { 'application/json': { schema: UploadMediaBody } }, required: true } },
  responses: {
    200: { description: 'Stored', content: { 'application/json': { schema: UploadMediaResponse } } },
    ...apiErrors('message', {
      400: 'Invalid URL, or the file could not be fetched, is too large or of another type (4000)',
      403: "The file would pass the account's media quota (4031, TEXTRELAY_MEDIA_QUOTA_MB)",
    }),
  },
});

const IMMUTABLE = 'public, max-age=31536000, immutable';

export function mediaRouter(deps: AppDeps) {
  const router = createRouter();
  router.openapi({ ...uploadMediaObjectRoute, middleware: apiRoute(deps, 'message') }, async (c) => {
    const result = await uploadMediaObject(deps, c.get('account'), {
      mediaUrl: c.req.valid('json').media_url,
      origin: mediaOrigin(c, deps),
    });
    return answerOrRelay(c, result);
  });
  // Outside the API document, like /docs: a file for anyone holding its unguessable URL, not an API operation.
  router.get('/media/:file', async (c) => {
    const media = await findServedMedia(deps, c.req.param('file'));
    if (!media) return c.body(null, 404);
    return c.body(new Uint8Array(media.bytes), 200, {
      'Content-Type': media.contentType,
      'Content-Length': String(media.bytes.length),
      'Cache-Control': IMMUTABLE,
      'X-Content-Type-Options': 'nosniff',
      // A file opened on this origin (the inbox's) must run no script, whatever a browser makes of it.
      'Content-Security-Policy': "default-src 'none'; sandbox",
      ...(media.attachment ? { 'Content-Disposition': `attachment; filename="${media.fileName}"` } : {}),
    });
  });
  return router;
}
