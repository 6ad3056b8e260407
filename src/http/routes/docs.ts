import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';
import { compress } from 'hono/compress';
import { etag } from 'hono/etag';
import swaggerUiPackage from 'swagger-ui-dist/package.json' with { type: 'json' };
import { executableAsset } from '../../executable-assets.ts';

/**
 * `/docs`: Swagger UI over `/openapi.json`, every file served by this process, so the page works
 * offline and behind firewalls. The asset paths carry swagger-ui's version: a new version is a new
 * URL, so browsers may keep each file for good.
 */

const ASSET_ROOT = `/docs/assets/${swaggerUiPackage.version}`;

/** The files the page loads, with their media types; nothing else of the package is reachable. */
export const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>textrelay API</title>
<link rel="stylesheet" href="${ASSET_ROOT}/swagger-ui.css">
<link rel="icon" type="image/png" href="${ASSET_ROOT}/favicon-32x32.png">
<style>body { margin: 0; }</style>
</head>
<body>
<div id="swagger-ui"></div>
<script src="${ASSET_ROOT}/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// validatorUrl: null, or the page would send the document to validator.swagger.io for a badge.
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  displayOperationId: true,
  presets: [SwaggerUIBundle.presets.apis],
});
`;

/**
 * The browser may load only this origin's files; swagger-ui styles elements inline and shows
 * images as data: URLs. "Try it out" calls this same origin, which connect-src allows.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** Our own page and script change with textrelay, not with swagger-ui: revalidated on every load (cheap with the ETag). */
const REVALIDATE = 'no-cache';
const FOREVER = 'public, max-age=31536000, immutable';

let assetDirectory: string | undefined;
function assetPath(file: string): string {
  // The single executable carries these files (scripts/build-binary.ts): it has no node_modules.
  assetDirectory ??= executableAsset('swagger-ui-dist') ?? dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return join(assetDirectory, file);
}

export function docsRouter() {
  const router = new Hono();
  const files = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

  router.get('/docs', etag(), (c) => {
    c.header('Cache-Control', REVALIDATE);
    c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    return c.html(PAGE);
  });

  router.get('/docs/init.js', etag(), (c) => {
    c.header('Cache-Control', REVALIDATE);
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    return c.body(INIT_SCRIPT);
  });

  // Compressed per request: each browser fetches an asset once (the bundle is 1.7 MB, 0.5 MB gzipped).
  router.get(`${ASSET_ROOT}/:file`, compress(), async (c) => {
    const file = c.req.param('file');
    // Own keys only: "constructor" or "toString" would find Object.prototype's and read a file that is not there.
    const contentType = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (contentType === undefined) return c.notFound();
    let content = files.get(file);
    if (content === undefined) {
      content = readFile(assetPath(file)).then((bytes) => new Uint8Array(bytes));
      // A failed read is not kept, so it is tried again on the next request.
      content.catch(() => files.delete(file));
      files.set(file, content);
    }
    c.header('Cache-Control', FOREVER);
    c.header('Content-Type', contentType);
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(await content);
  });

  return router;
}
