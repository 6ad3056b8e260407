/** Reading /metrics as Prometheus would: the text format parsed into samples. */
import { expect } from 'vitest';

export type Sample = { name: string; labels: Record<string, string>; value: number };

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = line.match(LINE);
    expect(match, `not a sample line: ${line}`).not.toBeNull();
    const labels: Record<string, string> = {};
    for (const [, key, value] of match![2]?.matchAll(LABEL) ?? []) labels[key!] = value!;
    samples.push({ name: match![1]!, labels, value: Number(match![3]) });
  }
  return samples;
}

/** The value of the one sample named `name` whose labels are exactly `labels`; undefined when there is none. */
export function sampleValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  const found = samples.filter((sample) => sample.name === name && JSON.stringify(Object.entries(sample.labels).sort()) === wanted);
  expect(found.length, `${name}${wanted} appears ${found.length} times`).toBeLessThanOrEqual(1);
  return found[0]?.value;
}

/** GET /metrics through `fetch` (a test app's `app.request`, or a real server's URL) and parse it. */
export async function scrape(
  request: (path: string, init?: RequestInit) => Response | Promise<Response>,
): Promise<{ text: string; samples: Sample[] }> {
  const response = await request('/metrics');
  const text = await response.text();
  expect(response.status, text).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return { text, samples: parseMetrics(text) };
}
