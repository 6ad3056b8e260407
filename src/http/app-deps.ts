import type { MediaFetcher } from '../domain/media-objects.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { CallbackUrlCheck } from '../outbound/callback-url-check.ts';
import type { CarrierDirectory } from '../services/carrier-directory.ts';
import type { ServiceDeps } from '../services/deps.ts';
import type { EventStreamSettings } from '../services/event-stream.ts';
import type { NotifierHub } from '../services/notifier.ts';
import type { SignInThrottle } from '../services/sign-in-throttle.ts';
import type { ProxySettings } from './forwarded.ts';
import type { MetricsEndpoint } from './metrics.ts';
import type { IngestDeps } from './routes/ingest/routes.ts';

/** What the HTTP app needs: the services' deps plus what only requests use. */
export type AppDeps = ServiceDeps &
  Pick<IngestDeps, 'transportName' | 'ingestSecrets' | 'providerSecrets'> & {
    /** Readiness probe: true while the database accepts writes. */
    isReady: () => boolean;
    version: string;
    /** Refuses (AppError 4000) a callback URL that is malformed or, when private callbacks are refused, not public. */
    checkCallbackUrl: CallbackUrlCheck;
    /** The services' notifier; the inbox's live pages watch accounts through it. */
    notify: NotifierHub;
    /** This app's Prometheus metrics (a registry per app, never the global one). */
    metrics: Metrics;
    metricsEndpoint: MetricsEndpoint;
    /** Counts failed inbox sign-ins per key id and per client address, and locks both out past the limit. */
    signInThrottle: SignInThrottle;
    /** Whether to believe a reverse proxy's X-Forwarded-* headers, and whether the public URL is https. */
    proxy: ProxySettings;
    /** Fetches media uploads and group photos through the guarded client, under the callbacks' address policy. */
    fetchMedia: MediaFetcher;
    /** TEXTRELAY_PUBLIC_URL: the origin of the URLs textrelay gives for its own files; else the request's. */
    publicUrl: string | undefined;
    /** The configured carriers: their webhooks are served under /webhooks/carriers/<name>/. */
    carriers: CarrierDirectory;
    /** TEXTRELAY_MEDIA_URL: the origin of the media URLs textrelay hands out, when not publicUrl's. */
    mediaUrl: string | undefined;
    /** GET /api/v2/events: the cap per account and the timings; the defaults where unset. */
    eventStreams?: Partial<EventStreamSettings>;
  };
